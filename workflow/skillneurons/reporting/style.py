"""The one style of every figure and page (A-*, B-*, AB-*): a colour-blind-safe palette,
fixed colours and the layout helpers.

One colour per method, order kind, paper and verdict across every figure and page;
legends outside the data, panels sized for their content.

The palette is Okabe and Ito's (*Color Universal Design*, 2008): eight colours that
stay distinct under the common colour-vision deficiencies. A key's colour is fixed here
once (:data:`KEY_COLORS`), so that paper A is the same blue in AB-F1, the explorer and
the verdict page, a task's own order the same in A-F4 and A-F11, and so on; keys
without a fixed colour take the palette in order (:func:`series_colors`: B-F2's and
B-F6's lines by their place in their series, the same in both figures).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

#: Okabe-Ito's colours (black first in their list, kept last here for lines).
OKABE_ITO = {
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "black": "#000000",
}
#: Series colours in order of use (yellow last: weak on white).
PALETTE = tuple(
    OKABE_ITO[name]
    for name in (
        "blue",
        "orange",
        "bluish green",
        "vermillion",
        "reddish purple",
        "sky blue",
        "yellow",
    )
)
GREY = "#999999"

#: The fixed colour of every method, order kind and paper that figures share.
KEY_COLORS = {
    # papers, and their orders in AB-F1 (random ones dashed in the same colour)
    "paper_a": OKABE_ITO["blue"],
    "paper_b": OKABE_ITO["vermillion"],
    "random_paper_a": OKABE_ITO["blue"],
    "random_paper_b": OKABE_ITO["vermillion"],
    # paper A's random order types (A-F4, A-F11, A-F15; dashed): uniform grey,
    # layer-matched (the findings' control) black; the own order in A-F15
    "random": GREY,
    "layer_matched": OKABE_ITO["black"],
    "predictivity (ours)": OKABE_ITO["blue"],
    "selectivity": OKABE_ITO["orange"],
}

#: Verdict colours of the findings (the report's first page, skillneurons.reporting.verdicts):
#: one per verdict of skillneurons.reporting.findings.VERDICTS.
VERDICT_COLORS = {
    "holds": OKABE_ITO["bluish green"],
    "holds, below margin": OKABE_ITO["blue"],
    "fails": OKABE_ITO["vermillion"],
    "fails, within margin": OKABE_ITO["reddish purple"],
    "negligible": OKABE_ITO["sky blue"],
    "comparable": OKABE_ITO["yellow"],
    "not comparable": "#7F4F00",  # dark brown: black would match the text
    "inconclusive": OKABE_ITO["orange"],
    "not decidable here": "#CCCCCC",
    "not measured": GREY,
}

#: Font sizes: panel titles, axis labels, ticks and legends, figure titles.
TITLE_SIZE, LABEL_SIZE, TICK_SIZE, LEGEND_SIZE, SUPTITLE_SIZE = 9, 8, 7, 7, 10
#: The band of an interval: its opacity.
BAND_ALPHA = 0.2


def series_colors(keys: Sequence[str]) -> dict[str, str]:
    """A colour per key: its fixed colour (:data:`KEY_COLORS`) or the next palette
    colour not taken by a fixed one among ``keys``."""
    taken = {KEY_COLORS[key] for key in keys if key in KEY_COLORS}
    free = [color for color in PALETTE if color not in taken] or list(PALETTE)
    colors, position = {}, 0
    for key in keys:
        if key in KEY_COLORS:
            colors[key] = KEY_COLORS[key]
        else:
            colors[key] = free[position % len(free)]
            position += 1
    return colors


def legend_outside(figure: plt.Figure, axes, columns: int = 1, title: str | None = None):
    """One legend for the whole figure, below the panels (outside every axis' box),
    from the labelled artists of ``axes`` (duplicates by label dropped)."""
    handles, labels = {}, []
    for axis in axes:
        for handle, label in zip(*axis.get_legend_handles_labels(), strict=True):
            if label not in handles:
                handles[label] = handle
                labels.append(label)
    if not labels:
        return None
    return figure.legend(
        [handles[label] for label in labels],
        labels,
        loc="outside lower center",
        ncols=max(1, min(columns, len(labels))),
        fontsize=LEGEND_SIZE,
        title=title,
        title_fontsize=LEGEND_SIZE,
        frameon=False,
    )


def grid(
    panels: int,
    width: float = 3.0,
    height: float = 2.4,
    columns: int = 4,
    sharex: bool = False,
    sharey: bool = False,
    legend_rows: int = 0,
):
    """Small multiples: a figure of ``panels`` axes of ``width`` x ``height`` inches,
    ``columns`` per row, constrained layout (room for a legend of ``legend_rows`` rows
    below the panels and a title above); unused axes hidden. Returns (figure, axes)."""
    columns = max(1, min(columns, panels))
    rows = -(-panels // columns)
    extra = 0.5 + 0.18 * legend_rows
    figure, axes = plt.subplots(
        rows,
        columns,
        figsize=(width * columns, height * rows + extra),
        squeeze=False,
        sharex=sharex,
        sharey=sharey,
        layout="constrained",
    )
    for axis in axes.ravel()[panels:]:
        axis.set_visible(False)
    return figure, axes.ravel()


def outer_labels(axes, panels: int, xlabel: str, ylabel: str) -> None:
    """Axis labels of small multiples: ``xlabel`` under every panel with no panel below
    it, ``ylabel`` beside the first panel of every row (``axes`` as :func:`grid` gives
    them, the first ``panels`` shown). Labels on the axes, not the figure, so that a
    legend below the panels never covers them."""
    columns = axes[0].get_gridspec().ncols
    for index, axis in enumerate(axes[:panels]):
        label(axis, xlabel if index + columns >= panels else "",
              ylabel if index % columns == 0 else "")  # fmt: skip


def suptitle(figure: plt.Figure, text: str) -> None:
    """The figure's title at the style's size, wrapped to the figure's width (a long
    title over narrow panels takes lines, not a canvas wider than the panels)."""
    if text:
        figure.suptitle(text, fontsize=SUPTITLE_SIZE, wrap=True)


def note_lines(figure: plt.Figure, text: str) -> str:
    """``text`` broken into lines of the figure's width at the tick size."""
    return textwrap.fill(text, max(40, int(figure.get_figwidth() * 72 / (0.5 * TICK_SIZE))))


def footnote(figure: plt.Figure, text: str) -> None:
    """``text`` under the figure's panels at the tick size (what its intervals are and
    which units they resample), in lines of the figure's width (a figure with a legend
    below its panels gives the note to the legend's title instead: one block)."""
    if text:
        figure.supxlabel(note_lines(figure, text), fontsize=TICK_SIZE, ha="center")


def label(axis, xlabel: str = "", ylabel: str = "", panel_title: str = "") -> None:
    """Axis labels, panel title and tick sizes of the style."""
    if xlabel:
        axis.set_xlabel(xlabel, fontsize=LABEL_SIZE)
    if ylabel:
        axis.set_ylabel(ylabel, fontsize=LABEL_SIZE)
    if panel_title:
        axis.set_title(panel_title, fontsize=TITLE_SIZE)
    axis.tick_params(labelsize=TICK_SIZE)
