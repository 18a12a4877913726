"""Rule pruning_table: Table A-T4, prompt tuning vs prompt tuning on the pruned model (test
accuracy mean ± std over trials), parameter fraction, CPU speedup and FLOP bound."""

from skillneurons.infra.io import read_json
from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.pruning import pruning_table
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs = snakemake.input
    table = pruning_table(
        [read_json(path) for path in inputs.prompt_metrics],
        [read_json(path) for path in inputs.pruned_metrics],
        read_json(inputs.speed)["tasks"],
    )
    title = (
        f"A-T4: prompt tuning vs pruned model, test accuracy (%), parameter fraction, "
        f"CPU speedup and FLOP bound, {snakemake.wildcards.model}"
    )
    write_frame(snakemake.output.csv, snakemake.output.md, table, title)
