"""The intervals paper A's figures and AB-F1 draw, and the one interval paper B's bands
use: the findings engine's bootstrap at every point and bar.

Each is :func:`skillneurons.reporting.findings.bootstrap` at every point of a curve and
every bar, over the units the findings' claims resample, at their level ``1 - alpha``.

- :func:`point_intervals`: perturbation curves (A-F4, A-F11, A-F15, A-F7, A-F12, A-F13,
  AB-F1), trials > random orders > test samples (the curve claims' units, paper A
  §4.2);
- :func:`histogram_intervals`: the bars of the predictivity histograms (A-F3, A-F9,
  A-F10), over the prompt-tuning trials;
- :func:`importance_intervals`: the cells of the neuronal-importance heatmaps (A-F6,
  A-F8), trials > random orders > test samples (the importance claim's units, paper A
  §4.3).

Paper B's bands resample what its claims do, through the claims' own statistic:
:func:`skillneurons.paper_b.generalization_report.share_intervals` (B-F2, B-F6),
:func:`skillneurons.paper_b.continual_report.forgetting_intervals` (B-F4),
:func:`skillneurons.paper_b.neuron_effects.effect_intervals` (B-F5's cells) and
:func:`skillneurons.paper_b.similarity_report.layer_similarity_intervals` (B-F3), all
with this module's :func:`interval`.

A heatmap's cells come as :data:`CELL_COLUMNS`, with the units each cell's interval
resampled; :func:`interval_note` says them under the figure.

An interval is NaN where no unit has two levels or nothing varied: a figure then draws
no band, and its caption says which unit has one level.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.reporting.curves import TaskCurves, task_curves
from skillneurons.reporting.findings import BootstrapSettings, Statistic, Units, bootstrap
from skillneurons.reporting.stats import zscore


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


#: Columns of a heatmap's cell intervals: the cell (``row``, ``column``: the figure's
#: row and column keys), its value, interval and the units resampled
#: (:meth:`skillneurons.reporting.findings.Units.describe`).
CELL_COLUMNS = ["row", "column", "estimate", "low", "high", "resampled"]
#: Paper A's random curve of the neuronal importance (§4.3): the uniform random order.
UNIFORM = ("random", "random")


def importance_units(curves: TaskCurves) -> Units:
    """The units of one evaluation task's importance cells: trials > the uniform random
    orders (those the importance is measured against) > its test samples."""
    return Units(
        runs={"trials": curves.trials},
        draws={"random orders": curves.correct[UNIFORM].shape[1]},
        samples={"test samples": curves.samples},
    )


def importance_intervals(
    curve_sets: Sequence[pd.DataFrame], settings: BootstrapSettings
) -> pd.DataFrame:
    """The cells of the neuronal-importance heatmap (paper A, §4.3, Figure 6; Figure 8
    over several tuning methods) with their intervals.

    ``curve_sets`` are perturbation-file rows of the same evaluation tasks, one set
    per tuning method (A-F6: one, the prompt-tuned model's). Cell (evaluation task,
    source task) is the z-score, across the source tasks, of the area between the
    uniform random curve and the source order's curve (trapezoid over the rates),
    averaged over the sets: :func:`skillneurons.paper_a.importance.neuronal_importance`'s
    ``importance`` (one set) or :func:`skillneurons.paper_a.tuning_methods.
    average_importance`'s (several). Its interval is :func:`interval`'s, the areas and
    z-scores recomputed in every draw, over the units of the importance claim
    (:func:`importance_units`; crossed over the sets: the same trial index, random order
    and test samples in each). Columns :data:`CELL_COLUMNS` (row: evaluation task,
    column: source task)."""
    per_set = [
        {task: task_curves(rows) for task, rows in frame.groupby("eval_task", sort=False)}
        for frame in curve_sets
    ]
    cells = []
    for eval_task in per_set[0]:
        curves = [tasks[eval_task] for tasks in per_set]
        sources = [order for kind, order in curves[0].correct if kind == "task"]
        if UNIFORM not in curves[0].correct:
            raise ValueError(f"eval task {eval_task!r}: no uniform random-order curve")
        units = importance_units(curves[0])
        for other in curves[1:]:
            if (
                importance_units(other) != units
                or other.correct.keys() != curves[0].correct.keys()
            ):
                raise ValueError(
                    f"eval task {eval_task!r}: the tuning methods' perturbation files differ "
                    "in trials, random orders, test samples or orders; their importance "
                    "cannot be resampled together"
                )

        def zscores(indices: Mapping[str, np.ndarray], curves=curves, task=eval_task,
                    sources=sources) -> np.ndarray:  # fmt: skip
            named = {**indices, f"{task}: test samples": indices["test samples"]}
            return np.mean(
                [
                    zscore(
                        [
                            c.area(UNIFORM, named, task) - c.area(("task", source), named, task)
                            for source in sources
                        ]
                    )  # fmt: skip
                    for c in curves
                ],
                axis=0,
            )

        for position, source in enumerate(sources):
            stream = f"importance {eval_task} {source}"
            estimate, low, high = interval(
                lambda i, p=position, z=zscores: float(z(i)[p]), units, settings, stream
            )
            cells.append([eval_task, source, estimate, low, high, units.describe()])
    return pd.DataFrame(cells, columns=CELL_COLUMNS)


def interval_note(
    cells: pd.DataFrame, settings: BootstrapSettings, shown: str = "[low, high]", marked: str = ""
) -> str:
    """The line under a figure that says what its intervals are: how they are ``shown``
    ("[low, high]", "bands"), their level, the bootstrap's resamples, the units
    resampled with their counts (``cells``' ``resampled``, each distinct description
    once; a unit of one level is marked "not resampled") and, where given, what a dot
    marks (``marked``, e.g. "interval excludes 0")."""
    units = "; ".join(dict.fromkeys(cells["resampled"]))
    level = f"{100 * (1 - settings.alpha):g}%"
    note = f"{shown}: {level} bootstrap interval ({settings.resamples} resamples) over {units}."
    return f"{note} \u2022: {marked}." if marked else note
