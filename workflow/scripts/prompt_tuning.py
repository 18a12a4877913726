"""Rule prompt_tuning: one prompt-tuning trial of a model on a task (paper A, §2.1)."""

from skillneurons.device import configure_torch
from skillneurons.models import load_model
from skillneurons.prompt_tuning import tune_prompts, write_metrics, write_prompt
from skillneurons.runlog import job_log
from skillneurons.splits import read_split
from skillneurons.tasks import SPLITS

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
