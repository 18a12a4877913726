"""Rule controlled_table: Table B-T9: out-of-domain accuracy at fixed trained
proportions q as the share of test-task neurons in the trained set varies (paper B,
appendix A.7), each the mean over the training runs (paper_b.runs)."""

import pandas as pd

from skillneurons.infra.io import read_metadata
from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.controlled_overlap_report import controlled_table
from skillneurons.paper_b.generalization import KEYS
from skillneurons.paper_b.runs import run_means
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    by_pair = {}
    for path in snakemake.input:  # one file per pair and q; the pair is in its metadata
        by_pair.setdefault(read_metadata(path)["pair"], []).append(pd.read_parquet(path))
    results = {
        pair: run_means(pd.concat(frames, ignore_index=True), KEYS)
        for pair, frames in by_pair.items()
    }
    table = controlled_table(results)
    write_frame(snakemake.output.csv, snakemake.output.md, table, snakemake.params.title, ".1f")
