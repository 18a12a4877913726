"""Label-stratified subsets of a split: the evaluation samples of the perturbation curves.

The first rows of a split are no sample of it: on a binary task they may hold 28
negatives and 12 positives, and a model collapsed to one class then scores 0.30 or
0.70 depending on the class. :func:`stratified_subset` draws ``size`` rows with the
classes as equal as the split allows (each class gets ``size // k`` rows, the first
``size % k`` classes one more; a class with fewer rows gives all of them and the
others fill the rest in turn), seeded, and keeps them in split order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


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


def stratified_subset(
    frame: pd.DataFrame, size: int | None, seed: int, label: str = "label"
) -> pd.DataFrame:
    """``size`` rows of ``frame``, label-stratified (the module docstring), in frame
    order; the whole frame when ``size`` is None or not below its length."""
    if size is None or size >= len(frame):
        return frame
    generator = np.random.default_rng(seed)
    classes = sorted(frame[label].unique())
    positions = [np.flatnonzero(frame[label].to_numpy() == c) for c in classes]
    quotas = class_quotas([len(p) for p in positions], size)
    chosen = np.concatenate(
        [generator.permutation(p)[:q] for p, q in zip(positions, quotas, strict=True)]
    )
    return frame.iloc[np.sort(chosen)]
