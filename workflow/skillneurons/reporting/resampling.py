"""Ranks of bootstrap resamples in linear time, and the distinct pairs of a resample.

The findings' bootstrap (:func:`skillneurons.reporting.findings.bootstrap_interval`)
resamples a thousand times, and paper A's rank-based claim (the task correlation, §4.3)
ranks the resampled scores in every draw: sorting thousands of neurons per draw made it
most of the findings rule's time. The values themselves never change between draws,
only which of them are drawn (with repeats), so the ranks follow from counting:
:class:`ResampledRanks` gives what ``scipy.stats.rankdata(values[:, chosen], axis=1)``
gives (average ranks for ties, repeats of a drawn neuron being ties), from the sorted
distinct values found once and a count of how often each is drawn: exactly the same
numbers (the tests compare them with ``rankdata`` on values with ties).
"""

from __future__ import annotations

import numpy as np


def _finite(values: np.ndarray, what: str) -> np.ndarray:
    if not np.isfinite(values).all():
        raise ValueError(f"{what} must be finite to be ranked; got NaN or infinite entries")
    return values


class ResampledRanks:
    """Average ranks, row by row, of resamples of one ``[rows, n]`` array (a 1-D array is
    one row): ``ranks(chosen)`` equals ``rankdata(values[:, chosen], axis=1)``."""

    def __init__(self, values: np.ndarray):
        array = _finite(np.atleast_2d(np.asarray(values, dtype=np.float64)), "values")
        self._groups = np.empty(array.shape, dtype=np.int64)
        offset = 0
        for row, line in enumerate(array):
            distinct, inverse = np.unique(line, return_inverse=True)
            self._groups[row] = inverse + offset
            offset += len(distinct)
        self._count = offset

    def __call__(self, chosen: np.ndarray) -> np.ndarray:
        """float64 ``[rows, len(chosen)]``: the ranks (1-based) of the values at
        ``chosen`` (column indices, repeats allowed) within each row."""
        groups = self._groups[:, chosen]
        counts = np.bincount(groups.ravel(), minlength=self._count)
        # Every row draws len(chosen) values and its groups are numbered after the
        # previous row's, so the running count ends row r's groups at r * len(chosen)
        # plus the count within the row; a group of g ties spans ranks end - g + 1 .. end.
        average = np.cumsum(counts) - (counts - 1) / 2.0
        start = len(chosen) * np.arange(groups.shape[0], dtype=np.float64)
        return average[groups] - start[:, None]


def distinct_pairs(chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of a resample of members (``chosen``: indices, repeats allowed) whose
    two members differ: every two positions ``a < b`` of the draw with ``chosen[a] !=
    chosen[b]``, as two index arrays. A claim on pairs (of tasks, of label-word draws)
    resamples the members, which replicate, and never pairs a member with itself."""
    a, b = np.triu_indices(len(chosen), k=1)
    distinct = chosen[a] != chosen[b]
    return chosen[a][distinct], chosen[b][distinct]
