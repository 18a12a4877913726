"""Figures of paper A's §4.2-4.3 and appendices D, E, H, drawn from tables.

- :func:`perturbation_curves_figure`: accuracy vs perturbation rate, one panel per
  evaluation task, mean ± s.e.m. over trials (Figures 4, 11, 15; also 12, 13);
- :func:`importance_heatmap`: z-scored neuronal importance (Figure 6; also 8);
- :func:`correlation_heatmap` and :func:`layer_correlation_figure`: Spearman
  correlations of predictivity orders, tasks grouped by type (Figures 5 and 14).

Every function takes tables and returns a matplotlib figure; nothing is computed from
model outputs here. Save with :func:`skillneurons.reporting.figures.save_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from skillneurons.paper_a.importance import trial_curves

RANDOM_COLOR = "tab:gray"


def _grid(panels: int, width: float = 3.2, height: float = 2.6, columns: int = 4):
    columns = max(1, min(columns, panels))
    rows = int(np.ceil(panels / columns))
    figure, axes = plt.subplots(
        rows, columns, figsize=(width * columns, height * rows), squeeze=False
    )
    for axis in axes.ravel()[panels:]:
        axis.set_visible(False)
    return figure, axes.ravel()


def curve_statistics(curves: pd.DataFrame) -> pd.DataFrame:
    """Mean and s.e.m. over trials of every (eval_task, order, rate) accuracy.

    Random orders are first averaged over their repeats within a trial. Columns
    eval_task, order, order_type, rate, mean, sem, trials.
    """
    per_trial = trial_curves(curves)
    keys = ["eval_task", "order", "order_type", "rate"]
    grouped = per_trial.groupby(keys, sort=False)["accuracy"]
    stats = grouped.agg(mean="mean", std=lambda x: x.std(ddof=1), trials="count").reset_index()
    stats["sem"] = (stats["std"] / np.sqrt(stats["trials"])).where(stats["trials"] > 1, 0.0)
    return stats.drop(columns="std")


def perturbation_curves_figure(
    curves: pd.DataFrame,
    eval_tasks: Sequence[str],
    labels: Mapping[str, str] | None = None,
    title: str = "",
) -> plt.Figure:
    """Accuracy vs perturbation rate per evaluation task, error bars ± 1 s.e.m.

    Parameters
    ----------
    curves : perturbation tables (columns eval_task, order, order_type, trial, rate,
        accuracy and optionally repeat).
    eval_tasks : one panel each, in this order.
    labels : order -> legend label, and which orders to draw (default: all, random
        last, labelled by their name).
    title : the figure title.
    """
    stats = curve_statistics(curves)
    figure, axes = _grid(len(eval_tasks))
    colors = plt.get_cmap("tab10").colors
    for axis, eval_task in zip(axes, eval_tasks, strict=False):
        panel = stats[stats["eval_task"] == eval_task]
        names = list(labels) if labels else _default_orders(panel)
        for index, order in enumerate(names):
            line = panel[panel["order"] == order].sort_values("rate")
            if line.empty:
                continue
            is_random = line["order_type"].iloc[0] == "random"
            axis.errorbar(
                line["rate"],
                line["mean"],
                yerr=line["sem"],
                label=(labels or {}).get(order, order),
                color=RANDOM_COLOR if is_random else colors[index % len(colors)],
                linestyle="--" if is_random else "-",
                linewidth=2.0 if order == eval_task else 1.2,
                marker="o",
                markersize=2.5,
                capsize=2,
            )
        axis.set_title(f"on {eval_task}", fontsize=9)
        axis.tick_params(labelsize=7)
        axis.set_xlabel("perturbation rate", fontsize=8)
        axis.set_ylabel("accuracy", fontsize=8)
        axis.legend(fontsize=6)
    if title:
        figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure


def _default_orders(panel: pd.DataFrame) -> list[str]:
    orders = panel[["order", "order_type"]].drop_duplicates()
    first = orders.loc[orders["order_type"] != "random", "order"].tolist()
    return first + orders.loc[orders["order_type"] == "random", "order"].tolist()


def _annotated_heatmap(axis, matrix: np.ndarray, rows, columns, fmt: str, **style):
    image = axis.imshow(matrix, **style)
    axis.set_xticks(range(len(columns)), columns, rotation=45, ha="right", fontsize=7)
    axis.set_yticks(range(len(rows)), rows, fontsize=7)
    for (i, j), value in np.ndenumerate(matrix):
        if np.isfinite(value):
            red, green, blue, _ = image.cmap(image.norm(value))
            dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
            color = "white" if dark else "black"
            axis.text(j, i, format(value, fmt), ha="center", va="center", fontsize=6, color=color)
    return image


def _type_boundaries(axis, tasks: Sequence[str], task_types: Mapping[str, str]) -> None:
    """Lines between groups of tasks of one type (tasks are given grouped)."""
    kinds = [task_types[task] for task in tasks]
    for index in range(1, len(kinds)):
        if kinds[index] != kinds[index - 1]:
            axis.axhline(index - 0.5, color="black", linewidth=1)
            axis.axvline(index - 0.5, color="black", linewidth=1)


def group_by_type(tasks: Sequence[str], task_types: Mapping[str, str]) -> list[str]:
    """``tasks`` reordered so that tasks of one type are adjacent (first-seen type order)."""
    kinds = list(dict.fromkeys(task_types[task] for task in tasks))
    return sorted(tasks, key=lambda task: kinds.index(task_types[task]))


def importance_heatmap(
    importance: pd.DataFrame, task_types: Mapping[str, str], title: str = ""
) -> plt.Figure:
    """Figure 6: z-scored neuronal importance, rows = evaluation task, columns = source
    task, tasks grouped by type, each cell annotated.

    ``importance`` has columns eval_task, source_task, importance.
    """
    tasks = group_by_type(list(dict.fromkeys(importance["eval_task"])), task_types)
    sources = [task for task in tasks if task in set(importance["source_task"])]
    matrix = importance.pivot(index="eval_task", columns="source_task", values="importance")
    matrix = matrix.reindex(index=tasks, columns=sources).to_numpy(dtype=np.float64)
    size = 0.55 * max(len(tasks), 4) + 1.5
    figure, axis = plt.subplots(figsize=(size + 1, size))
    limit = np.nanmax(np.abs(matrix)) if np.isfinite(matrix).any() else 1.0
    image = _annotated_heatmap(
        axis, matrix, tasks, sources, ".2f", cmap="RdBu_r", vmin=-limit, vmax=limit
    )
    _type_boundaries(axis, tasks, task_types)
    axis.set_xlabel("source task (perturbation order)", fontsize=8)
    axis.set_ylabel("evaluation task", fontsize=8)
    figure.colorbar(image, ax=axis, shrink=0.8, label="importance (z-score)")
    axis.set_title(title, fontsize=9)
    figure.tight_layout()
    return figure


def _correlation_matrix(table: pd.DataFrame, tasks: Sequence[str]) -> np.ndarray:
    matrix = table.pivot_table(index="task_a", columns="task_b", values="spearman")
    return matrix.reindex(index=tasks, columns=tasks).to_numpy(dtype=np.float64)


def correlation_heatmap(
    table: pd.DataFrame, task_types: Mapping[str, str], title: str = ""
) -> plt.Figure:
    """Figure 5: Spearman correlation of predictivity orders averaged over layers.

    ``table`` is the per-layer table (columns layer, task_a, task_b, spearman); the
    mean over layers is drawn, tasks grouped by type and annotated.
    """
    tasks = group_by_type(list(dict.fromkeys(table["task_a"])), task_types)
    size = 0.55 * max(len(tasks), 4) + 1.5
    figure, axis = plt.subplots(figsize=(size + 1, size))
    image = _annotated_heatmap(
        axis, _correlation_matrix(table, tasks), tasks, tasks, ".2f", cmap="viridis"
    )
    _type_boundaries(axis, tasks, task_types)
    figure.colorbar(image, ax=axis, shrink=0.8, label="Spearman's rho")
    axis.set_title(title, fontsize=9)
    figure.tight_layout()
    return figure


def layer_correlation_figure(
    table: pd.DataFrame, task_types: Mapping[str, str], title: str = ""
) -> plt.Figure:
    """Figure 14: one correlation heatmap per layer (layer 1 = bottom), shared colour
    scale, tasks grouped by type and annotated."""
    tasks = group_by_type(list(dict.fromkeys(table["task_a"])), task_types)
    layers = sorted(table["layer"].unique())
    matrices = [_correlation_matrix(table[table["layer"] == layer], tasks) for layer in layers]
    off_diagonal = [m[~np.eye(len(tasks), dtype=bool)] for m in matrices]
    values = np.concatenate(off_diagonal) if len(tasks) > 1 else np.array([1.0])
    low = np.nanmin(values) if np.isfinite(values).any() else 0.0
    side = 0.45 * max(len(tasks), 4) + 1.2
    figure, axes = _grid(len(layers), width=side, height=side, columns=4)
    for axis, layer, matrix in zip(axes, layers, matrices, strict=False):
        image = _annotated_heatmap(
            axis, matrix, tasks, tasks, ".2f", cmap="viridis", vmin=min(low, 0.0), vmax=1.0
        )
        _type_boundaries(axis, tasks, task_types)
        axis.set_title(f"layer {int(layer) + 1}", fontsize=9)
    figure.colorbar(image, ax=list(axes[: len(layers)]), shrink=0.6, label="Spearman's rho")
    if title:
        figure.suptitle(title, fontsize=10)
    return figure
