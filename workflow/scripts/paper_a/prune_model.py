"""Rule prune_model: prune a model to a task's skill neurons for every trial (frozen neurons
folded into the output bias), re-tune the prompts on it and evaluate on test (paper A §6.1)."""

from skillneurons.data.splits import read_split
from skillneurons.data.tasks import SPLITS
from skillneurons.infra.io import read_tensors
from skillneurons.infra.runlog import job_log
from skillneurons.models.encoding import encode_frame
from skillneurons.models.loading import load_on_device
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.pruning import (
    PrunedTrialFiles,
    PruningSettings,
    prune_trial,
    retuning_settings,
)

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards) as log:
    inputs, outputs, params = snakemake.input, snakemake.output, snakemake.params
    base = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    max_length = params.prompt_tuning["max_length"]
    encoded = {
        split: encode_frame(base, read_split(path)[0], max_length)
        for split, path in zip(SPLITS, inputs.splits, strict=True)
    }
    ranking = Ranking.from_parquet(inputs.ranking)
    settings = PruningSettings.from_config(
        params.pruning, per_layer=params.per_layer, init_std=params.prompt_tuning["init_std"]
    )
    for trial, seed in enumerate(params.seeds):
        files = [outputs.models, outputs.configs, outputs.prompts, outputs.metrics]
        metrics = prune_trial(
            base,
            ranking,
            read_tensors(inputs.baselines[trial]),
            read_tensors(inputs.prompts[trial])["prompts"],
            encoded,
            PrunedTrialFiles(*(paths[trial] for paths in files)),
            settings=settings,
            training=retuning_settings(params.prompt_tuning, params.pruning, seed),
            label_words=params.label_words,
            identity={
                "model": snakemake.wildcards.model,
                "task": snakemake.wildcards.task,
                "trial": trial,
            },  # fmt: skip
            base_settings=params.model,
        )
        log.info("trial %d: test accuracy %.4f, %.1f%% of the parameters", trial,
                 metrics["test_accuracy"], 100 * metrics["parameter_fraction"])  # fmt: skip
