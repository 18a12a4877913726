"""Rule control_top_neuron: top-neuron accuracy without prompt tuning (paper A, Table 3)
for one task, each trial in turn: random prompts, a hand-written prompt, a randomly
initialised model."""

from skillneurons.data.splits import read_split
from skillneurons.data.tasks import SPLITS
from skillneurons.infra.device import configure_torch
from skillneurons.infra.io import write_json
from skillneurons.infra.runlog import job_log
from skillneurons.infra.separate import separate_runs
from skillneurons.paper_a.controls import control_classifier, control_skill_neuron_accuracy
from skillneurons.paper_a.skill_neurons import read_groups

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, wildcards = snakemake.input, snakemake.params, snakemake.wildcards
    device = configure_torch(snakemake.threads, snakemake.resources.get("gpu", 0))
    splits = {
        split: read_split(path)[0] for split, path in zip(SPLITS, inputs.splits, strict=True)
    }
    groups = read_groups(inputs.dev, inputs.subtasks)
    controls = params.controls
    for index, trial in separate_runs(params.trials, "trial"):
        outputs = [snakemake.output[control][index] for control in controls]
        for control, output in zip(controls, outputs, strict=True):
            loaded, classifier = control_classifier(
                control,
                params.model,
                params.label_words,
                prompt_length=params.prompt_length,
                init_std=params.init_std,
                seed=params.seeds[index],
                hard_prompt=params.hard_prompt,
            )
            classifier.to(device)
            result = control_skill_neuron_accuracy(
                loaded,
                classifier,
                splits,
                groups,
                max_length=params.max_length,
                batch_size=params.batch_size,
                baseline_samples=params.baseline_samples,
                max_samples=params.max_samples,
                subset_seed=params.subset_seed,
                task=wildcards.task,
            )
            identity = {**dict(wildcards.items()), "trial": str(trial)}
            write_json(output, {**identity, "control": control, **result})
