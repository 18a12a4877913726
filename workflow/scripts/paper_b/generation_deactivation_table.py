"""Rule generation_deactivation_table: Table B-T1's generation rows: per generation task,
the multi-task causal LM's ROUGE-L as trained, with random neurons and with the task's
neurons deactivated."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.tables import deactivation_table, mean_row
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    results = pd.read_parquet(snakemake.input[0])
    table = mean_row(deactivation_table(results, column="rouge_l"))
    write_frame(snakemake.output.csv, snakemake.output.md, table, snakemake.params.title, ".1f")
