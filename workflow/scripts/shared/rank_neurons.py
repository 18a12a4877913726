"""Rule rank_neurons: neuron predictivity of every trial under every definition, the
task's ranking (paper A, Eqs. 4-6, §3.2, appendix G), each trial's top skill neuron
accuracy on test (Table 1), and the held-out test correctness of the neurons the prompts
and Figure 3's Avg./Max. baselines select on dev (§4.1)."""

from skillneurons.infra.io import read_arrays, write_json
from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.skill_neurons import (
    held_out_correct,
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
    test_groups = read_groups(inputs.test, inputs.test_subtasks)
    per_trial, top_neurons = [], []
    dumps = zip(inputs.dev_dumps, inputs.dev_input_dumps, strict=True)
    tests = zip(inputs.test_dumps, inputs.test_input_dumps, strict=True)
    trials = zip(inputs.baselines, dumps, tests, strict=True)
    for trial, (baseline_path, (dev, dev_input), (test, test_input)) in enumerate(trials):
        baselines = read_arrays(baseline_path)
        prompt_accuracy = trial_accuracies(dev, baselines["prompt"], groups)
        input_accuracy = trial_accuracies(dev_input, baselines["input_mean_max"], groups)
        per_trial.append(trial_predictivities(prompt_accuracy, input_accuracy))
        top = skill_neuron_accuracy(dev, test, baselines["prompt"], groups)
        held_out = held_out_correct(
            prompt_accuracy, input_accuracy, baselines, test, test_input, test_groups
        )
        top_neurons.append({"task": wildcards.task, "trial": trial, **top, "held_out": held_out})
    tokens = baselines["prompt"].shape[1]
    meta = {"model": wildcards.model, "task": wildcards.task, "trials": len(per_trial)}
    ranking = task_ranking(per_trial, groups, tokens, wildcards.task, snakemake.params.seed)
    write_ranking(snakemake.output.ranking, ranking, meta)
    write_predictivity(snakemake.output.predictivity, per_trial, meta)
    write_json(snakemake.output.top_neurons, {**meta, "trials": top_neurons})
