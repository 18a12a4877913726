"""Rule baseline_activation: Eq. 3 of paper A, the mean training activation of every neuron
at every prompt token ([layers, tokens, neurons]) and of the input-token mean/max."""

from skillneurons.activations import baseline_activation, input_token_activations
from skillneurons.device import configure_torch
from skillneurons.io import write_tensors
from skillneurons.prompt_tuning import encode_frame, load_tuned_classifier
from skillneurons.runlog import job_log
from skillneurons.splits import read_split

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    device = configure_torch(snakemake.threads, snakemake.resources.get("gpu", 0))
    loaded, classifier = load_tuned_classifier(params.model, snakemake.input.prompt, device)
    train = encode_frame(loaded, read_split(snakemake.input.train)[0], params.max_length)
    options = {"batch_size": params.batch_size, "max_samples": params.max_samples}
    tensors = {
        "prompt": baseline_activation(classifier, train, **options, progress=True),
        "input_mean_max": baseline_activation(
            classifier, train, **options, reduce=input_token_activations, progress=True
        ),
    }
    meta = {**dict(snakemake.wildcards.items()), "layout": "[layers, tokens, neurons]"}
    write_tensors(snakemake.output[0], tensors, meta)
