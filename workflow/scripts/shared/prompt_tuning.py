"""Rules prompt_tuning and prompt_tuning_random_words: one pass of prompt-tuning trials of
a model on a task, trained together (paper A, §2.1; skillneurons.plan.passes), with the
configured label words or, for §4.4, with a draw of random whole words from the model's
vocabulary (``params.random_words``); each trial's prompt and metrics under
``trial{t}/`` of the pass's folder."""

from pathlib import Path

from skillneurons.data.splits import read_split
from skillneurons.data.tasks import SPLITS
from skillneurons.infra.io import write_json
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_on_device
from skillneurons.models.prompted import write_prompt
from skillneurons.paper_a.label_word_sampling import sample_label_words
from skillneurons.paper_a.prompt_tuning import tune_prompts

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, wildcards = snakemake.params, snakemake.wildcards
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    words = params.label_words or sample_label_words(loaded.tokenizer, **params.random_words)
    splits = {split: read_split(snakemake.input[split])[0] for split in SPLITS}
    tuned = tune_prompts(
        loaded, splits, label_words=words, settings=params.settings, seeds=params.seeds
    )
    # A trial's identity as its own job wrote it: the wildcards but the pass, then trial.
    identity = {
        key: int(v) if key == "draw" else v for key, v in wildcards.items() if key != "trials"
    }
    for trial, seed, (classifier, metrics) in zip(params.trials, params.seeds, tuned, strict=True):
        folder = Path(snakemake.output[0], f"trial{trial}")
        folder.mkdir(parents=True, exist_ok=True)
        trial_identity = {**identity, "trial": int(trial)}
        write_prompt(
            str(folder / "prompt.safetensors"), classifier, {**trial_identity, "seed": seed}
        )
        write_json(folder / "metrics.json", {**trial_identity, **metrics})
