"""Rules training_table and generation_training_table: Table B-T2 (B-T7 with Bloom) and
its generation rows: per task, the zero-shot score (accuracy, or ROUGE-L), after
training random neurons (paper B's, drawn over all layers, and ours, layer-matched) and
after training the task's neurons only, each the mean over the training runs
(paper_b.runs)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.evaluation import KEYS
from skillneurons.paper_b.neuron_training_report import training_table
from skillneurons.paper_b.runs import run_means
from skillneurons.reporting.tables import mean_row, write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs = snakemake.input
    results = pd.concat(map(pd.read_parquet, inputs.training), ignore_index=True)
    results = run_means(results, KEYS)
    table = mean_row(training_table(results, pd.read_parquet(inputs.zero_shot)))
    write_frame(snakemake.output.csv, snakemake.output.md, table, snakemake.params.title, ".1f")
