"""Rule figure_transfer: figure A-S6.2, zero-shot transfer accuracy against the overlap of
activated neurons, over all neurons and over the target's top skill neurons (paper A §6.2)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.transfer import indicator_correlations, scatter_points
from skillneurons.reporting.figures import save_figure, transfer_scatter

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    pairs, include_self = pd.read_parquet(snakemake.input[0]), snakemake.params.include_self
    title = f"A-S6.2: ON as a prompt transferability indicator, {snakemake.wildcards.model}"
    figure = transfer_scatter(
        scatter_points(pairs, include_self), indicator_correlations(pairs, include_self), title
    )
    save_figure(figure, snakemake.output.png, snakemake.output.pdf)
