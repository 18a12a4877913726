"""Figures of paper A, drawn from tables and arrays (nothing here computes results).

Each function returns a matplotlib figure; :func:`save_figure` writes it as PNG and
PDF atomically. File names carry the paper's IDs (``A-F1``, ``A-F3_F9`` ...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from skillneurons.infra.io import atomic_path  # noqa: E402

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
