"""Results tables of both papers (A-*, B-*, AB-T1): CSV for programs, Markdown (with a
title line) for people.

Every table a rule writes under ``results/{model}/tables/`` goes through
:func:`write_frame`: the same frame as ``<id>.csv`` and ``<id>.md``, both atomically;
a per-task table may end with its tasks' mean (:func:`mean_row`).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from skillneurons.infra.io import atomic_path


def markdown(frame: pd.DataFrame, floatfmt: str = ".4f") -> str:
    """A pipe table of ``frame`` (floats formatted with ``floatfmt``)."""

    def cell(value: object) -> str:
        if isinstance(value, float):
            return format(value + 0.0, floatfmt)  # + 0.0: no "-0.0"
        return str(value).replace("|", "/")

    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "---|" * len(frame.columns)
    rows = [
        "| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)
    ]
    return "\n".join([header, rule, *rows]) + "\n"


def write_frame(
    csv_path: str | os.PathLike,
    md_path: str | os.PathLike,
    frame: pd.DataFrame,
    title: str,
    floatfmt: str = ".4f",
) -> None:
    """Write a results table as CSV and as Markdown (with a title line, floats formatted
    with ``floatfmt``), atomically."""
    with atomic_path(csv_path) as tmp:
        frame.to_csv(tmp, index=False)
    with atomic_path(md_path) as tmp:
        tmp.write_text(f"# {title}\n\n{markdown(frame, floatfmt)}")


def mean_row(frame: pd.DataFrame, label: str = "mean") -> pd.DataFrame:
    """``frame`` with a last row of its float columns' means (task ``label``); counts
    (integer columns) are left empty there."""
    numeric = frame.select_dtypes(include=[np.floating]).mean()
    return pd.concat(
        [frame, pd.DataFrame([{"task": label, **numeric.to_dict()}])], ignore_index=True
    )
