"""Paper A's default label words (appendix B), free of torch so the Snakefile loads fast.

:mod:`skillneurons.models.verbalizer` scores these words with a model.
"""

from __future__ import annotations

DEFAULT_LABEL_WORDS = {
    2: ("Negative", "Positive"),
    3: ("Negative", "Neutral", "Positive"),
}


def default_label_words(num_labels: int) -> tuple[str, ...]:
    """Paper A's label words for a task with ``num_labels`` labels."""
    if num_labels not in DEFAULT_LABEL_WORDS:
        raise ValueError(
            f"no default label words for {num_labels} labels; set label_words for the task"
        )
    return DEFAULT_LABEL_WORDS[num_labels]
