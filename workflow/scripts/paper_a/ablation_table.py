"""Rule ablation_table: table A-ablation, the central claim decided under every
ablation setting for every evaluation task (skillneurons.paper_a.ablation)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.ablation import ablation_table
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    settings = BootstrapSettings(
        resamples=params.resamples,
        alpha=params.alpha,
        seed=params.seed,
        min_runs=params.min_runs,
    )
    curves = pd.concat(map(pd.read_parquet, snakemake.input), ignore_index=True)
    table = ablation_table(curves, params.settings, settings)
    write_frame(
        snakemake.output.csv,
        snakemake.output.md,
        table,
        "A-ablation: area(layer-matched random) - area(own order) under each perturbation "
        "design (95% hierarchical bootstrap intervals, verdicts Holm-adjusted)",
    )
