"""Rule perturbation_table: one evaluation task's perturbation curves of every trial in
one table (paper A, Figures 4 and 11)."""

from skillneurons.io import read_metadata
from skillneurons.perturbation import read_curves, write_curves
from skillneurons.runlog import job_log

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    curves = read_curves(snakemake.input)
    meta = read_metadata(snakemake.input[0])
    meta = {
        key: meta[key] for key in ("model", "eval_task", "samples", "rates", "settings", "scope")
    }
    write_curves(snakemake.output[0], curves, {**meta, "trials": len(snakemake.input)})
