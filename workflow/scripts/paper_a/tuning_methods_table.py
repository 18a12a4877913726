"""Rule tuning_methods_table: test accuracy of the adapter and BitFit models per task,
mean ± std over trials, against the majority class (paper A, §5)."""

from skillneurons.infra.io import read_json
from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.tuning_methods import accuracy_table
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    metrics = [read_json(path) for path in snakemake.input]
    table = accuracy_table(metrics)
    write_frame(snakemake.output.csv, snakemake.output.md, table, snakemake.params.title)
