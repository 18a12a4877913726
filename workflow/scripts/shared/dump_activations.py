"""Rule dump_activations: from one model load, the baseline of Eq. 3 (the mean training
activation of every neuron at every prompt token, [layers, tokens, neurons], its std
over the training samples, the mean of the input-token mean/max, and each neuron's std
over every position, [layers, neurons]: the unit of neuron_std noise at every
position), then dev and test activations at the prompt tokens and dev's and test's
input-token mean/max (Figure 3's baselines: dev selects their neurons, test holds them
out) as float16 Parquet with one row group per batch (paper A, §3.1), for every trial's
prompt in turn. Every subset is a seeded, label-stratified
draw (skillneurons.data.subsets)."""

from skillneurons.data.splits import read_split
from skillneurons.infra.io import write_tensors
from skillneurons.infra.runlog import job_log
from skillneurons.infra.separate import separate_runs
from skillneurons.models.encoding import encode_frame
from skillneurons.models.loading import load_on_device
from skillneurons.models.prompted import classifier_from_prompt_file
from skillneurons.neurons.activations import (
    activation_moments,
    baseline_activation,
    dump_activations,
    input_token_activations,
    position_std,
    prompt_activations,
)

DUMPS = {
    "dev": ("dev", prompt_activations),
    "test": ("test", prompt_activations),
    "dev_input": ("dev", input_token_activations),
    "test_input": ("test", input_token_activations),
}

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, wildcards = snakemake.input, snakemake.params, snakemake.wildcards
    output = snakemake.output
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    train = encode_frame(loaded, read_split(inputs.train)[0], params.max_length)
    splits = {split: read_split(inputs[split]) for split in ("dev", "test")}
    encoded = {
        split: encode_frame(loaded, frame, params.max_length)
        for split, (frame, _) in splits.items()
    }
    options = {
        "batch_size": params.batch_size,
        "max_samples": params.baseline_samples,
        "seed": params.subset_seed,
        "name": f"{wildcards.task}/train (activations.baseline_samples)",
    }
    layout = {"layout": "[layers, tokens, neurons]; all_positions_std: [layers, neurons]"}
    # every trial's prompt on the one backbone (inference only: the weights never change)
    for index, trial in separate_runs(params.trials, "trial"):
        identity = {**dict(wildcards.items()), "trial": str(trial)}
        classifier = classifier_from_prompt_file(loaded, inputs.prompts[index])
        prompt_mean, prompt_std = activation_moments(classifier, train, **options, progress=True)
        baselines = {
            "prompt": prompt_mean,
            "prompt_std": prompt_std,
            "input_mean_max": baseline_activation(
                classifier, train, **options, reduce=input_token_activations, progress=True
            ),
            "all_positions_std": position_std(classifier, train, **options),
        }
        write_tensors(output.baseline[index], baselines, {**identity, **layout})
        for name, (split, reduce) in DUMPS.items():
            frame, split_meta = splits[split]
            dump_activations(
                classifier,
                encoded[split],
                frame["idx"].tolist(),
                output[name][index],
                batch_size=params.batch_size,
                max_samples=params.max_samples,
                seed=params.subset_seed,
                name=f"{wildcards.task}/{split} (activations.max_samples)",
                reduce=reduce,
                metadata={**identity, "split": split, "label_names": split_meta["label_names"]},
                progress=True,
            )
