"""Figures, drawn from tables and arrays (nothing here computes results).

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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from skillneurons.infra.io import atomic_path  # noqa: E402
from skillneurons.neurons.perturbation.curve_table import LAYER_MATCHED, RANDOM_TYPES  # noqa: E402

COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")


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
    figure, axis = plt.subplots(figsize=(5, 3.2))
    bins = np.histogram_bin_edges(values["activation"], bins=30)
    for label, name in enumerate(label_names):
        chosen = values.loc[values["label"] == label, "activation"]
        axis.hist(
            chosen, bins=bins, alpha=0.6, color=COLORS[label], label=f"{name} ({len(chosen)})"
        )
    axis.axvline(baseline, color="black", linestyle="--", linewidth=1, label="baseline $a_{bsl}$")
    axis.set_xlabel("activation")
    axis.set_ylabel("dev samples")
    axis.set_title(title, fontsize=9)
    axis.legend(fontsize=8)
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
    figure, axis = plt.subplots(figsize=(4.6, 4.2))
    for label, name in enumerate(label_names):
        chosen = values[values["label"] == label]
        axis.scatter(chosen["x"], chosen["y"], s=8, alpha=0.6, color=COLORS[label], label=name)
    axis.axvline(baselines[0], color="gray", linestyle="--", linewidth=1)
    axis.axhline(baselines[1], color="gray", linestyle="--", linewidth=1)
    axis.set_xlabel(axis_labels[0], fontsize=8)
    axis.set_ylabel(axis_labels[1], fontsize=8)
    axis.set_title(title, fontsize=9)
    axis.legend(fontsize=8)
    return figure


def histogram_with_sem(
    per_trial: Sequence[np.ndarray], bins: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Fraction of neurons per bin, mean and s.e.m. over trials."""
    fractions = np.stack([np.histogram(v.ravel(), bins=bins)[0] / v.size for v in per_trial])
    sem = (
        fractions.std(axis=0, ddof=1) / np.sqrt(len(per_trial))
        if len(per_trial) > 1
        else np.zeros(fractions.shape[1])
    )
    return fractions.mean(axis=0), sem


def predictivity_histograms(
    panels: Mapping[str, Mapping[str, Sequence[np.ndarray]]],
    series: Mapping[str, str],
    title: str,
    bins: np.ndarray | None = None,
) -> plt.Figure:
    """Figures 3, 9 and 10: distributions of neuron predictivity, one panel per task.

    ``panels`` maps a panel title to ``{series key: per-trial [layers, neurons]
    arrays}``; ``series`` maps the keys to draw to their legend labels. The first
    series is drawn as bars with s.e.m. error bars over trials, the others as lines.
    """
    bins = np.linspace(0.5, 1.0, 26) if bins is None else bins
    centers = (bins[:-1] + bins[1:]) / 2
    columns = min(4, len(panels))
    rows = int(np.ceil(len(panels) / columns))
    figure, axes = plt.subplots(
        rows, columns, figsize=(3.2 * columns, 2.5 * rows), squeeze=False, sharex=True
    )
    for axis, (name, arrays) in zip(axes.ravel(), panels.items(), strict=False):
        for position, (key, label) in enumerate(series.items()):
            mean, sem = histogram_with_sem(arrays[key], bins)
            if position == 0:
                width = bins[1] - bins[0]
                axis.bar(centers, mean, width=width, color=COLORS[0], alpha=0.7, label=label)
                axis.errorbar(centers, mean, yerr=sem, fmt="none", ecolor="black", elinewidth=0.8)
            else:
                axis.plot(centers, mean, color=COLORS[position], linewidth=1.2, label=label)
        axis.set_title(name, fontsize=8)
        axis.tick_params(labelsize=7)
    for axis in axes.ravel()[len(panels) :]:
        axis.set_visible(False)
    axes.ravel()[0].legend(fontsize=7)
    figure.supxlabel("predictivity", fontsize=9)
    figure.supylabel("fraction of neurons", fontsize=9)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure


#: Random orders are dashed: uniform in grey, layer-matched (the findings' control) black.
RANDOM_COLORS = {"random": "tab:gray", LAYER_MATCHED: "black"}


def _grid(panels: int, width: float = 3.2, height: float = 2.6, columns: int = 4):
    columns = max(1, min(columns, panels))
    rows = int(np.ceil(panels / columns))
    figure, axes = plt.subplots(
        rows, columns, figsize=(width * columns, height * rows), squeeze=False
    )
    for axis in axes.ravel()[panels:]:
        axis.set_visible(False)
    return figure, axes.ravel()


def perturbation_curves_figure(
    stats: pd.DataFrame,
    eval_tasks: Sequence[str],
    labels: Mapping[str, str] | None = None,
    title: str = "",
    colors: Mapping[str, str] | None = None,
    xlabel: str = "perturbation rate",
) -> plt.Figure:
    """Accuracy vs perturbation rate per evaluation task, error bars ± 1 s.e.m.

    Parameters
    ----------
    stats : :func:`skillneurons.reporting.stats.curve_statistics` of the perturbation
        tables (columns eval_task, order, order_type, rate, mean, sem).
    eval_tasks : one panel each, in this order.
    labels : order -> legend label, and which orders to draw (default: all, random
        last, labelled by their name).
    title : the figure title.
    colors : order -> line color, overriding the default (tab10 for the orders, the
        random types' colors for random ones; random lines stay dashed).
    xlabel : the x axis label.
    """
    figure, axes = _grid(len(eval_tasks))
    palette = plt.get_cmap("tab10").colors
    for axis, eval_task in zip(axes, eval_tasks, strict=False):
        panel = stats[stats["eval_task"] == eval_task]
        names = list(labels) if labels else _default_orders(panel)
        for index, order in enumerate(names):
            line = panel[panel["order"] == order].sort_values("rate")
            if line.empty:
                continue
            order_type = line["order_type"].iloc[0]
            is_random = order_type in RANDOM_TYPES
            color = RANDOM_COLORS[order_type] if is_random else palette[index % len(palette)]
            axis.errorbar(
                line["rate"],
                line["mean"],
                yerr=line["sem"],
                label=(labels or {}).get(order, order),
                color=(colors or {}).get(order, color),
                linestyle="--" if is_random else "-",
                linewidth=2.0 if order == eval_task else 1.2,
                marker="o",
                markersize=2.5,
                capsize=2,
            )
        axis.set_title(f"on {eval_task}", fontsize=9)
        axis.tick_params(labelsize=7)
        axis.set_xlabel(xlabel, fontsize=8)
        axis.set_ylabel("accuracy", fontsize=8)
        axis.legend(fontsize=6)
    if title:
        figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure


def _default_orders(panel: pd.DataFrame) -> list[str]:
    orders = panel[["order", "order_type"]].drop_duplicates()
    random = orders["order_type"].isin(RANDOM_TYPES)
    return orders.loc[~random, "order"].tolist() + orders.loc[random, "order"].tolist()


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


def transfer_scatter(points: pd.DataFrame, correlations: pd.DataFrame, title: str) -> plt.Figure:
    """Figure A-S6.2: transfer accuracy against ON, all neurons vs top skill neurons.

    ``points`` has one row per (source, target) pair with ``on_all``, ``on_skill`` and
    ``transfer_accuracy`` (:func:`skillneurons.paper_a.transfer.scatter_points`), drawn
    coloured by target; each panel's title gives the average and pooled Spearman
    correlations of ``correlations``
    (:func:`skillneurons.paper_a.transfer.indicator_correlations`).
    """
    means = points
    summary = correlations.set_index("target")
    figure, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    targets = list(dict.fromkeys(means["target"]))
    colors = plt.get_cmap("tab10")
    panels = (("on_all", "all neurons (Su et al.)"), ("on_skill", "top skill neurons"))
    for axis, (column, name) in zip(axes, panels, strict=True):
        for position, target in enumerate(targets):
            chosen = means[means["target"] == target]
            axis.scatter(
                chosen[column],
                chosen["transfer_accuracy"],
                s=22,
                color=colors(position % 10),
                label=target,
            )
        mean, pooled = summary.loc[["average", "pooled"], f"spearman_{column[3:]}"]
        shown = "n/a (no target with 3+ sources)" if np.isnan(mean) else f"{mean:.2f}"
        axis.set_title(
            f"ON over {name}\nmean Spearman ρ over targets: {shown}\n"
            f"pooled within targets: {pooled:.2f}",
            fontsize=9,
        )
        axis.set_xlabel("overlap rate of activated neurons (ON)", fontsize=8)
        axis.tick_params(labelsize=7)
    axes[0].set_ylabel("zero-shot transfer accuracy", fontsize=8)
    axes[1].legend(fontsize=7, title="target", title_fontsize=7, loc="best")
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure


def effect_heatmaps(
    matrices: Mapping[str, pd.DataFrame], task_types: Mapping[str, str], title: str = ""
) -> plt.Figure:
    """Paper B's Figure 5: one annotated heatmap per panel, rows the task whose neurons
    were changed, columns the evaluated task, tasks grouped by type.

    ``matrices`` maps a panel title to a frame with ``neurons_of`` and one column per
    task (:func:`skillneurons.paper_b.tables.effect_matrix`)."""
    figure, axes = _grid(len(matrices), width=4.6, height=4.0, columns=2)
    for axis, (name, matrix) in zip(axes, matrices.items(), strict=False):
        tasks = group_by_type(list(matrix["neurons_of"]), task_types)
        values = matrix.set_index("neurons_of").loc[tasks, tasks].to_numpy(dtype=np.float64)
        limit = np.nanmax(np.abs(values)) if np.isfinite(values).any() else 1.0
        image = _annotated_heatmap(
            axis, values, tasks, tasks, ".1f", cmap="RdBu_r", vmin=-limit, vmax=limit
        )
        _type_boundaries(axis, tasks, task_types)
        axis.set_xlabel("evaluated task", fontsize=8)
        axis.set_ylabel("neurons of", fontsize=8)
        axis.set_title(name, fontsize=9)
        figure.colorbar(image, ax=axis, shrink=0.75, label="points")
    if title:
        figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure


def proportion_figure(panels: Mapping[str, pd.DataFrame], title: str) -> plt.Figure:
    """B-F2 / B-F6: mean in-domain (specialization) and out-of-domain (generalization)
    score against the proportion of task neurons trained, one panel per trained
    model (:func:`skillneurons.paper_b.tables.proportion_table` rows; proportion 0 is
    the untrained model); the other group's test tasks as a third line where scored."""
    figure, axes = _grid(len(panels), width=3.4, height=2.8, columns=4)
    for axis, (name, rows) in zip(axes, panels.items(), strict=False):
        rows = rows.sort_values("proportion")
        for column, label, color in (
            ("id_mean", "in-domain (specialization)", "tab:blue"),
            ("ood_mean", "out-of-domain, same group", "tab:orange"),
            ("ood_cross_mean", "out-of-domain, other group", "tab:green"),
        ):
            if column not in rows or rows[column].isna().all():
                continue
            axis.plot(100 * rows["proportion"], rows[column], marker="o", markersize=3,
                      color=color, label=label)  # fmt: skip
        axis.set_title(name, fontsize=9)
        axis.set_xlabel("task neurons trained (%)", fontsize=8)
        axis.set_ylabel("score (%: accuracy, ROUGE-L x100)", fontsize=8)
        axis.tick_params(labelsize=7)
        axis.legend(fontsize=6)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure


#: B-F3's y axis per similarity definition (skillneurons.paper_b.similarity).
SIMILARITY_AXES = {
    "centroid": "cosine of mean parameters (paper)",
    "norm_weighted_overlap": "norm-weighted set overlap",
}


def similarity_layers_figure(layers: pd.DataFrame, definitions: Sequence[str], title: str):
    """B-F3: per layer, the similarity of the training task's and each test task's
    neuron parameters, one row of panels per definition and one column per panel of
    :func:`skillneurons.paper_b.tables.similarity_views` (a test group against all the
    models or its own group's; :func:`skillneurons.paper_b.tables.layer_similarity_table`
    rows); dashed, the chance level of each (random sets of the same sizes). A dotted
    line parts the shallow half of the layers from the deep half, which the profile
    claim compares; ``centroid`` is paper B's cosine (§5.2), ``norm_weighted_overlap``
    the set overlap drawn beside it."""
    views = list(dict.fromkeys(zip(layers["test_group"], layers["models"], strict=True)))
    shallow = layers.loc[layers["half"] == "shallow", "layer"]
    deep = layers.loc[layers["half"] == "deep", "layer"]
    figure, axes = _grid(len(definitions) * len(views), width=3.6, height=2.8, columns=len(views))
    panels = [(definition, view) for definition in definitions for view in views]
    for axis, (definition, (test_group, models)) in zip(axes, panels, strict=False):
        chosen = layers[
            (layers["definition"] == definition)
            & (layers["test_group"] == test_group)
            & (layers["models"] == models)
        ]
        for index, (task, rows) in enumerate(chosen.groupby("test_task", sort=False)):
            color = COLORS[index % len(COLORS)]
            axis.plot(rows["layer"], rows["similarity"], marker="o", markersize=3,
                      color=color, label=task)  # fmt: skip
            axis.plot(rows["layer"], rows["chance"], linestyle="--", color=color,
                      linewidth=0.8, label=f"{task}: random sets")  # fmt: skip
        if len(shallow) and len(deep):
            axis.axvline((shallow.max() + deep.min()) / 2, color="grey", linestyle=":")
        trained = "all models" if models == "all" else f"{models}-trained models"
        axis.set_title(f"{definition}: {test_group} tests, {trained}", fontsize=8)
        axis.set_xlabel("layer (0 = bottom)", fontsize=8)
        axis.set_ylabel(SIMILARITY_AXES.get(definition, "cosine similarity"), fontsize=8)
        axis.tick_params(labelsize=7)
        axis.legend(fontsize=6)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure


def forgetting_figure(table: pd.DataFrame, title: str) -> plt.Figure:
    """B-F4: FG_j (Eq. 5) against the stage ``j``, one line per method, one panel per
    order (:func:`skillneurons.paper_b.tables.forgetting_table` rows); stage 1 is 100 by
    definition."""
    orders = list(dict.fromkeys(table["order"]))
    figure, axes = _grid(len(orders), width=3.6, height=2.8, columns=3)
    for axis, order in zip(axes, orders, strict=False):
        chosen = table[table["order"] == order]
        for index, (method, rows) in enumerate(chosen.groupby("method", sort=False)):
            stages = [1, *rows["stage"]]
            axis.plot(stages, [100.0, *rows["fg"]], marker="o", markersize=3,
                      color=COLORS[index % len(COLORS)], label=method)  # fmt: skip
        axis.set_title(order, fontsize=9)
        axis.set_xlabel("stage j (tasks learnt)", fontsize=8)
        axis.set_ylabel("FG_j (% of per-task FT)", fontsize=8)
        axis.tick_params(labelsize=7)
        axis.legend(fontsize=6)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure
