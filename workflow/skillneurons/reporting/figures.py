"""Every figure of both papers (A-F*, B-F*, AB-F1), drawn from tables and arrays (nothing
here computes results).

Each function takes tables (pandas) or arrays that a library function computed and
returns a matplotlib figure; :func:`save_figure` writes it as PNG and PDF atomically.
File names carry the paper's IDs (``A-F1``, ``A-F3_F9`` ...). Paper A:

- :func:`activation_histogram`, :func:`subtask_scatter`, :func:`predictivity_histograms`
  (Figures 1, 2, 3/9 and 10);
- :func:`perturbation_curves_figure`: accuracy vs perturbation rate, one panel per
  evaluation task, mean ± s.e.m. over trials (Figures 4, 11, 15; also 7, 12, 13);
- :func:`importance_heatmap`: z-scored neuronal importance (Figure 6; also 8);
- :func:`correlation_heatmap` and :func:`layer_correlation_figure`: Spearman
  correlations of predictivity orders, tasks grouped by type (Figures 5 and 14);
- :func:`transfer_scatter`: transfer accuracy against the overlap of activated
  neurons (§6.2).

Every figure follows :mod:`skillneurons.reporting.style`: Okabe-Ito colours, one colour
per method, order kind and paper across figures, legends outside the panels, panels
sized for their content and small multiples sharing axes. Comparison figures draw the
findings engine's intervals: bands around curves (:func:`perturbation_curves_figure`,
:func:`proportion_figure`, :func:`forgetting_figure`), whiskers on bars
(:func:`predictivity_histograms`); a correlation heatmap leaves its diagonal (1 by
definition) out of the colour scale. The labels paper B's figures draw for its keys
(B-F2/B-F6's series, B-F3's similarity definitions) come with the call, from paper B's
tables (:data:`skillneurons.paper_b.generalization_report.PROPORTION_SERIES`,
:data:`skillneurons.paper_b.similarity_definitions.DEFINITIONS`): this layer imports
neither paper.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from skillneurons.infra.io import atomic_path  # noqa: E402
from skillneurons.neurons.perturbation.curve_table import RANDOM_TYPES  # noqa: E402
from skillneurons.reporting.style import (  # noqa: E402
    BAND_ALPHA,
    GREY,
    KEY_COLORS,
    PALETTE,
    TICK_SIZE,
    footnote,
    grid,
    label,
    legend_outside,
    note_lines,
    outer_labels,
    series_colors,
    suptitle,
)

#: Per format, metadata that would make two saves of one figure differ: a PDF records
#: its creation date unless told not to.
DETERMINISTIC_METADATA = {"png": None, "pdf": {"CreationDate": None}}


def save_figure(figure: plt.Figure, png: str, pdf: str) -> None:
    """Write ``figure`` to ``png`` and ``pdf`` atomically and close it; the same figure
    gives the same bytes every time (no creation date in the PDF)."""
    for path, fmt in ((png, "png"), (pdf, "pdf")):
        with atomic_path(path) as tmp:
            figure.savefig(
                tmp,
                format=fmt,
                dpi=150,
                bbox_inches="tight",
                metadata=DETERMINISTIC_METADATA[fmt],
            )
    plt.close(figure)


def activation_histogram(
    values: pd.DataFrame, baseline: float, label_names: Sequence[str], title: str
) -> plt.Figure:
    """Figure 1: one neuron's activation on dev samples, by label, with its baseline.

    ``values`` has columns ``label`` and ``activation``.
    """
    figure, axis = plt.subplots(figsize=(5, 3.4), layout="constrained")
    bins = np.histogram_bin_edges(values["activation"], bins=30)
    for index, name in enumerate(label_names):
        chosen = values.loc[values["label"] == index, "activation"]
        axis.hist(chosen, bins=bins, alpha=0.6, color=PALETTE[index % len(PALETTE)],
                  label=f"{name} ({len(chosen)})")  # fmt: skip
    axis.axvline(baseline, color="black", linestyle="--", linewidth=1, label="baseline $a_{bsl}$")
    label(axis, "activation", "dev samples", title)
    legend_outside(figure, [axis], columns=len(label_names) + 1)
    return figure


def subtask_scatter(
    values: pd.DataFrame,
    baselines: tuple[float, float],
    label_names: Sequence[str],
    axis_labels: tuple[str, str],
    title: str,
) -> plt.Figure:
    """Figure 2: the top neurons of two subtasks, one point per dev sample by label.

    ``values`` has columns ``label``, ``x`` and ``y``; dashed lines mark the baselines.
    """
    figure, axis = plt.subplots(figsize=(4.6, 4.6), layout="constrained")
    for index, name in enumerate(label_names):
        chosen = values[values["label"] == index]
        axis.scatter(chosen["x"], chosen["y"], s=8, alpha=0.6,
                     color=PALETTE[index % len(PALETTE)], label=name)  # fmt: skip
    axis.axvline(baselines[0], color=GREY, linestyle="--", linewidth=1)
    axis.axhline(baselines[1], color=GREY, linestyle="--", linewidth=1)
    label(axis, axis_labels[0], axis_labels[1], title)
    legend_outside(figure, [axis], columns=len(label_names))
    return figure


def predictivity_histograms(
    panels: Mapping[str, Mapping[str, Sequence[np.ndarray]]],
    series: Mapping[str, str],
    title: str,
    whiskers: Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    bins: np.ndarray,
) -> plt.Figure:
    """Figures 3, 9 and 10: distributions of neuron predictivity, one panel per task
    (small multiples sharing both axes).

    ``panels`` maps a panel title to ``{series key: per-trial [layers, neurons]
    arrays}``; ``series`` maps the keys to draw to their legend labels. The first
    series is drawn as bars over ``bins``, with whiskers from ``whiskers`` (panel ->
    (mean, low, high) per bin: :func:`skillneurons.reporting.intervals.
    histogram_intervals`; none where NaN), the others as lines of their trial mean.
    """
    centers = (bins[:-1] + bins[1:]) / 2
    colors = series_colors(list(series))
    figure, axes = grid(len(panels), width=3.0, height=2.3, sharex=True, sharey=True)
    for axis, (name, arrays) in zip(axes, panels.items(), strict=False):
        for position, (key, text) in enumerate(series.items()):
            if position == 0:
                mean, low, high = whiskers[name]
                axis.bar(centers, mean, width=bins[1] - bins[0], color=colors[key], alpha=0.7,
                         label=text)  # fmt: skip
                shown = np.isfinite(low) & np.isfinite(high)
                axis.errorbar(centers[shown], mean[shown],
                              yerr=[mean[shown] - low[shown], high[shown] - mean[shown]],
                              fmt="none", ecolor="black", elinewidth=0.8, capsize=1.5)  # fmt: skip
            else:
                fractions = [np.histogram(v.ravel(), bins=bins)[0] / v.size for v in arrays[key]]
                axis.plot(centers, np.mean(fractions, axis=0), color=colors[key],
                          linewidth=1.2, label=text)  # fmt: skip
        label(axis, panel_title=name)
    outer_labels(axes, len(panels), "predictivity", "fraction of neurons")
    legend_outside(figure, axes, columns=len(series))
    suptitle(figure, title)
    return figure


def _curve_color(order: str, order_type: str, colors: Mapping[str, str]) -> str:
    """An order's colour: its own fixed one (AB-F1's papers), a random type's, else the
    figure's colour of that source task."""
    if order in KEY_COLORS:
        return KEY_COLORS[order]
    if order_type in RANDOM_TYPES:
        return KEY_COLORS[order_type]
    return colors[order]


def perturbation_curves_figure(
    points: pd.DataFrame,
    eval_tasks: Sequence[str],
    labels: Mapping[str, str] | None = None,
    title: str = "",
    xlabel: str = "perturbation rate",
) -> plt.Figure:
    """Accuracy vs perturbation rate per evaluation task (small multiples sharing both
    axes), each curve with its interval as a band.

    Parameters
    ----------
    points : :func:`skillneurons.reporting.intervals.point_intervals` of the
        perturbation files (columns eval_task, order, order_type, rate, estimate, low,
        high); a point with NaN ``low``/``high`` gets no band.
    eval_tasks : one panel each, in this order.
    labels : order -> legend label, and which orders to draw (default: all, random
        last, labelled by their name).
    title : the figure title.
    xlabel : the x axis label.

    Colours follow :mod:`skillneurons.reporting.style`: one per source task across the
    panels, the random types grey (uniform) and black (layer-matched), AB-F1's papers
    their fixed colours; random orders dashed; the evaluated task's own order thicker.
    One legend below the panels.
    """
    names = list(labels) if labels else _default_orders(points)
    random = set(points.loc[points["order_type"].isin(RANDOM_TYPES), "order"])
    colors = series_colors([n for n in names if n not in KEY_COLORS and n not in random])
    figure, axes = grid(len(eval_tasks), width=3.0, height=2.4, sharex=True, sharey=True,
                        legend_rows=-(-len(names) // 4))  # fmt: skip
    for axis, eval_task in zip(axes, eval_tasks, strict=False):
        panel = points[points["eval_task"] == eval_task]
        for order in names:
            line = panel[panel["order"] == order].sort_values("rate")
            if line.empty:
                continue
            order_type = line["order_type"].iloc[0]
            color = _curve_color(order, order_type, colors)
            axis.plot(
                line["rate"],
                line["estimate"],
                label=(labels or {}).get(order, order),
                color=color,
                linestyle="--" if order_type in RANDOM_TYPES else "-",
                linewidth=2.0 if order == eval_task else 1.2,
                marker="o",
                markersize=2.5,
            )
            shown = line["low"].notna() & line["high"].notna()
            axis.fill_between(line.loc[shown, "rate"], line.loc[shown, "low"],
                              line.loc[shown, "high"], color=color, alpha=BAND_ALPHA,
                              linewidth=0)  # fmt: skip
        axis.locator_params(axis="x", nbins=4)
        label(axis, panel_title=f"on {eval_task}")
    outer_labels(axes, len(eval_tasks), xlabel, "accuracy")
    legend_outside(figure, axes, columns=4)
    suptitle(figure, title)
    return figure


def _default_orders(panel: pd.DataFrame) -> list[str]:
    orders = panel[["order", "order_type"]].drop_duplicates()
    random = orders["order_type"].isin(RANDOM_TYPES)
    return orders.loc[~random, "order"].tolist() + orders.loc[random, "order"].tolist()


#: The largest heatmap side (rows, columns) whose cells read their interval as text.
INTERVAL_TEXT_CELLS = 8


def _cell_text(value: float, low: float, high: float, fmt: str, bounded: bool) -> str:
    if bounded and np.isfinite(low) and np.isfinite(high):
        return f"{value:{fmt}}\n[{low:{fmt}}, {high:{fmt}}]"
    return format(value, fmt)


def _annotated_heatmap(axis, matrix: np.ndarray, rows, columns, fmt: str, cmap: str,
                       bounds: tuple[np.ndarray, np.ndarray] | None = None, **style):  # fmt: skip
    """``matrix`` as an image with every finite cell annotated; NaN cells light grey
    (a masked diagonal: annotated with ``diagonal`` where given in ``style``).

    ``bounds``: each cell's interval (low, high matrices; NaN: none). A cell whose
    interval excludes 0 gets a dot in its upper right corner, and on a matrix of at most
    :data:`INTERVAL_TEXT_CELLS` rows and columns every cell reads ``value\n[low, high]``.
    """
    diagonal = style.pop("diagonal", None)
    colormap = matplotlib.colormaps[cmap].with_extremes(bad="#eeeeee")
    image = axis.imshow(matrix, cmap=colormap, **style)
    axis.set_xticks(range(len(columns)), columns, rotation=45, ha="right", fontsize=TICK_SIZE)
    axis.set_yticks(range(len(rows)), rows, fontsize=TICK_SIZE)
    low, high = bounds if bounds is not None else (np.full_like(matrix, np.nan),) * 2
    as_text = bounds is not None and max(matrix.shape) <= INTERVAL_TEXT_CELLS
    for (i, j), value in np.ndenumerate(matrix):
        if np.isfinite(value):
            red, green, blue, _ = image.cmap(image.norm(value))
            dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
            color = "white" if dark else "black"
            text = _cell_text(value, low[i, j], high[i, j], fmt, as_text)
            axis.text(j, i, text, ha="center", va="center", fontsize=6 if not as_text else 5.5,
                      color=color, linespacing=1.1)  # fmt: skip
            if low[i, j] > 0 or high[i, j] < 0:
                axis.plot(j + 0.36, i - 0.36, marker="o", markersize=2.2, color=color,
                          linestyle="none")  # fmt: skip
        elif i == j and diagonal is not None:
            axis.text(j, i, diagonal, ha="center", va="center", fontsize=6, color=GREY)
    return image


def cell_bounds(
    cells: pd.DataFrame | None, rows: Sequence[str], columns: Sequence[str]
) -> tuple[np.ndarray, np.ndarray] | None:
    """The (low, high) matrices of a heatmap's cell intervals (``cells``:
    :data:`skillneurons.reporting.intervals.CELL_COLUMNS`; NaN where a cell has none),
    rows and columns in the figure's order; None without ``cells``."""
    if cells is None:
        return None
    return tuple(
        cells.pivot(index="row", columns="column", values=edge)
        .reindex(index=list(rows), columns=list(columns))
        .to_numpy(dtype=np.float64)
        for edge in ("low", "high")
    )


def _cell_side(intervals: bool) -> float:
    """A heatmap cell's side (inches); with ``intervals``, room for their line of text."""
    return 0.85 if intervals else 0.5


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


def _square(tasks: int, cell: float = 0.5) -> float:
    """The side (inches) of a heatmap of ``tasks`` rows of ``cell`` inches."""
    return cell * max(tasks, 4) + 1.3


def importance_heatmap(
    importance: pd.DataFrame,
    task_types: Mapping[str, str],
    title: str = "",
    intervals: pd.DataFrame | None = None,
    note: str = "",
) -> plt.Figure:
    """Figure 6 (also 8): z-scored neuronal importance, rows = evaluation task, columns
    = source task, tasks grouped by type, each cell annotated; a diverging scale
    centred at 0.

    ``importance`` has columns eval_task, source_task, importance; ``intervals`` the
    cells' intervals (:func:`skillneurons.reporting.intervals.importance_intervals`:
    row the evaluation task, column the source), drawn as :func:`_annotated_heatmap`
    draws ``bounds``; ``note`` goes under the figure (the intervals' units:
    :func:`skillneurons.reporting.intervals.interval_note`).
    """
    tasks = group_by_type(list(dict.fromkeys(importance["eval_task"])), task_types)
    sources = [task for task in tasks if task in set(importance["source_task"])]
    matrix = importance.pivot(index="eval_task", columns="source_task", values="importance")
    matrix = matrix.reindex(index=tasks, columns=sources).to_numpy(dtype=np.float64)
    size = _square(len(tasks), _cell_side(intervals is not None))
    figure, axis = plt.subplots(figsize=(size + 1, size), layout="constrained")
    limit = np.nanmax(np.abs(matrix)) if np.isfinite(matrix).any() else 1.0
    image = _annotated_heatmap(axis, matrix, tasks, sources, ".2f", "RdBu_r",
                               cell_bounds(intervals, tasks, sources), vmin=-limit,
                               vmax=limit)  # fmt: skip
    _type_boundaries(axis, tasks, task_types)
    label(axis, "source task (perturbation order)", "evaluation task", title)
    axis.title.set_wrap(True)
    figure.colorbar(image, ax=axis, shrink=0.8, label="importance (z-score)")
    footnote(figure, note)
    return figure


def _correlation_matrix(table: pd.DataFrame, tasks: Sequence[str]) -> np.ndarray:
    matrix = table.pivot_table(index="task_a", columns="task_b", values="spearman")
    return matrix.reindex(index=tasks, columns=tasks).to_numpy(dtype=np.float64)


def off_diagonal(matrix: np.ndarray) -> np.ndarray:
    """``matrix`` with its diagonal masked (NaN): a task's correlation with itself is 1
    by definition and would spend the colour scale, leaving the off-diagonal structure
    (the claim of Figure 5) one shade."""
    masked = np.array(matrix, dtype=np.float64)
    np.fill_diagonal(masked, np.nan)
    return masked


def _off_diagonal_range(matrices: Sequence[np.ndarray]) -> tuple[float, float]:
    values = np.concatenate([m[np.isfinite(m)] for m in matrices] or [np.empty(0)])
    if not values.size:
        return 0.0, 1.0
    low, high = float(values.min()), float(values.max())
    return (low, high) if high > low else (low - 0.05, high + 0.05)


def correlation_heatmap(
    table: pd.DataFrame, task_types: Mapping[str, str], title: str = ""
) -> plt.Figure:
    """Figure 5: Spearman correlation of predictivity orders averaged over layers.

    ``table`` is the per-layer table (columns layer, task_a, task_b, spearman); the
    mean over layers is drawn, tasks grouped by type and annotated; the diagonal (1 by
    definition) is masked, so the colour scale spans the off-diagonal values.
    """
    tasks = group_by_type(list(dict.fromkeys(table["task_a"])), task_types)
    matrix = off_diagonal(_correlation_matrix(table, tasks))
    low, high = _off_diagonal_range([matrix])
    size = _square(len(tasks))
    figure, axis = plt.subplots(figsize=(size + 1, size), layout="constrained")
    image = _annotated_heatmap(
        axis, matrix, tasks, tasks, ".2f", "viridis", vmin=low, vmax=high, diagonal="1"
    )
    _type_boundaries(axis, tasks, task_types)
    figure.colorbar(image, ax=axis, shrink=0.8, label="Spearman's rho (off-diagonal)")
    label(axis, panel_title=title)
    return figure


def layer_correlation_figure(
    table: pd.DataFrame, task_types: Mapping[str, str], title: str = ""
) -> plt.Figure:
    """Figure 14: one correlation heatmap per layer (layer 1 = bottom; small multiples),
    one colour scale over every layer's off-diagonal values (diagonals masked), tasks
    grouped by type and annotated."""
    tasks = group_by_type(list(dict.fromkeys(table["task_a"])), task_types)
    layers = sorted(table["layer"].unique())
    matrices = [
        off_diagonal(_correlation_matrix(table[table["layer"] == layer], tasks))
        for layer in layers
    ]
    low, high = _off_diagonal_range(matrices)
    side = 0.45 * max(len(tasks), 4) + 1.2
    figure, axes = grid(len(layers), width=side, height=side, columns=4)
    for axis, layer, matrix in zip(axes, layers, matrices, strict=False):
        image = _annotated_heatmap(
            axis, matrix, tasks, tasks, ".2f", "viridis", vmin=low, vmax=high, diagonal="1"
        )
        _type_boundaries(axis, tasks, task_types)
        label(axis, panel_title=f"layer {int(layer) + 1}")
    figure.colorbar(image, ax=list(axes[: len(layers)]), shrink=0.6,
                    label="Spearman's rho (off-diagonal)")  # fmt: skip
    suptitle(figure, title)
    return figure


def transfer_scatter(points: pd.DataFrame, correlations: pd.DataFrame, title: str) -> plt.Figure:
    """Figure A-S6.2: transfer accuracy against ON, all neurons vs top skill neurons.

    ``points`` has one row per (source, target) pair with ``on_all``, ``on_skill`` and
    ``transfer_accuracy`` (:func:`skillneurons.paper_a.transfer.scatter_points`), drawn
    coloured by target; each panel's title gives the average and pooled Spearman
    correlations of ``correlations``
    (:func:`skillneurons.paper_a.transfer.indicator_correlations`).
    """
    summary = correlations.set_index("target")
    figure, axes = grid(2, width=4.2, height=3.4, columns=2, sharey=True, legend_rows=1)
    targets = list(dict.fromkeys(points["target"]))
    colors = series_colors(targets)
    panels = (("on_all", "all neurons (Su et al.)"), ("on_skill", "top skill neurons"))
    for axis, (column, name) in zip(axes, panels, strict=True):
        for target in targets:
            chosen = points[points["target"] == target]
            axis.scatter(chosen[column], chosen["transfer_accuracy"], s=22,
                         color=colors[target], label=target)  # fmt: skip
        mean, pooled = summary.loc[["average", "pooled"], f"spearman_{column[3:]}"]
        shown = "n/a (no target with 3+ sources)" if np.isnan(mean) else f"{mean:.2f}"
        label(axis, "overlap rate of activated neurons (ON)",
              panel_title=f"ON over {name}\nmean Spearman ρ over targets: {shown}\n"
              f"pooled within targets: {pooled:.2f}")  # fmt: skip
    label(axes[0], ylabel="zero-shot transfer accuracy")
    legend_outside(figure, axes, columns=len(targets), title="target")
    suptitle(figure, title)
    return figure


def effect_heatmaps(
    matrices: Mapping[str, pd.DataFrame],
    task_types: Mapping[str, str],
    title: str = "",
    intervals: Mapping[str, pd.DataFrame] | None = None,
    note: str = "",
) -> plt.Figure:
    """Paper B's Figure 5: one annotated heatmap per panel, rows the task whose neurons
    were changed, columns the evaluated task, tasks grouped by type.

    ``matrices`` maps a panel title to a frame with ``neurons_of`` and one column per
    task (:func:`skillneurons.paper_b.neuron_effects.effect_matrix`); ``intervals`` a
    panel title to its cells' intervals
    (:func:`skillneurons.paper_b.neuron_effects.effect_intervals`:
    row the task whose neurons were changed, column the evaluated task), drawn as
    :func:`_annotated_heatmap` draws ``bounds``; ``note`` goes under the figure."""
    tasks = max((len(matrix) for matrix in matrices.values()), default=4)
    width = _cell_side(intervals is not None) * max(tasks, 4) + 2.1
    figure, axes = grid(len(matrices), width=width, height=width - 0.6, columns=2)
    for axis, (name, matrix) in zip(axes, matrices.items(), strict=False):
        tasks = group_by_type(list(matrix["neurons_of"]), task_types)
        values = matrix.set_index("neurons_of").loc[tasks, tasks].to_numpy(dtype=np.float64)
        limit = np.nanmax(np.abs(values)) if np.isfinite(values).any() else 1.0
        bounds = cell_bounds((intervals or {}).get(name), tasks, tasks)
        image = _annotated_heatmap(
            axis, values, tasks, tasks, ".1f", "RdBu_r", bounds, vmin=-limit, vmax=limit
        )
        _type_boundaries(axis, tasks, task_types)
        label(axis, "evaluated task", "neurons of", name)
        axis.title.set_wrap(True)
        figure.colorbar(image, ax=axis, shrink=0.75, label="points")
    suptitle(figure, title)
    footnote(figure, note)
    return figure


def _band(axis, rows: pd.DataFrame, x: str, color: str) -> None:
    """The interval of ``rows`` (columns ``low``, ``high``; NaN: none) as a band."""
    shown = rows["low"].notna() & rows["high"].notna()
    axis.fill_between(rows.loc[shown, x], rows.loc[shown, "low"], rows.loc[shown, "high"],
                      color=color, alpha=BAND_ALPHA, linewidth=0)  # fmt: skip


def proportion_figure(
    panels: Mapping[str, pd.DataFrame],
    title: str,
    intervals: pd.DataFrame,
    series: Mapping[str, str],
) -> plt.Figure:
    """B-F2 / B-F6: mean in-domain (specialization) and out-of-domain (generalization)
    score against the proportion of task neurons trained, one panel per trained model
    (small multiples sharing both axes; :func:`skillneurons.paper_b.generalization_report.
    proportion_table` rows; proportion 0 is the untrained model); the other group's
    test tasks as a third line where scored. ``series`` maps each line's column to its
    legend label (:data:`skillneurons.paper_b.generalization_report.PROPORTION_SERIES`),
    each line's colour its place there, the same in every panel and figure. Bands:
    ``intervals`` (:func:`skillneurons.paper_b.generalization_report.share_intervals`
    with ``panel`` the panels' names) where the panel and line have them."""
    colors = series_colors(list(series))
    figure, axes = grid(len(panels), width=3.0, height=2.4, columns=4, sharex=True,
                        sharey=True, legend_rows=1)  # fmt: skip
    for axis, (name, rows) in zip(axes, panels.items(), strict=False):
        rows = rows.sort_values("proportion")
        for column, text in series.items():
            if column not in rows or rows[column].isna().all():
                continue
            color = colors[column]
            axis.plot(100 * rows["proportion"], rows[column], marker="o", markersize=3,
                      color=color, label=text)  # fmt: skip
            band = intervals[(intervals["panel"] == name) & (intervals["series"] == column)]
            _band(axis, band.assign(share=100 * band["proportion"]).sort_values("share"),
                  "share", color)  # fmt: skip
        label(axis, panel_title=name)
    outer_labels(axes, len(panels), "task neurons trained (%)", "score (%)")
    legend_outside(figure, axes, columns=3)
    suptitle(figure, title)
    return figure


def similarity_layers_figure(
    layers: pd.DataFrame,
    definitions: Mapping[str, str],
    title: str,
    intervals: pd.DataFrame | None = None,
    note: str = "",
):
    """B-F3: per layer, the similarity of the training task's and each test task's
    neuron parameters, one row of panels per definition of ``definitions`` (in its
    order, each with its y-axis label:
    :data:`skillneurons.paper_b.similarity_definitions.DEFINITIONS`) and one column per
    panel of :func:`skillneurons.paper_b.similarity_report.similarity_views` (a test
    group against all the models or its own group's;
    :func:`skillneurons.paper_b.similarity_report.layer_similarity_table` rows); dashed,
    the chance level of each (random sets of the same sizes). A dotted
    line parts the shallow half of the layers from the deep half, which the profile
    claim compares; ``centroid`` is paper B's cosine (§5.2), ``norm_weighted_overlap``
    the set overlap drawn beside it. One colour per test task across the panels. Bands:
    ``intervals`` (:func:`skillneurons.paper_b.similarity_report.layer_similarity_intervals`) where
    a line has them; ``note`` (what the bands are) heads the legend below the panels."""
    views = list(dict.fromkeys(zip(layers["test_group"], layers["models"], strict=True)))
    shallow = layers.loc[layers["half"] == "shallow", "layer"]
    deep = layers.loc[layers["half"] == "deep", "layer"]
    colors = series_colors(list(dict.fromkeys(layers["test_task"])))
    figure, axes = grid(len(definitions) * len(views), width=3.4, height=2.6,
                        columns=len(views), sharex=True, legend_rows=2)  # fmt: skip
    panels = [(definition, view) for definition in definitions for view in views]
    for axis, (definition, (test_group, models)) in zip(axes, panels, strict=False):
        chosen = layers[
            (layers["definition"] == definition)
            & (layers["test_group"] == test_group)
            & (layers["models"] == models)
        ]
        for task, rows in chosen.groupby("test_task", sort=False):
            axis.plot(rows["layer"], rows["similarity"], marker="o", markersize=3,
                      color=colors[task], label=task)  # fmt: skip
            if intervals is not None:
                band = intervals[
                    (intervals["definition"] == definition)
                    & (intervals["test_group"] == test_group)
                    & (intervals["models"] == models)
                    & (intervals["test_task"] == task)
                ]
                _band(axis, band.sort_values("layer"), "layer", colors[task])
            axis.plot(rows["layer"], rows["chance"], linestyle="--", color=colors[task],
                      linewidth=0.8, label=f"{task}: random sets")  # fmt: skip
        if len(shallow) and len(deep):
            axis.axvline((shallow.max() + deep.min()) / 2, color=GREY, linestyle=":")
        trained = "all models" if models == "all" else f"{models}-trained models"
        label(axis, "layer (0 = bottom)", definitions[definition],
              f"{definition}: {test_group} tests,\n{trained}")  # fmt: skip
    legend_outside(figure, axes, columns=4, title=note_lines(figure, note) or None)
    suptitle(figure, title)
    return figure


def forgetting_figure(table: pd.DataFrame, title: str, intervals: pd.DataFrame) -> plt.Figure:
    """B-F4: FG_j (Eq. 5) against the stage ``j``, one line per method (its colour the
    same in every panel), one panel per order (small multiples sharing both axes;
    :func:`skillneurons.paper_b.continual_report.forgetting_table` rows); stage 1 is 100
    by definition. Bands: ``intervals``
    (:func:`skillneurons.paper_b.continual_report.forgetting_intervals`)."""
    orders = list(dict.fromkeys(table["order"]))
    colors = series_colors(list(dict.fromkeys(table["method"])))
    figure, axes = grid(len(orders), width=3.0, height=2.4, columns=3, sharex=True,
                        sharey=True, legend_rows=1)  # fmt: skip
    for axis, order in zip(axes, orders, strict=False):
        chosen = table[table["order"] == order]
        for method, rows in chosen.groupby("method", sort=False):
            stages = [1, *rows["stage"]]
            axis.plot(stages, [100.0, *rows["fg"]], marker="o", markersize=3,
                      color=colors[method], label=method)  # fmt: skip
            band = intervals[(intervals["order"] == order) & (intervals["method"] == method)]
            _band(axis, band.sort_values("stage"), "stage", colors[method])
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        label(axis, panel_title=order)
    outer_labels(axes, len(orders), "stage j (tasks learnt)", "FG_j (% of per-task FT)")
    legend_outside(figure, axes, columns=len(colors))
    suptitle(figure, title)
    return figure
