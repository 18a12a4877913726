"""Word cues: how well the mere presence of a few words separates a binary task.

A neuron read at its most active position (paper A, Eq. 6 with the maximum over
prompt tokens) can behave like a detector of a small family of tokens: it fires
when any of them occurs. If a handful of words separates the two classes of a
(sub)task almost perfectly, hundreds of such neurons reach predictivity near 1 and
the task's ranking measures a template giveaway rather than a skill. Measured on
MiniLM-L6 in the embedded default: the first synthetic Tweet twin's neutral tweets
were the only ones with a weekday or a time, the union of 4 words separated
neutral-vs-rest at 1.000, and 13.1% of neurons had predictivity >= 0.99; the other
subtasks, at 0.79-0.95, had at most 0.2% per layer.

:func:`word_cue_accuracy` is the accuracy of the best such detector found greedily
(one word at a time, each the one that most raises accuracy); :func:`suite_word_cues`
measures it on every binary (sub)task of the synthetic suite, so a test can keep
the suite free of giveaways.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from skillneurons.data.splits import subtask_split
from skillneurons.data.synthetic import SYNTHETIC_TASKS, generate_task
from skillneurons.data.tasks import SYNTHETIC_SPECS, Subtask

# Lowercase words (with apostrophes) and runs of symbols such as ":)" or "#".
_TOKEN = re.compile(r"[a-z0-9']+|[^\sa-z0-9]+")


class WordCue(NamedTuple):
    """The best word-union detector of a binary task.

    ``accuracy`` is that of predicting ``label`` exactly when a text holds any of
    ``words`` (in the order the greedy search added them).
    """

    accuracy: float
    label: int
    words: tuple[str, ...]


def word_cue_accuracy(texts: Sequence[str], labels: np.ndarray, max_words: int = 10) -> WordCue:
    """The accuracy of the best union of at most ``max_words`` words, found greedily.

    For each class as the detected one, words are added one at a time, each the one
    that most raises the accuracy of "the text holds any chosen word"; the search
    stops at ``max_words`` or when no word helps. Of two equally accurate detectors
    the one with fewer words wins. On a balanced task 0.5 is chance.

    Parameters
    ----------
    texts : the samples' texts (pairs joined by a space).
    labels : binary labels (0/1), one per text.
    max_words : the size of the largest word family tried.
    """
    labels = np.asarray(labels)
    if len(texts) != len(labels) or not len(texts):
        raise ValueError(f"need as many labels as texts, got {len(labels)} and {len(texts)}")
    if not np.isin(labels, (0, 1)).all():
        raise ValueError(f"labels must be 0 or 1, got {sorted(set(labels.tolist()))}")
    token_sets = [set(_TOKEN.findall(text.lower())) for text in texts]
    vocabulary = sorted(set().union(*token_sets))
    holds = np.array([[word in tokens for word in vocabulary] for tokens in token_sets])
    best = WordCue(0.0, 1, ())
    for label in (0, 1):
        target = labels == label
        fired = np.zeros(len(texts), dtype=bool)
        accuracy, words = float(np.mean(~target)), []
        for _ in range(max_words):
            candidates = fired[:, None] | holds
            scores = (candidates == target[:, None]).mean(axis=0)
            pick = int(scores.argmax())
            if scores[pick] <= accuracy:
                break
            accuracy, fired = float(scores[pick]), candidates[:, pick]
            words.append(vocabulary[pick])
        if (accuracy, -len(words)) > (best.accuracy, -len(best.words)):
            best = WordCue(accuracy, label, tuple(words))
    return best


def _binary_tasks(name: str, frame: pd.DataFrame, seed: int) -> list[tuple[str, pd.DataFrame]]:
    spec = SYNTHETIC_SPECS[name]
    if spec.subtasks:
        return [(sub.name, subtask_split(frame, sub, seed=seed)) for sub in spec.subtasks]
    whole = Subtask("task", negative=(0,), positive=(1,), label_names=spec.label_names)
    return [("task", subtask_split(frame, whole, seed=seed))]


def suite_word_cues(n_samples: int, seed: int, max_words: int = 10) -> pd.DataFrame:
    """:func:`word_cue_accuracy` on every binary (sub)task of the synthetic suite.

    Texts are generated without label noise (it would only lower every accuracy)
    and each (sub)task is balanced as the rankings see it (``subtask_split``).

    Returns
    -------
    pandas.DataFrame
        One row per (sub)task: ``task``, ``subtask`` (``"task"`` for binary tasks),
        ``samples``, ``accuracy``, ``label`` (the detected class) and ``words``
        (space-separated).
    """
    rows = []
    for name in SYNTHETIC_TASKS:
        frame = generate_task(name, n_samples, seed, label_noise=0.0)
        for subtask, binary in _binary_tasks(name, frame, seed):
            texts = (binary["text_a"] + " " + binary["text_b"].fillna("")).tolist()
            cue = word_cue_accuracy(texts, binary["label"].to_numpy(), max_words)
            rows.append(
                {
                    "task": name,
                    "subtask": subtask,
                    "samples": len(binary),
                    "accuracy": cue.accuracy,
                    "label": cue.label,
                    "words": " ".join(cue.words),
                }
            )
    return pd.DataFrame(rows)
