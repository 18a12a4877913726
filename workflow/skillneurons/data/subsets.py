"""Seeded, label-stratified subsets of a split: every subset the pipeline takes.

The first rows of a split are no sample of it: Hub copies of IMDB and DBpedia are
stored sorted by label, so their first ``N`` rows hold one class, and Eq. 3's baseline
or a test dump over them would cover one class. Every stage that keeps ``N`` rows of a
split (``activations.baseline_samples`` and ``max_samples``, ``perturbation.test_samples``,
``paper_b.attribution_samples``, ``paper_b.continual.feature_samples``,
``transfer.max_samples``, ``word_selectivity.corpus_samples``) draws them with
:func:`subset_rows` (or :func:`stratified_subset` on a split's frame), seeded from the
config's ``seed``, and keeps them in split order, so outputs stay reproducible.

Two allocations over the classes:

- ``proportional`` (estimates of a split-level quantity: Eq. 3's training mean, the
  dev/test dumps of Eqs. 4-6, relevance, Eq. 10's feature): each class gets its share
  of ``size`` (largest remainders), at least one row, so the subset mirrors the split;
- ``balanced`` (the perturbation curves' evaluation samples): each class gets
  ``size // k`` rows, the first ``size % k`` classes one more; a class with fewer rows
  gives all of them and the others fill the rest in turn. On a binary task the first
  rows may hold 28 negatives and 12 positives, and a model collapsed to one class then
  scores 0.30 or 0.70 depending on the class; balanced, it scores 0.50.

A subset that cannot hold every class of the split (``size`` below the number of
classes) raises :class:`SubsetError`, naming the split, the classes left out and the
fix. Splits without labels (generation tasks) get a seeded uniform draw.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

ALLOCATIONS = ("proportional", "balanced")


class SubsetError(ValueError):
    """A subset of a split would leave out one of its classes."""


def class_quotas(available: list[int], size: int) -> list[int]:
    """Rows to take from each class: as equal as possible, never more than a class has.

    ``available`` is the row count of each class, ``size`` the total wanted (at most
    their sum).
    """
    if size > sum(available):
        raise ValueError(
            f"a subset of {size} rows needs that many; the split has {sum(available)}"
        )
    quotas = [0] * len(available)
    left = size
    while left:
        open_classes = [c for c, n in enumerate(available) if quotas[c] < n]
        share, extra = divmod(left, len(open_classes))
        for rank, c in enumerate(open_classes):
            take = min(share + (rank < extra), available[c] - quotas[c])
            quotas[c] += take
            left -= take
    return quotas


def proportional_quotas(available: list[int], size: int) -> list[int]:
    """Rows to take from each class in proportion to its count: one row per class first
    (when ``size`` allows one for each), the rest by largest remainders (ties to the
    earlier class).

    ``available`` is the row count of each class (each at least 1), ``size`` the total
    wanted (below their sum).
    """
    total = sum(available)
    if size >= total:
        raise ValueError(f"a subset of {size} rows needs fewer; the split has {total}")
    floor = 1 if size >= len(available) else 0
    left = size - floor * len(available)
    shares = [(n - floor) * left / (total - floor * len(available)) for n in available]
    quotas = [floor + int(share) for share in shares]
    by_remainder = sorted(range(len(available)), key=lambda c: (int(shares[c]) - shares[c], c))
    for c in by_remainder[: size - sum(quotas)]:
        quotas[c] += 1
    return quotas


def subset_rows(
    labels: Sequence[int] | np.ndarray | None,
    size: int | None,
    seed: int,
    *,
    split: str = "the split",
    allocation: str = "proportional",
    length: int | None = None,
) -> np.ndarray:
    """Positions (int64, ascending: split order) of a seeded, label-stratified subset
    of ``size`` rows (the module docstring); every row when ``size`` is None or not
    below the split's length.

    Parameters
    ----------
    labels : ``[rows]`` class of every row, or None for a split without labels (then
        ``length`` gives its row count and the draw is uniform).
    size : rows wanted (>= 0), or None for all.
    seed : seed of the draw (the config's ``seed``).
    split : what the subset is of, for the error (e.g. ``"syn_sst2/train
        (activations.baseline_samples)"``).
    allocation : ``"proportional"`` or ``"balanced"``.

    Raises
    ------
    SubsetError : ``size`` leaves a class of the split without rows.
    """
    if allocation not in ALLOCATIONS:
        raise ValueError(f"subset allocation {allocation!r} is unknown; use one of {ALLOCATIONS}")
    rows = len(labels) if labels is not None else length
    if rows is None:
        raise ValueError("subset_rows needs labels or the split's length")
    if size is not None and size < 0:
        raise ValueError(f"{split}: a subset size must be >= 0 or null; got {size}")
    if size is None or size >= rows:
        return np.arange(rows, dtype=np.int64)
    generator = np.random.default_rng(seed)
    if labels is None:
        return np.sort(generator.choice(rows, size=size, replace=False)).astype(np.int64)
    values = np.asarray(labels)
    classes = np.unique(values)
    positions = [np.flatnonzero(values == c) for c in classes]
    quota = class_quotas if allocation == "balanced" else proportional_quotas
    quotas = quota([len(p) for p in positions], size)
    missing = [c.item() for c, q in zip(classes, quotas, strict=True) if q == 0]
    if missing:
        raise SubsetError(
            f"{split}: a subset of {size} rows leaves out class(es) {missing} of the "
            f"{len(classes)} classes the split holds; raise the sample count to at least "
            f"{len(classes)} (or null: every row)"
        )
    chosen = np.concatenate(
        [generator.permutation(p)[:q] for p, q in zip(positions, quotas, strict=True)]
    )
    return np.sort(chosen).astype(np.int64)


def stratified_subset(
    frame: pd.DataFrame,
    size: int | None,
    seed: int,
    label: str = "label",
    *,
    split: str = "the split",
    allocation: str = "balanced",
) -> pd.DataFrame:
    """``size`` rows of a split's ``frame`` (:func:`subset_rows` on its ``label``
    column), in frame order; the whole frame when ``size`` is None or not below its
    length."""
    if size is None or size >= len(frame):
        return frame
    rows = subset_rows(frame[label].to_numpy(), size, seed, split=split, allocation=allocation)
    return frame.iloc[rows]
