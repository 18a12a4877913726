"""Rule dump_activations: dev and test activations at the prompt tokens, and dev's
input-token mean/max (Figure 3's baselines), as float16 Parquet with one row group per
batch (paper A, §3.1). One model load serves the three dumps."""

from skillneurons.activations import (
    dump_activations,
    input_token_activations,
    prompt_activations,
)
from skillneurons.device import configure_torch
from skillneurons.prompt_tuning import encode_frame, load_tuned_classifier
from skillneurons.runlog import job_log
from skillneurons.splits import read_split

DUMPS = {
    "dev": ("dev", prompt_activations),
    "test": ("test", prompt_activations),
    "dev_input": ("dev", input_token_activations),
}

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, wildcards = snakemake.params, snakemake.wildcards
    device = configure_torch(snakemake.threads, snakemake.resources.get("gpu", 0))
    loaded, classifier = load_tuned_classifier(params.model, snakemake.input.prompt, device)
    for output, (split, reduce) in DUMPS.items():
        frame, split_meta = read_split(snakemake.input[split])
        dump_activations(
            classifier,
            encode_frame(loaded, frame, params.max_length),
            frame["idx"].tolist(),
            snakemake.output[output],
            batch_size=params.batch_size,
            max_samples=params.max_samples,
            reduce=reduce,
            metadata={
                **dict(wildcards.items()),
                "split": split,
                "label_names": split_meta["label_names"],
            },
            progress=True,
        )
