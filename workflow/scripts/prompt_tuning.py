"""Rule prompt_tuning: one prompt-tuning trial of a model on a task (paper A, §2.1)."""

from skillneurons.data.splits import read_split
from skillneurons.data.tasks import SPLITS
from skillneurons.infra.device import configure_torch
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_model
from skillneurons.paper_a.prompt_tuning import tune_prompts, write_metrics, write_prompt

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, wildcards = snakemake.params, snakemake.wildcards
    device = configure_torch(snakemake.threads, snakemake.resources.get("gpu", 0))
    loaded = load_model(**params.model)
    loaded.model.to(device)
    splits = {
        split: read_split(path)[0] for split, path in zip(SPLITS, snakemake.input, strict=True)
    }
    classifier, metrics = tune_prompts(
        loaded, splits, label_words=params.label_words, settings=params.settings, seed=params.seed
    )
    identity = {"model": wildcards.model, "task": wildcards.task, "trial": int(wildcards.trial)}
    write_prompt(snakemake.output.prompt, classifier, {**identity, "seed": params.seed})
    write_metrics(snakemake.output.metrics, {**identity, **metrics})
