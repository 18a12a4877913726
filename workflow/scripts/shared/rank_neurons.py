"""Rule rank_neurons: neuron predictivity of every trial under every definition, the
task's ranking (paper A, Eqs. 4-6, §3.2, appendix G), and each trial's top skill neuron
accuracy on test (Table 1)."""

from skillneurons.infra.io import read_arrays, write_json
from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.skill_neurons import (
    read_groups,
    skill_neuron_accuracy,
    task_ranking,
    trial_accuracies,
    trial_predictivities,
    write_predictivity,
    write_ranking,
)

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, wildcards = snakemake.input, snakemake.params, snakemake.wildcards
    groups = read_groups(inputs.dev, inputs.subtasks)
    per_trial, top_neurons = [], []
    trials = zip(
        inputs.baselines, inputs.dev_dumps, inputs.dev_input_dumps, inputs.test_dumps, strict=True
    )
    for trial, (baseline_path, dev_dump, input_dump, test_dump) in enumerate(trials):
        baselines = read_arrays(baseline_path)
        prompt_baseline = baselines["prompt"]
        per_trial.append(
            trial_predictivities(
                trial_accuracies(dev_dump, prompt_baseline, groups),
                trial_accuracies(input_dump, baselines["input_mean_max"], groups),
            )
        )
        top = skill_neuron_accuracy(dev_dump, test_dump, prompt_baseline, groups)
        top_neurons.append({"task": wildcards.task, "trial": trial, **top})
    tokens = baselines["prompt"].shape[1]
    meta = {"model": wildcards.model, "task": wildcards.task, "trials": len(per_trial)}
    ranking = task_ranking(per_trial, groups, tokens, wildcards.task, snakemake.params.seed)
    write_ranking(snakemake.output.ranking, ranking, meta)
    write_predictivity(snakemake.output.predictivity, per_trial, meta)
    write_json(snakemake.output.top_neurons, {**meta, "trials": top_neurons})
