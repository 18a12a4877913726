"""Rule prompt_tuning_random_words: one prompt-tuning trial whose label words are a draw
of random whole words from the model's vocabulary (paper A, §4.4, appendix B)."""

from skillneurons.data.splits import read_split
from skillneurons.data.tasks import SPLITS
from skillneurons.infra.device import configure_torch
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_model
from skillneurons.paper_a.label_word_sampling import sample_label_words
from skillneurons.paper_a.prompt_tuning import tune_prompts, write_metrics, write_prompt

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, wildcards = snakemake.params, snakemake.wildcards
    device = configure_torch(snakemake.threads, snakemake.resources.get("gpu", 0))
    loaded = load_model(**params.model)
    loaded.model.to(device)
    draw = int(wildcards.draw)
    words = sample_label_words(loaded.tokenizer, params.num_labels, params.words_seed, draw)
    splits = {split: read_split(snakemake.input[split])[0] for split in SPLITS}
    classifier, metrics = tune_prompts(
        loaded, splits, label_words=words, settings=params.settings, seed=params.seed
    )
    identity = {
        "model": wildcards.model,
        "task": wildcards.task,
        "trial": int(wildcards.trial),
        "draw": draw,
    }
    write_prompt(snakemake.output.prompt, classifier, {**identity, "seed": params.seed})
    write_metrics(snakemake.output.metrics, {**identity, **metrics})
