"""Rule continual_tables: Table B-T5 (CL per order and method, SeqLoRA measured, with
paper B's quoted EPI and O-LoRA rows) and its a_ij matrices, each accuracy the mean over
the training runs (paper_b.runs), and Figure and table B-F4 (FG per stage, Eq. 5: each
run's against its own per-task FT, the mean over the runs, with the findings engine's
interval over the runs > the test samples) (paper B, §6)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.continual import KEYS, read_order_results
from skillneurons.paper_b.continual_report import (
    continual_matrix_table,
    continual_table,
    forgetting_intervals,
    forgetting_table,
)
from skillneurons.paper_b.runs import run_means
from skillneurons.reporting.figures import forgetting_figure, save_figure
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, output, params = snakemake.input, snakemake.output, snakemake.params
    trained = read_order_results(inputs.trained, params.orders)
    every_run = pd.concat(map(pd.read_parquet, inputs.per_task), ignore_index=True)
    results = {order: run_means(frame, KEYS) for order, frame in trained.items()}
    per_task = run_means(every_run, KEYS)
    write_frame(output.csv, output.md, continual_table(results, per_task), params.title)
    matrices = continual_matrix_table(results, per_task)
    write_frame(output.matrix_csv, output.matrix_md, matrices, params.matrix_title)
    forgetting = forgetting_table(trained, every_run)
    write_frame(output.fg_csv, output.fg_md, forgetting, params.forgetting_title)
    bands = forgetting_intervals(trained, every_run, BootstrapSettings(**params.intervals))
    figure = forgetting_figure(forgetting, params.forgetting_title, bands)
    save_figure(figure, output.png, output.pdf)
