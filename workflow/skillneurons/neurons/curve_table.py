"""The perturbation-curve table and what the reports read from it (paper A §4.2).

:func:`skillneurons.neurons.perturbation.sweep_orders` writes one row per (order,
rate) with the columns :data:`CURVE_COLUMNS`; its files add ``eval_task``, ``trial``
and ``kind``. This module holds the table's vocabulary and the frame operations the
tables and figures apply to it, apart from the perturbation itself, so that a report
reads curves without loading a model library.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

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


def _check_curves(curves: pd.DataFrame) -> None:
    required = ("eval_task", "order", "order_type", "trial", "rate", "accuracy")
    missing = [column for column in required if column not in curves]
    if missing:
        raise ValueError(f"perturbation curves lack columns {missing}; expected {list(required)}")


def trial_curves(curves: pd.DataFrame) -> pd.DataFrame:
    """One curve per (eval_task, order, order_type, trial): random orders averaged over
    their repeats. Columns eval_task, order, order_type, trial, rate, accuracy."""
    _check_curves(curves)
    keys = ["eval_task", "order", "order_type", "trial", "rate"]
    return curves.groupby(keys, sort=False, as_index=False)["accuracy"].mean()


def read_curves(paths: Sequence[str]) -> pd.DataFrame:
    """Concatenate perturbation files (one per evaluation task)."""
    return pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)


def own_order_view(curves: pd.DataFrame, label: str = "predictivity") -> pd.DataFrame:
    """Figure 15's orders: each evaluation task's own predictivity order (renamed
    ``label``), the selectivity-index order and the random orders."""
    own = (curves["order_type"] == "task") & (curves["order"] == curves["eval_task"])
    kept = curves[own | curves["order_type"].isin([*RANDOM_TYPES, "selectivity"])].copy()
    kept["order"] = kept["order"].where(~own[kept.index], label)
    return kept
