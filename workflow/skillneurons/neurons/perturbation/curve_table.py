"""The perturbation-curve table: the one contract between the sweeps and the reports
(paper A §4.2; Figures 4, 7, 11-13, 15; the findings' paired bootstrap).

:func:`skillneurons.neurons.perturbation.sweep.sweep_orders` returns one row per (order,
rate, random repeat) with the columns :data:`CURVE_COLUMNS` and ``correct``; a
perturbation file (:func:`trial_curve_frame`, :func:`write_curve_file`) adds
``eval_task``, ``trial`` and ``kind`` (:data:`FILE_COLUMNS`), and the ablation file a
``setting``. This module holds the table's columns and dtypes, their validation, reading
and writing, and the views the tables, figures and findings take of it:
:func:`trial_curves` (one curve per trial), :func:`own_order_view` (Figure 15's orders)
and :func:`sample_correctness` (per-sample results for the paired bootstrap). It loads
no torch, so a report reads curves without a model library.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.infra.io import write_frame_parquet

#: The random control that matches an order's neurons per layer at every rate.
LAYER_MATCHED = "layer_matched"
RANDOM_TYPES = ("random", LAYER_MATCHED)

#: Columns (and dtypes) of a perturbation-curve table (:func:`sweep_orders`), and
#: ``correct``: per evaluated sample whether its prediction was right (bool list).
CURVE_COLUMNS = {
    "order": "string",
    "order_type": "string",
    "repeat": "int64",
    "rate": "float64",
    "perturbed": "int64",
    "accuracy": "float64",
}

#: Columns of a perturbation file, in order (:func:`trial_curve_frame`): the sweep's
#: table with the evaluation task, the trial and the perturbation kind.
FILE_COLUMNS = (
    "eval_task",
    "order",
    "order_type",
    "repeat",
    "trial",
    "rate",
    "perturbed",
    "accuracy",
    "correct",
    "kind",
)

#: What every view of the curves reads.
_VIEWED = ("eval_task", "order", "order_type", "trial", "rate", "accuracy")


def check_curves(curves: pd.DataFrame, required: Sequence[str] = _VIEWED) -> None:
    """Refuse a curve table that lacks any of the ``required`` columns."""
    missing = [column for column in required if column not in curves]
    if missing:
        raise ValueError(f"perturbation curves lack columns {missing}; expected {list(required)}")


def trial_curve_frame(table: pd.DataFrame, eval_task: str, trial: int, kind: str) -> pd.DataFrame:
    """:func:`sweep_orders`' table with its identity: the columns of a perturbation file.

    Columns :data:`FILE_COLUMNS`: ``eval_task`` (string), ``order``, ``order_type``,
    ``repeat``, ``trial`` (int64), ``rate``, ``perturbed``, ``accuracy``, ``correct``
    (per sample) and ``kind`` (the perturbation kind).
    """
    frame = table.copy()
    frame.insert(0, "eval_task", pd.array([eval_task] * len(frame), dtype="string"))
    frame.insert(4, "trial", np.full(len(frame), trial, dtype=np.int64))
    frame["kind"] = pd.array([kind] * len(frame), dtype="string")
    return frame


def write_curve_file(
    path: str | os.PathLike, curves: pd.DataFrame, metadata: Mapping[str, object]
) -> None:
    """Write perturbation curves (every column of :data:`FILE_COLUMNS`, and any other
    the file adds, e.g. the ablation's ``setting``) atomically as Parquet with JSON
    metadata."""
    check_curves(curves, FILE_COLUMNS)
    write_frame_parquet(path, curves, metadata)


def read_curves(paths: Sequence[str]) -> pd.DataFrame:
    """Concatenate perturbation files (one per evaluation task)."""
    return pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)


def trial_curves(curves: pd.DataFrame) -> pd.DataFrame:
    """One curve per (eval_task, order, order_type, trial): random orders averaged over
    their repeats. Columns eval_task, order, order_type, trial, rate, accuracy."""
    check_curves(curves)
    keys = ["eval_task", "order", "order_type", "trial", "rate"]
    return curves.groupby(keys, sort=False, as_index=False)["accuracy"].mean()


def own_order_view(curves: pd.DataFrame, label: str = "predictivity") -> pd.DataFrame:
    """Figure 15's orders: each evaluation task's own predictivity order (renamed
    ``label``), the selectivity-index order and the random orders."""
    own = (curves["order_type"] == "task") & (curves["order"] == curves["eval_task"])
    kept = curves[own | curves["order_type"].isin([*RANDOM_TYPES, "selectivity"])].copy()
    kept["order"] = kept["order"].where(~own[kept.index], label)
    return kept


def sample_correctness(
    frame: pd.DataFrame,
) -> tuple[np.ndarray, dict[tuple[str, str], np.ndarray]]:
    """One evaluation task's per-sample results (its rows of a perturbation file):
    the sorted rates and, per ``(order_type, order)``, bool
    ``[trials, repeats, rates, samples]`` (one repeat for non-random orders) saying
    which test samples were right."""
    rates = np.sort(frame["rate"].unique())
    trials = sorted(frame["trial"].unique())
    correct = {}
    for (order_type, order), rows in frame.groupby(["order_type", "order"], sort=False):
        repeats = sorted(rows["repeat"].unique())
        samples = len(rows["correct"].iloc[0])
        cube = np.zeros((len(trials), len(repeats), len(rates), samples), dtype=bool)
        for row in rows.itertuples():
            where = (trials.index(row.trial), repeats.index(row.repeat))
            cube[(*where, int(np.searchsorted(rates, row.rate)))] = np.asarray(row.correct)
        correct[(str(order_type), str(order))] = cube
    return rates, correct
