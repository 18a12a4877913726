"""Rule label_word_noise_floor: per main prompt-tuning trial, the agreement of the
task's neuron orders ranked on two disjoint, label-stratified halves of the dev split
(paper A, §4.4: the agreement of random-label-word draws is compared with 0.87 only
where the same prompts agree above it; skillneurons.paper_a.label_word_sampling)."""

import numpy as np

from skillneurons.infra.io import read_arrays, write_json
from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.label_word_sampling import split_half_agreement
from skillneurons.paper_a.skill_neurons import read_groups

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, wildcards = snakemake.input, snakemake.wildcards
    groups = read_groups(inputs.dev, inputs.subtasks)
    agreements = [
        split_half_agreement(dump, read_arrays(baseline)["prompt"], groups, snakemake.params.seed)
        for baseline, dump in zip(inputs.baselines, inputs.dev_dumps, strict=True)
    ]
    write_json(
        snakemake.output[0],
        {
            "model": wildcards.model,
            "task": wildcards.task,
            "dev_samples": int(sum(len(group.idx) for group in groups.values())),
            "split_half_agreement": agreements,
            "mean": float(np.mean(agreements)),
        },
    )
