"""Rule comparison_table: Table AB-T1: per task, paper A's and paper B's neurons on the
same prompt-tuned model: Spearman's rho, top-k Jaccard against chance, curve areas."""

import pandas as pd

from skillneurons.infra.io import read_json
from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.comparison_report import comparison_table, curve_areas_by_order
from skillneurons.reporting.tables import mean_row, write_frame

ORDERS = ["paper_a", "paper_b", "random_paper_a", "random_paper_b"]

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params = snakemake.input, snakemake.params
    agreements = dict(zip(params.tasks, map(read_json, inputs.agreements), strict=True))
    areas = {
        task: curve_areas_by_order(pd.read_parquet(path), ORDERS)
        for task, path in zip(params.tasks, inputs.curves, strict=True)
    }
    table = mean_row(comparison_table(agreements, areas))
    write_frame(snakemake.output.csv, snakemake.output.md, table, params.title)
