"""Prompt-tuning trials (paper A, §2.1, appendix B) and their files.

``results/{model}/prompt_tuning/{task}/trial{trial}/prompt.safetensors`` is a prompt
file (:func:`skillneurons.models.prompted.write_prompt`: tensor ``prompts``
``[l, hidden]``, with task, model, trial, seed, label words and ids, scoring mode,
prompt length and layout as metadata). ``metrics.json`` next to it holds the dev
curve, best step, dev and test accuracy, the test majority-class rate, label words,
seed and the hash of the settings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from skillneurons.infra.io import stable_hash
from skillneurons.models.encoding import encode_frame
from skillneurons.models.loading import LoadedModel
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.stacked_prompts import StackedPrompts, predict_trials
from skillneurons.models.training import TrainingSettings, majority_rate, run_metrics
from skillneurons.models.trial_training import train_trials
from skillneurons.models.verbalizer import SCORING
from skillneurons.reporting.stats import accuracy_summary


def tune_prompts(
    loaded: LoadedModel,
    splits: Mapping[str, pd.DataFrame],
    *,
    label_words: Sequence[str],
    settings: Mapping[str, object],
    seeds: Sequence[int],
) -> list[tuple[PromptedClassifier, dict]]:
    """Run one prompt-tuning trial per seed, all in one pass
    (:func:`skillneurons.models.trial_training.train_trials`); return each trial's
    tuned classifier and metrics, in the order of ``seeds``.

    ``settings`` is the config's ``prompt_tuning`` block; a trial's seed seeds both its
    prompt initialisation and its data order, as a run of its own would. The
    classifiers live on the backbone's device.
    """
    classifiers = [
        PromptedClassifier(
            loaded,
            label_words,
            settings["prompt_length"],
            init_std=settings["init_std"],
            seed=seed,
            init=settings.get("init", "normal"),
        ).to(loaded.model.device)
        for seed in seeds
    ]
    first = classifiers[0]
    max_length = int(settings["max_length"])
    if first.max_input_length is not None and max_length > first.max_input_length:
        raise ValueError(
            f"prompt_tuning.max_length={max_length} plus {first.added_length} prompt "
            f"positions exceeds the model's {first.backbone.config.max_position_embeddings}"
            f" positions; lower max_length to at most {first.max_input_length}"
        )
    encoded = {name: encode_frame(loaded, frame, max_length) for name, frame in splits.items()}
    training = [TrainingSettings.from_config(settings, seed) for seed in seeds]
    stacked = StackedPrompts(classifiers)
    results = train_trials(stacked, encoded["train"], encoded["dev"], training, first.pad_id)
    test = encoded["test"]
    eval_batch_size = training[0].eval_batch_size
    predicted = predict_trials(stacked, test, eval_batch_size, first.pad_id, range(len(seeds)))
    shared = {
        "label_words": list(label_words),
        "label_token_ids": first.label_ids,
        "scoring": SCORING[loaded.kind],
        "prompt_length": first.prompt_length,
    }
    settings_hash = stable_hash({"settings": dict(settings), "label_words": list(label_words)})
    trials = []
    for classifier, seed, result, right in zip(
        stacked.classifiers, seeds, results, predicted == test.labels, strict=True
    ):
        metrics = {
            **shared,
            "seed": seed,
            **run_metrics(result, right.float().mean().item()),
            "test_majority_rate": majority_rate(test.labels),
            "settings_hash": settings_hash,
        }
        trials.append((classifier, metrics))
    return trials


def prompt_tuning_table(metrics: Sequence[Mapping[str, object]]) -> pd.DataFrame:
    """Table A-T1's prompt-tuning column: test accuracy mean ± std over trials per task.

    ``metrics`` are the trials' metrics dicts with ``task`` and ``trial`` keys.
    Columns: task, trials, mean, std (sample std; NaN for a single trial), min,
    majority (test majority-class rate), and ``accuracy`` as "mean ± std" in % (or
    "mean (1 trial)", :func:`skillneurons.reporting.stats.accuracy_summary`).
    """
    frame = pd.DataFrame(metrics)
    rows = []
    for task, group in frame.groupby("task", sort=False):
        values = group["test_accuracy"].tolist()
        mean, std, text = accuracy_summary(values)
        rows.append(
            {
                "task": task,
                "trials": len(values),
                "mean": mean,
                "std": std,
                "min": min(values),
                "majority": float(group["test_majority_rate"].iloc[0]),
                "accuracy": text,
            }
        )
    return pd.DataFrame(rows)
