"""Rule ablation_table: table A-ablation, the central claim decided under every
ablation setting for every evaluation task (skillneurons.paper_a.ablation)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.ablation import ablation_table
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    settings = BootstrapSettings(resamples=params.resamples, alpha=params.alpha, seed=params.seed)
    table = pd.concat(
        [
            ablation_table(pd.read_parquet(path), params.settings, settings)
            for path in snakemake.input
        ],
        ignore_index=True,
    )
    write_frame(
        snakemake.output.csv,
        snakemake.output.md,
        table,
        "A-ablation: area(layer-matched random) - area(own order) under each perturbation "
        "design (95% bootstrap intervals)",
    )
