"""Rule selectivity_index: Morcos et al.'s (2018) class selectivity index of every neuron
on the dev dumps of each trial (paper A, appendix H, Figure 15)."""

from skillneurons.infra.runlog import job_log
from skillneurons.neurons.selectivity import trial_selectivity, write_selectivity

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, wildcards = snakemake.params, snakemake.wildcards
    per_trial = [trial_selectivity(path, params.classes) for path in snakemake.input]
    meta = {"model": wildcards.model, "task": wildcards.task, "trials": len(per_trial)}
    write_selectivity(snakemake.output[0], per_trial, meta)
