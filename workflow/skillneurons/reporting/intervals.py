"""The intervals the figures draw: the findings engine's bootstrap
(:func:`skillneurons.reporting.findings.bootstrap`) at every point of a curve and every
bar, over the units the findings' claims resample, at their level ``1 - alpha``.

- :func:`point_intervals`: perturbation curves (A-F4, A-F11, A-F15, A-F7, A-F12, A-F13,
  AB-F1), trials > random orders > test samples (the curve claims' units, paper A
  §4.2);
- :func:`histogram_intervals`: the bars of the predictivity histograms (A-F3, A-F9,
  A-F10), over the prompt-tuning trials.

Paper B's bands resample what its claims do, through the claims' own statistic:
:func:`skillneurons.paper_b.tables.share_intervals` (B-F2, B-F6) and
:func:`skillneurons.paper_b.tables.forgetting_intervals` (B-F4), both with this
module's :func:`interval`.

An interval is NaN where no unit has two levels or nothing varied: a figure then draws
no band, and its caption says which unit has one level.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from skillneurons.reporting.curves import task_curves
from skillneurons.reporting.findings import BootstrapSettings, Statistic, Units, bootstrap


def interval(
    statistic: Statistic, units: Units, settings: BootstrapSettings, stream: str
) -> tuple[float, float, float]:
    """(estimate, low, high) of ``statistic`` from the engine's bootstrap; low and high
    NaN where no unit has two levels or every draw gave the same value."""
    test = bootstrap(statistic, units, settings, stream)
    if test.levels == 0 or test.degenerate:
        return test.estimate, np.nan, np.nan
    return (test.estimate, *test.interval(settings.alpha))


#: Columns of :func:`point_intervals`.
POINT_COLUMNS = ["eval_task", "order", "order_type", "rate", "estimate", "low", "high",
                 "trials", "random_orders", "samples"]  # fmt: skip


def point_units(cube: np.ndarray) -> Units:
    """The resampling units of one order's points (``cube``: bool ``[trials, repeats,
    rates, samples]``): trials > random orders > test samples, as the findings' curve
    claims resample them (one repeat: the order is not random)."""
    trials, repeats, _, samples = cube.shape
    return Units(
        runs={"trials": trials},
        draws={"random orders": repeats},
        samples={"test samples": samples},
    )


def point_intervals(frame: pd.DataFrame, settings: BootstrapSettings) -> pd.DataFrame:
    """Every point of the perturbation curves of ``frame`` (perturbation-file rows of
    one or more evaluation tasks, with their per-sample ``correct``) with its accuracy
    and interval.

    A point's accuracy is the mean over trials and random repeats of the accuracy over
    the test samples (:meth:`skillneurons.reporting.curves.TaskCurves.area`'s curve at
    one rate); its interval is :func:`interval`'s with the units of
    :func:`point_units`. Columns :data:`POINT_COLUMNS`; ``trials``, ``random_orders``
    and ``samples`` are the units' sizes.
    """
    rows = []
    for eval_task, task_rows in frame.groupby("eval_task", sort=False):
        curves = task_curves(task_rows)
        for (order_type, order), cube in curves.correct.items():
            units = point_units(cube)
            for position, rate in enumerate(curves.rates):
                scores = cube[:, :, position, :].astype(np.float64)

                def statistic(indices, scores=scores) -> float:
                    chosen = scores[np.ix_(indices["trials"], indices["random orders"],
                                           indices["test samples"])]  # fmt: skip
                    return float(chosen.mean())

                stream = f"point {eval_task} {order_type} {order} {rate:g}"
                estimate, low, high = interval(statistic, units, settings, stream)
                rows.append([eval_task, order, order_type, float(rate), estimate, low, high,
                             *cube.shape[:2], cube.shape[3]])  # fmt: skip
    return pd.DataFrame(rows, columns=POINT_COLUMNS)


def histogram_intervals(
    per_trial: Sequence[np.ndarray], bins: np.ndarray, settings: BootstrapSettings, stream: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fraction of neurons per bin of ``bins``, mean over trials (``per_trial``:
    one array of neuron scores each), with its interval over the trials per bin
    (:func:`interval`; NaN with one trial). Returns (mean, low, high), each ``[bins]``."""
    fractions = np.stack([np.histogram(v.ravel(), bins=bins)[0] / v.size for v in per_trial])
    units = Units(runs={"trials": len(per_trial)})
    points = [
        interval(
            lambda i, b=b: float(fractions[i["trials"], b].mean()),
            units,
            settings,
            f"{stream} bin {b}",
        )  # fmt: skip
        for b in range(fractions.shape[1])
    ]
    mean, low, high = (np.array(column) for column in zip(*points, strict=True))
    return mean, low, high
