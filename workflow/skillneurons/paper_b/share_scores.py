"""Per-sample scores of paper B's share trainings over their training runs (B-F2, B-F6,
B-T9..B-T11, §5.1 and appendices A.5, A.7).

The one statistic and the one set of resampling units that the share claims and the
figures' bands (:func:`skillneurons.paper_b.generalization_report.share_intervals`)
share.

Every compared model is trained once per training run (config ``paper_b.runs``: run
``r`` with seed + r, the ``run`` column of :mod:`skillneurons.paper_b.runs`) and tested
on the same test samples, so the runs are the top unit and each evaluated task's test
samples are crossed with them (DESIGN.md, "Verdicts").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.paper_b.runs import RUNS, with_runs
from skillneurons.reporting.findings import Units


def score_cells(frame: pd.DataFrame) -> dict[tuple, np.ndarray]:
    """(run index, group, trained, proportion, overlap, eval_task) -> score per test
    sample of the result rows ``frame`` (the overlap of B-F2's and B-F6's rows is -1;
    the run index counts the frame's training runs from 0: :func:`sample_units`'
    ``training runs``)."""
    frame = with_runs(frame).fillna({"overlap": -1.0})
    index = {run: i for i, run in enumerate(sorted(set(frame["run"])))}
    return {
        (index[row.run], row.group, row.trained, float(row.proportion), float(row.overlap),
         row.eval_task): np.asarray(row.sample_scores, np.float64)
        for row in frame.itertuples()
    }  # fmt: skip


def sample_units(frame: pd.DataFrame) -> Units:
    """The units of the result rows ``frame``: the training runs (every compared model
    trained once per run) > each evaluated task's test samples."""
    first = frame.drop_duplicates("eval_task")
    samples = {f"{r.eval_task}: test samples": len(r.sample_scores) for r in first.itertuples()}
    return Units(runs={RUNS: with_runs(frame)["run"].nunique()}, samples=samples)


def mean_score(
    cells: Mapping[tuple, np.ndarray], keys: Sequence[tuple], indices: Mapping[str, np.ndarray]
) -> float:
    """The mean over the drawn runs and ``keys`` (:func:`score_cells`' keys without the
    run) of the score on the drawn test samples."""
    return float(
        np.mean(
            [
                cells[(run, *key)][indices[f"{key[-1]}: test samples"]].mean()
                for run in indices[RUNS]
                for key in keys
            ]
        )
    )
