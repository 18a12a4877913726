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
from skillneurons.models.training import TrainingSettings, majority_rate, result_metrics, train
from skillneurons.models.verbalizer import SCORING
from skillneurons.reporting.stats import accuracy_summary


def tune_prompts(
    loaded: LoadedModel,
    splits: Mapping[str, pd.DataFrame],
    *,
    label_words: Sequence[str],
    settings: Mapping[str, object],
    seed: int,
    progress: bool = True,
) -> tuple[PromptedClassifier, dict]:
    """Run one prompt-tuning trial; return the tuned classifier and its metrics.

    ``settings`` is the config's ``prompt_tuning`` block; ``seed`` seeds both the
    prompt initialisation and the data order of this trial.
    """
    classifier = PromptedClassifier(
        loaded,
        label_words,
        settings["prompt_length"],
        init_std=settings["init_std"],
        seed=seed,
        init=settings.get("init", "normal"),
    )
    max_length = int(settings["max_length"])
    if classifier.max_input_length is not None and max_length > classifier.max_input_length:
        raise ValueError(
            f"prompt_tuning.max_length={max_length} plus {classifier.added_length} prompt "
            f"positions exceeds the model's {classifier.backbone.config.max_position_embeddings}"
            f" positions; lower max_length to at most {classifier.max_input_length}"
        )
    encoded = {name: encode_frame(loaded, frame, max_length) for name, frame in splits.items()}
    training = TrainingSettings.from_config(settings, seed)
    pad_id = classifier.pad_id
    result = train(
        classifier, encoded["train"], encoded["dev"], training, pad_id, progress=progress
    )
    metrics = {
        "label_words": list(label_words),
        "label_token_ids": classifier.label_ids,
        "scoring": SCORING[loaded.kind],
        "prompt_length": classifier.prompt_length,
        "seed": seed,
        **result_metrics(classifier, result, encoded["test"], training.eval_batch_size, pad_id),
        "test_majority_rate": majority_rate(encoded["test"].labels),
        "settings_hash": stable_hash(
            {"settings": dict(settings), "label_words": list(label_words)}
        ),
    }
    return classifier, metrics


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
