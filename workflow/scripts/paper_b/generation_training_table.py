"""Rule generation_training_table: Table B-T2's generation rows: per generation task,
zero-shot ROUGE-L, after training random neurons and after training the task's neurons
only (x100)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.tables import mean_row, training_table
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    results = pd.concat(map(pd.read_parquet, snakemake.input), ignore_index=True)
    table = mean_row(training_table(results, results, column="rouge_l"))
    write_frame(snakemake.output.csv, snakemake.output.md, table, snakemake.params.title, ".1f")
