"""The verbalizer's label words of a task, free of torch so the Snakefile loads fast.

:mod:`skillneurons.models.verbalizer` scores these words with a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skillneurons.data.tasks import TaskSpec

#: Paper A's label words (appendix B), by number of labels.
DEFAULT_LABEL_WORDS = {
    2: ("Negative", "Positive"),
    3: ("Negative", "Neutral", "Positive"),
}


def task_label_words(spec: TaskSpec, configured: Sequence[str] | None = None) -> tuple[str, ...]:
    """A task's label words: ``configured`` (config ``label_words.<task>``), else the
    task's own (built-in tasks of more than three classes), else paper A's.
    Raises ``ValueError`` naming the config key when none of them applies."""
    words = configured or spec.label_words
    if words:
        return tuple(words)
    if spec.num_labels not in DEFAULT_LABEL_WORDS:
        raise ValueError(
            f"task {spec.name!r} has {spec.num_labels} labels {list(spec.label_names)} and "
            f"paper A's label words cover 2 or 3: set config key 'label_words.{spec.name}' "
            "to one word per label"
        )
    return DEFAULT_LABEL_WORDS[spec.num_labels]
