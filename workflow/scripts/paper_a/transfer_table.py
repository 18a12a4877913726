"""Rule transfer_table: Spearman correlation of ON with zero-shot transfer accuracy per
target task, all neurons vs top skill neurons (table A-S6.2), and the transfer matrix."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.transfer import indicator_correlations, transfer_matrix
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    pairs, output = pd.read_parquet(snakemake.input[0]), snakemake.output
    model = snakemake.wildcards.model
    correlations = indicator_correlations(pairs, include_self=snakemake.params.include_self)
    title = f"A-S6.2: Spearman correlation of ON with prompt transfer accuracy, {model}"
    write_frame(output.csv, output.md, correlations, title)
    title = f"A-S6.2: zero-shot transfer accuracy, source (rows) -> target (columns), {model}"
    write_frame(output.matrix_csv, output.matrix_md, transfer_matrix(pairs), title)
