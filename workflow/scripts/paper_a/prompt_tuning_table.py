"""Rule prompt_tuning_table: Table A-T1's prompt-tuning column (mean ± std over trials)."""

from skillneurons.infra.io import read_json
from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.prompt_tuning import prompt_tuning_table
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    table = prompt_tuning_table([read_json(path) for path in snakemake.input])
    title = f"A-T1 (prompt-tuning column): test accuracy, {snakemake.wildcards.model}"
    write_frame(snakemake.output.csv, snakemake.output.md, table, title)
