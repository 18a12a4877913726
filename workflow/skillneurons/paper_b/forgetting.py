"""Forgetting FG_j (paper B, §6, Eq. 5; B-F4): how much of its earlier tasks an order keeps.

``FG_j = 1/(j-1) Σ_{i<j} a_ij / A_i`` for every stage ``j >= 2``, ``a_ij`` the test
accuracy on task ``i`` after stage ``j`` and ``A_i`` per-task FT's (task ``i``'s own
model). Despite its name a retention ratio: higher is better (paper B-spec 20).

:func:`retention` is the one place Eq. 5 is computed: from a matrix of accuracies
(B-F4's table, :func:`skillneurons.paper_b.continual_report.forgetting_table`) and,
through :class:`RetentionSamples`, from the per-sample results on the training runs and
test samples a findings draw picks (B-F4's bands,
:func:`skillneurons.paper_b.continual_report.forgetting_intervals`, and its claims,
:func:`skillneurons.paper_b.continual_report.retention_claims`): each training run
against its own per-task FT, the mean over the drawn runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from skillneurons.paper_b.runs import RUNS, with_runs
from skillneurons.reporting.findings import Units


def retention(after: np.ndarray, alone: Sequence[float]) -> np.ndarray:
    """Eq. 5 as a ratio (x 100: %): ``FG_j`` for the stages ``j = 2..S``. ``after``:
    ``a_ij``, ``[tasks, S stages]``, rows the order's first tasks (at least ``S - 1``),
    column ``j - 1`` stage ``j`` (the entries ``i >= j`` are not read); ``alone``:
    their ``A_i``. A zero ``A_i`` gives an infinite or NaN ratio (the findings engine
    leaves such draws out)."""
    after = np.asarray(after, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = after / np.asarray(alone, np.float64)[:, None]
    return np.array([ratios[: j - 1, j - 1].mean() for j in range(2, after.shape[1] + 1)])


def sample_unit(task: str) -> str:
    """The resampling unit of ``task``'s test samples (shared by ``a_ij`` and ``A_i``)."""
    return f"{task}: test samples"


#: Per training run (position in :attr:`RetentionSamples.runs`), (stage, eval_task) ->
#: ``correct`` (bool per test sample) of one method in one order.
StageCorrect = list[dict[tuple[int, str], np.ndarray]]


@dataclass(frozen=True)
class RetentionSamples:
    """The per-sample results Eq. 5 reads, over the training runs (config
    ``paper_b.runs``): ``runs`` (their ids, in order), ``alone`` (per run, eval_task ->
    per-task FT's ``correct``) and ``orders`` (order name -> its tasks in stage order and,
    per method, :data:`StageCorrect`; empty dicts where a run has no result of the
    method)."""

    runs: list[int]
    alone: list[dict[str, np.ndarray]]
    orders: dict[str, tuple[list[str], dict[str, StageCorrect]]]

    @classmethod
    def of(
        cls,
        results: Mapping[str, pd.DataFrame],
        per_task: pd.DataFrame,
        methods: Sequence[str],
    ) -> RetentionSamples:
        """From the orders' results (``results``: order name -> every run's rows of
        :data:`skillneurons.paper_b.continual.COLUMNS`, with ``run``) and per-task FT's
        (every run's), for ``methods``. Rows without a ``run`` are run 0."""
        results = {name: with_runs(frame) for name, frame in results.items()}
        per_task = with_runs(per_task)
        runs = sorted({int(run) for frame in results.values() for run in frame["run"]})
        alone = [
            {r.eval_task: np.asarray(r.correct, bool) for r in rows.itertuples()}
            for rows in (per_task[per_task["run"] == run] for run in runs)
        ]
        orders = {}
        for name, frame in results.items():
            tasks = frame.drop_duplicates("stage").sort_values("stage")["stage_task"].tolist()
            correct = {
                method: [_stage_correct(frame[frame["run"] == run], method) for run in runs]
                for method in methods
            }
            orders[name] = (tasks, correct)
        return cls(runs, alone, orders)

    def has(self, method: str, order: str | None = None) -> bool:
        """Whether every run of ``order`` (default: of every order) has ``method``'s
        results."""
        names = [order] if order is not None else list(self.orders)
        return all(all(self.orders[name][1][method]) for name in names)

    def units(self, tasks: Sequence[str]) -> Units:
        """The training runs > the test samples of each of ``tasks`` (the same under
        every run, for ``a_ij`` and ``A_i``: crossed)."""
        samples = {sample_unit(task): len(self.alone[0][task]) for task in tasks}
        return Units(runs={RUNS: len(self.runs)}, samples=samples)

    def fg(
        self,
        order: str,
        method: str,
        indices: Mapping[str, np.ndarray],
        last: int | None = None,
    ) -> np.ndarray:
        """``[drawn runs, stages 2..last]`` (``last``: default the order's last stage):
        Eq. 5 (:func:`retention`) of ``method`` in ``order`` for every drawn run
        (``indices[RUNS]``) against that run's per-task FT, the accuracies on the drawn
        test samples (``indices[sample_unit(task)]``) of the tasks learnt before
        ``last``, the only ones it reads."""
        tasks, correct = self.orders[order]
        last = len(tasks) if last is None else last
        learnt = tasks[: last - 1]
        drawn = {task: indices[sample_unit(task)] for task in learnt}
        found = []
        for run in indices[RUNS]:
            after = np.full((len(learnt), last), np.nan)
            for stage in range(2, last + 1):
                for i, task in enumerate(learnt[: stage - 1]):
                    after[i, stage - 1] = correct[method][run][(stage, task)][drawn[task]].mean()
            alone = [self.alone[run][task][drawn[task]].mean() for task in learnt]
            found.append(retention(after, alone))
        return np.array(found)


def _stage_correct(frame: pd.DataFrame, method: str) -> dict[tuple[int, str], np.ndarray]:
    """(stage, eval_task) -> ``correct`` of ``method`` in one run's results of an order."""
    rows = frame[frame["method"] == method]
    return {(int(r.stage), r.eval_task): np.asarray(r.correct, bool) for r in rows.itertuples()}
