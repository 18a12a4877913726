"""ROUGE-L F1, paper B's score of generation tasks (§5, Table 3), from ``rouge-score``.

ROUGE-L compares the longest common subsequence (LCS) of a prediction's and a
reference's tokens: precision LCS / |prediction|, recall LCS / |reference|, F1 their
harmonic mean. Paper B does not say how it tokenizes; we use the package's default
tokenizer (lowercase, non-alphanumerics dropped) without stemming
(``../shared/paper-b-spec.md``, ambiguity 23; ``paper_b.generation.rouge_stemmer``
turns on Porter stemming, the setting of many summarization papers), and report the
mean F1 over samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
from rouge_score import rouge_scorer


@cache
def _scorer(stemmer: bool) -> rouge_scorer.RougeScorer:
    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=stemmer)


def rouge_l_f1(
    predictions: Sequence[str], references: Sequence[str], *, stemmer: bool = False
) -> np.ndarray:
    """Per-sample ROUGE-L F1 of ``predictions`` against ``references`` (same order),
    tokens Porter-stemmed first when ``stemmer``."""
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    scorer = _scorer(stemmer)
    return np.array(
        [
            scorer.score(reference, prediction)["rougeL"].fmeasure
            for prediction, reference in zip(predictions, references, strict=True)
        ],
        dtype=float,
    )
