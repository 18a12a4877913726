"""Rule prune_model: prune a model to a task's skill neurons for every trial (frozen neurons
folded into the output bias), re-tune the prompts on it and evaluate on test (paper A §6.1)."""

import pandas as pd

from skillneurons.data.splits import read_split
from skillneurons.data.tasks import SPLITS
from skillneurons.infra.device import configure_torch
from skillneurons.infra.io import read_tensors, write_json
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_model
from skillneurons.models.sites import ffn_sites
from skillneurons.paper_a.prompt_tuning import encode_frame, write_prompt
from skillneurons.paper_a.pruning import (
    frozen_values,
    kept_neurons,
    parameter_count,
    pruned_copy,
    pruned_layers,
    retune_prompts,
    retuning_settings,
    save_pruned_model,
)

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards) as log:
    inputs, outputs, params = snakemake.input, snakemake.output, snakemake.params
    wildcards, pruning, tuning = snakemake.wildcards, params.pruning, params.prompt_tuning
    device = configure_torch(snakemake.threads, snakemake.resources.get("gpu", 0))
    base = load_model(**params.model)
    base.model.to(device)
    encoded = {
        split: encode_frame(base, read_split(path)[0], tuning["max_length"])
        for split, path in zip(SPLITS, inputs.splits, strict=True)
    }
    layers = pruned_layers(len(ffn_sites(base.model)), pruning["layers_fraction"])
    kept = kept_neurons(pd.read_parquet(inputs.ranking), layers, pruning["keep"], params.per_layer)
    original = parameter_count(base.model)
    for trial, seed in enumerate(params.seeds):
        values = frozen_values(read_tensors(inputs.baselines[trial]), pruning["frozen_baseline"])
        pruned = pruned_copy(base, kept, values)
        tuned = read_tensors(inputs.prompts[trial])["prompts"]
        classifier, metrics = retune_prompts(
            pruned,
            encoded,
            label_words=params.label_words,
            prompt_length=tuned.shape[0],
            init_std=tuning["init_std"],
            initial_prompts=tuned if pruning["prompt_init"] == "tuned" else None,
            training=retuning_settings(tuning, pruning, seed),
        )
        identity = {"model": wildcards.model, "task": wildcards.task, "trial": trial}
        count = parameter_count(pruned.model)
        sizes = {"parameters": count, "original_parameters": original}
        sizes["parameter_fraction"] = count / original
        config = {**identity, "base": dict(params.model), **sizes}
        config.update({k: pruning[k] for k in ("keep", "layers_fraction", "frozen_baseline")})
        save_pruned_model(
            outputs.models[trial], outputs.configs[trial], pruned.model, kept, config
        )
        write_prompt(
            outputs.prompts[trial], classifier, {**identity, "seed": seed, "pruned": True}
        )
        write_json(outputs.metrics[trial], {**identity, **metrics, **sizes, "seed": seed})
        log.info("trial %d: test accuracy %.4f, %.1f%% of the parameters", trial,
                 metrics["test_accuracy"], 100 * count / original)  # fmt: skip
