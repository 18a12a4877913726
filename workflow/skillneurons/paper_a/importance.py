"""Are skill neurons task-specific? Neuronal importance and task correlation (paper A, §4.3).

- **Neuronal importance** of a source task to an evaluation task (§4.3, Figure 6): the
  area between the evaluation task's accuracy curve when neurons are perturbed in the
  source task's predictivity order and the curve in random order, over the
  perturbation rates (trapezoid rule; positive when the source order hurts more than
  random). Areas are computed per trial against that trial's random curve (the mean
  over its random orders), averaged over trials, then z-scored across source tasks
  for each evaluation task (population std, as ``scipy.stats.zscore``).
- **Task correlation** (§4.3, Figure 5; appendix E, Figure 14): Spearman's rank
  correlation between two tasks' neuron predictivities within each layer, and its
  mean over layers. Ties get average ranks. A multi-class task's score of a neuron is
  its highest predictivity over the binary subtasks (§3.2), so a neuron ranks high if
  it is a skill neuron of any subtask.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from skillneurons.neurons.perturbation.curve_table import trial_curves
from skillneurons.reporting.stats import curve_area, task_correlation, zscore

#: Columns of the neuronal-importance table (:func:`neuronal_importance`).
IMPORTANCE_COLUMNS = ("eval_task", "source_task", "area", "area_sem", "importance")


# --------------------------------------------------------------------------- areas


def curve_areas(curves: pd.DataFrame) -> pd.DataFrame:
    """Area between every non-random order's curve and the random curve, per trial.

    Parameters
    ----------
    curves : the perturbation tables of one or more evaluation tasks, with columns
        ``eval_task``, ``order``, ``order_type`` (``task``, ``random``,
        ``selectivity``), ``trial``, ``rate``, ``accuracy`` (and ``repeat``).

    Returns
    -------
    Columns ``eval_task``, ``order``, ``order_type``, ``trial``, ``area`` =
    ``integral (random - order) d rate``: how much more accuracy the order destroys.
    """
    per_trial = trial_curves(curves)
    rows = []
    for (eval_task, trial), group in per_trial.groupby(["eval_task", "trial"], sort=False):
        random = group[group["order_type"] == "random"]
        if random.empty:
            raise ValueError(f"eval task {eval_task!r}, trial {trial}: no random-order curve")
        random_accuracy = random.set_index("rate")["accuracy"]
        for (order, order_type), curve in group.groupby(["order", "order_type"], sort=False):
            if order_type == "random":
                continue
            rates = curve["rate"].to_numpy()
            if set(rates) != set(random_accuracy.index):
                raise ValueError(
                    f"eval task {eval_task!r}, trial {trial}: order {order!r} has rates "
                    f"{sorted(rates)} but the random curve has {sorted(random_accuracy.index)}"
                )
            gap = random_accuracy.loc[rates].to_numpy() - curve["accuracy"].to_numpy()
            rows.append((eval_task, order, order_type, trial, curve_area(rates, gap)))
    return pd.DataFrame(rows, columns=["eval_task", "order", "order_type", "trial", "area"])


def _mean_sem(values: np.ndarray) -> tuple[float, float]:
    values = np.asarray(values, dtype=np.float64)
    sem = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else 0.0
    return float(values.mean()), float(sem)


def neuronal_importance(curves: pd.DataFrame) -> pd.DataFrame:
    """Neuronal importance of every source task to every evaluation task (Figure 6).

    Parameters
    ----------
    curves : perturbation tables as for :func:`curve_areas`; source-task orders have
        ``order_type == "task"`` and their ``order`` is the source task's name.

    Returns
    -------
    Columns :data:`IMPORTANCE_COLUMNS`: ``area`` (mean over trials of the area between
    the source-order and random curves), ``area_sem`` (its s.e.m. over trials) and
    ``importance``, the area z-scored across the source tasks of each evaluation task.
    """
    areas = curve_areas(curves)
    areas = areas[areas["order_type"] == "task"]
    rows = []
    for eval_task, group in areas.groupby("eval_task", sort=False):
        stats = [
            (source, *_mean_sem(values["area"].to_numpy()))
            for source, values in group.groupby("order", sort=False)
        ]
        scores = zscore(np.array([mean for _, mean, _ in stats]))
        rows += [
            (eval_task, source, mean, sem, float(score))
            for (source, mean, sem), score in zip(stats, scores, strict=True)
        ]
    return pd.DataFrame(rows, columns=list(IMPORTANCE_COLUMNS))


def importance_summary(
    importance: pd.DataFrame, curves: pd.DataFrame, task_types: Mapping[str, str]
) -> pd.DataFrame:
    """Per evaluation task, the numbers behind §4.2-4.3's and appendix H's claims.

    Columns: ``eval_task``, ``type``; ``unperturbed`` (accuracy at rate 0), and at the
    largest rate ``own_accuracy`` (own predictivity order) and ``random_accuracy``;
    ``own_area`` / ``own_area_sem`` (own order vs random: > 0 when skill neurons matter
    more than random ones, Figure 4), ``selectivity_area`` / ``selectivity_area_sem``
    (selectivity-index order vs random, Figure 15); ``same_type_importance`` and
    ``cross_type_importance`` (mean z-scored importance of the *other* tasks of the
    same type and of the tasks of other types, Figure 6; NaN when there are none) and
    ``same_type_area`` / ``cross_type_area`` (the same means of raw areas).
    """
    areas = curve_areas(curves)
    per_trial = trial_curves(curves)
    rows = []
    for eval_task, group in importance.groupby("eval_task", sort=False):
        kind = task_types[eval_task]
        others = group[group["source_task"] != eval_task]
        same = others["source_task"].map(task_types) == kind
        curve = per_trial[per_trial["eval_task"] == eval_task]
        first, last = curve["rate"].min(), curve["rate"].max()
        random = curve["order_type"] == "random"
        own = (curve["order_type"] == "task") & (curve["order"] == eval_task)
        task_areas = areas[areas["eval_task"] == eval_task]
        own_area = _area_stats(task_areas[task_areas["order"] == eval_task])
        selectivity_area = _area_stats(task_areas[task_areas["order_type"] == "selectivity"])
        rows.append(
            {
                "eval_task": eval_task,
                "type": kind,
                "unperturbed": _mean_at(curve[random], first),
                "own_accuracy": _mean_at(curve[own], last),
                "random_accuracy": _mean_at(curve[random], last),
                "own_area": own_area[0],
                "own_area_sem": own_area[1],
                "selectivity_area": selectivity_area[0],
                "selectivity_area_sem": selectivity_area[1],
                "same_type_importance": _mean_or_nan(others.loc[same, "importance"]),
                "cross_type_importance": _mean_or_nan(others.loc[~same, "importance"]),
                "same_type_area": _mean_or_nan(others.loc[same, "area"]),
                "cross_type_area": _mean_or_nan(others.loc[~same, "area"]),
            }
        )
    return pd.DataFrame(rows)


def _area_stats(areas: pd.DataFrame) -> tuple[float, float]:
    """Mean and s.e.m. over trials of some areas, NaN when there are none."""
    return _mean_sem(areas["area"].to_numpy()) if len(areas) else (np.nan, np.nan)


def _mean_at(curve: pd.DataFrame, rate: float) -> float:
    return float(curve.loc[curve["rate"] == rate, "accuracy"].mean())


def _mean_or_nan(values: pd.Series) -> float:
    return float(values.mean()) if len(values) else float("nan")


# --------------------------------------------------------------------------- correlation


def correlation_table(scores: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """Per-layer Spearman correlations of every ordered pair of tasks (Figure 14).

    ``scores`` maps task -> ``[layers, neurons]`` (:meth:`Ranking.scores`), in display
    order. Returns columns ``layer`` (int64), ``task_a``, ``task_b``, ``spearman``,
    one row per layer and ordered pair (diagonal included, rho = 1).
    """
    tasks = list(scores)
    rows = []
    for i, task_a in enumerate(tasks):
        for task_b in tasks[i:]:
            per_layer, _ = task_correlation(scores[task_a], scores[task_b])
            for layer, rho in enumerate(per_layer):
                rows.append((layer, task_a, task_b, float(rho)))
                if task_b != task_a:
                    rows.append((layer, task_b, task_a, float(rho)))
    frame = pd.DataFrame(rows, columns=["layer", "task_a", "task_b", "spearman"])
    frame["task_a"] = pd.Categorical(frame["task_a"], categories=tasks)
    frame["task_b"] = pd.Categorical(frame["task_b"], categories=tasks)
    frame = frame.sort_values(["layer", "task_a", "task_b"], kind="stable")
    return frame.astype({"task_a": str, "task_b": str}).reset_index(drop=True)


def mean_correlation(table: pd.DataFrame) -> pd.DataFrame:
    """Figure 5's matrix from :func:`correlation_table`: the mean over layers of each
    pair's rho (NaN layers skipped), rows ``task`` and one column per task."""
    tasks = list(dict.fromkeys(table["task_a"]))
    matrix = table.pivot_table(index="task_a", columns="task_b", values="spearman", aggfunc="mean")
    matrix = matrix.loc[tasks, tasks]
    matrix.index.name, matrix.columns.name = "task", None
    return matrix.reset_index()
