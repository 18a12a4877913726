"""Training runs of paper B's compared trainings (config ``paper_b.runs``).

Paper B reports one training per condition; a difference between two trainings can be
the optimiser's seed as much as the condition (DESIGN.md, "Verdicts"). Every compared
training therefore runs ``paper_b.runs`` times, run ``r`` with seed + r (run 0 is the
single run of earlier versions), each run's results in its own ``run{r}/`` folder and
marked by a ``run`` column (:func:`with_run`). The findings resample the runs as their
top unit; tables and figures show the mean over the runs (:func:`run_means`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

#: The findings' and figures' resampling unit of the training runs.
RUNS = "training runs"


def with_run(frame: pd.DataFrame, run: int) -> pd.DataFrame:
    """``frame`` as the results of training run ``run``: a ``run`` column first."""
    return frame.assign(run=np.int64(run))[["run", *frame.columns]]


def with_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a ``run`` column for every row: rows without one (an untrained
    model's, or results written before runs) are run 0."""
    run = frame["run"] if "run" in frame else pd.Series(0, index=frame.index)
    return frame.assign(run=run.fillna(0).astype("int64"))


def run_means(frame: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """One row per value of ``keys`` (first-seen order), every other column the mean
    over the rows' runs: a number's mean, or a per-sample array's element-wise mean (a
    correct/wrong array becomes the share of runs right). The ``run`` column goes."""
    keys = list(keys)
    values = [column for column in frame.columns if column not in [*keys, "run"]]
    rows = []
    for key, group in frame.groupby(keys, sort=False, dropna=False):
        row = dict(zip(keys, key, strict=True))
        for column in values:
            cells = group[column].to_list()
            if isinstance(cells[0], np.ndarray):
                row[column] = np.mean(np.stack(cells).astype(np.float64), axis=0)
            else:
                row[column] = float(np.mean(cells))
        rows.append(row)
    shown = pd.DataFrame(rows, columns=[c for c in frame.columns if c != "run"])
    return shown.astype(frame.dtypes.drop("run", errors="ignore")[keys].to_dict())
