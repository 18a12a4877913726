"""Rules deactivation_table and generation_deactivation_table: Table B-T1 (B-T6 with
Bloom) and its generation rows: per task, the multi-task model's score (accuracy, or
ROUGE-L) as trained, with random neurons (paper B's, drawn over all layers, and ours,
layer-matched) and with the task's neurons deactivated, each the mean over the
multi-task model's training runs (paper_b.runs)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.deactivation_report import deactivation_table
from skillneurons.paper_b.evaluation import KEYS
from skillneurons.paper_b.runs import run_means
from skillneurons.reporting.tables import mean_row, write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    results = pd.concat(map(pd.read_parquet, snakemake.input), ignore_index=True)
    table = mean_row(deactivation_table(run_means(results, KEYS)))
    write_frame(snakemake.output.csv, snakemake.output.md, table, snakemake.params.title, ".1f")
