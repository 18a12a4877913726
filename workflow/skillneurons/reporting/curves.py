"""Per-sample perturbation curves for the findings engine's paired bootstrap.

A perturbation file (:mod:`skillneurons.neurons.perturbation.curve_table`; written by
:func:`skillneurons.neurons.perturbation.files.write_perturbation_file`, and the A-vs-B
curves of paper B) keeps, for every order, rate, trial and random repeat, which test
samples were right. :class:`TaskCurves` holds one evaluation task's results as bool
arrays (:func:`~skillneurons.neurons.perturbation.curve_table.sample_correctness`), so
that a claim's statistic can recompute curve areas on resampled test samples, trials
and random orders.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from skillneurons.neurons.perturbation.curve_table import sample_correctness
from skillneurons.reporting.stats import curve_area

#: Half the paper's central effect, read off Figure 4: on Tweet the own order's accuracy
#: lies about 0.2 below the random order's on average over the rates 0-0.2, an area of
#: 0.04 (the rates of the default span the same 0-0.2).
AREA_MARGIN = 0.02
AREA_BASIS = (
    "half the paper's effect (Figure 4: about 0.2 accuracy below random over rates "
    "0-0.2, an area of 0.04, read off the figure)"
)


@dataclass(frozen=True)
class TaskCurves:
    """One evaluation task's per-sample perturbation results.

    ``correct[(order_type, order)]`` is bool ``[trials, repeats, rates, samples]`` (one
    repeat for non-random orders); ``rates`` are sorted.
    """

    rates: np.ndarray
    correct: Mapping[tuple[str, str], np.ndarray]

    @property
    def samples(self) -> int:
        return next(iter(self.correct.values())).shape[-1]

    @property
    def trials(self) -> int:
        return next(iter(self.correct.values())).shape[0]

    @property
    def repeats(self) -> int:
        return max(array.shape[1] for array in self.correct.values())

    def largest_change(self) -> float:
        """The largest absolute change of mean accuracy (over trials, random orders and
        samples) from the unperturbed accuracy, at any rate and in any order: how far
        the perturbation moved the curves at all."""
        unperturbed = [array[:, :, 0].mean() for array in self.correct.values()]
        return float(
            max(
                np.abs(array.mean(axis=(0, 1, 3)) - base).max()
                for array, base in zip(self.correct.values(), unperturbed, strict=True)
            )
        )

    def area(self, key: tuple[str, str], indices: Mapping[str, np.ndarray], task: str) -> float:
        """Mean over the resampled trials of the area under the curve of ``key``,
        accuracy over the resampled samples, random repeats resampled and averaged."""
        array = self.correct[key][indices["trials"]]
        if array.shape[1] > 1:
            array = array[:, indices["random orders"] % array.shape[1]]
        accuracy = array[..., indices[f"{task}: test samples"]].mean(axis=(1, 3))
        return float(np.mean(curve_area(self.rates, accuracy)))


def task_curves(frame: pd.DataFrame) -> TaskCurves:
    """:class:`TaskCurves` of one evaluation task's perturbation file (its rows)."""
    return TaskCurves(*sample_correctness(frame))
