"""The effect of changing a task's neurons, shared by the deactivation and neuron-only
training reports (paper B, §4, A.4: B-T1, B-T2, B-F5).

Both experiments change one task's neurons (deactivated in the multi-task model, or
alone trained from the base model), change random sets of the same size the same way,
and score every task's test samples; their results frames are
:data:`skillneurons.paper_b.evaluation.COLUMNS`. What the two read alike lives here:
the random columns of B-T1 and B-T2 (:func:`random_columns`), B-F5's matrices and their
intervals (:func:`effect_matrix`, :func:`effect_intervals`), and the statistics their
claims decide: the task's neurons against random ones (:func:`random_vs_task`), the
dominance of B-F5's diagonal (:func:`diagonal_dominance`) and its control against
random neurons trained on the same data (:func:`diagonal_control`). Each experiment's
tables and claims are in its own report: :mod:`skillneurons.paper_b.deactivation_report`
(B-T1, B-F5a/b) and :mod:`skillneurons.paper_b.neuron_training_report` (B-T2, B-F5c/d).
Accuracies are shown in percent; random rows are summarised over their draws (mean and
sample std).

**Random neurons.** Paper B's baselines are "the same number of neurons randomly
selected": the rows that decide its claims (and B-F5c/d's controls) read the random sets
of that design, as many neurons as the task's drawn over all layers (condition
``random``, :mod:`skillneurons.paper_b.random_neurons`). Each has a row of its own,
marked as ours, against the stricter layer-matched sets (``random_layer_matched``: as
many neurons in every layer as the task's), with the same margin: the task's neurons
gather in some layers, and a claim that holds only against the paper's sets may be the
layers' doing.

The claims resample the training runs of their results (config ``paper_b.runs``: the
``run`` column, :data:`~skillneurons.paper_b.runs.RUNS`) as their top unit, the random
draws nested in each run, and the test samples (the same under every run) crossed with
them; a claim on fewer runs than ``findings.min_runs`` stays inconclusive
(:mod:`skillneurons.reporting.findings`). Results without a ``run`` column (the
untrained model's zero-shot scores) are one run, shared by every run they are compared
with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.paper_b.random_neurons import RANDOM, RANDOM_CONDITIONS
from skillneurons.paper_b.runs import RUNS, with_runs
from skillneurons.reporting.findings import (
    BootstrapSettings,
    Claim,
    Units,
    decide,
    unavailable,
)
from skillneurons.reporting.intervals import CELL_COLUMNS, interval
from skillneurons.reporting.stats import accuracy_summary

#: The paper value of a row against layer-matched random sets (ours): paper B measured
#: its number against random sets drawn over all layers.
LAYER_MATCHED_PAPER = "(paper B draws its random neurons over all layers: {} with those)"


def condition_scores(
    results: pd.DataFrame, condition: str, source: str, eval_task: str
) -> list[float]:
    """The ``score`` values (accuracy, or ROUGE-L for a generation task: the row's
    ``metric``) of the rows of one condition, source and evaluated task, in draw
    order."""
    chosen = results[
        (results["condition"] == condition)
        & (results["source"] == source)
        & (results["eval_task"] == eval_task)
    ]
    return chosen["score"].tolist()


def _random_summary(values: list[float]) -> tuple[float, float]:
    """Mean and sample std (NaN for one draw) of the random draws' accuracies, in %."""
    mean, std, _ = accuracy_summary(values)
    return 100 * mean, 100 * std


def random_columns(results: pd.DataFrame, prefix: str, task: str) -> dict[str, float]:
    """``{prefix}_{condition}`` and its ``_std`` for both kinds of random sets
    (:data:`~skillneurons.paper_b.random_neurons.RANDOM_CONDITIONS`: ``random``, paper
    B's, drawn over all layers; ``random_layer_matched``, ours) of ``task`` on ``task``,
    the mean and std over the draws in %, and ``random_draws`` (draws of each kind)."""
    columns, draws = {}, set()
    for condition in RANDOM_CONDITIONS:
        values = condition_scores(results, condition, task, task)
        mean, std = _random_summary(values)
        columns |= {f"{prefix}_{condition}": mean, f"{prefix}_{condition}_std": std}
        draws.add(len(values))
    if len(draws) != 1:
        raise ValueError(
            f"{task}'s results hold different numbers of draws of the two kinds of random "
            f"sets ({sorted(draws)}; {RANDOM_CONDITIONS}): rerun rules deactivation and "
            "neuron_training"
        )
    return {**columns, "random_draws": draws.pop()}


def effect_matrix(
    results: pd.DataFrame,
    reference: Mapping[str, float],
    sign: float = 1.0,
    condition: str = "task",
) -> pd.DataFrame:
    """B-F5: rows the task whose neurons were deactivated (or trained), columns the
    evaluated task; cell ``sign * (score - reference[eval task])`` in points, the score
    being accuracy (ROUGE-L for the generation panels b and d) (deactivation:
    ``sign = -1`` and the trained model's accuracy, the drop; training: the gain over
    zero-shot). ``condition`` ``random`` or ``random_layer_matched``: a control matrix
    of B-F5c/d, random neurons (drawn over all layers, or layer-matched) trained on the
    row's task, the score the mean over the draws."""
    tasks = list(dict.fromkeys(results.loc[results["condition"] == "task", "source"]))
    matrix = pd.DataFrame(index=pd.Index(tasks, name="neurons_of"), columns=tasks, dtype=float)
    for source in tasks:
        for task in tasks:
            scores = condition_scores(results, condition, source, task)
            if not scores:
                raise ValueError(
                    f"no {condition!r} result of {source}'s neurons on {task}: rerun its "
                    "training (results written before random trainings of both kinds "
                    "were tested on every task)"
                )
            matrix.loc[source, task] = 100 * sign * (np.mean(scores) - reference[task])
    return matrix.reset_index()


def effect_intervals(
    results: pd.DataFrame,
    reference: pd.DataFrame,
    settings: BootstrapSettings,
    sign: float = 1.0,
    condition: str = "task",
) -> pd.DataFrame:
    """B-F5's cells (:func:`effect_matrix` of the runs' mean) with their intervals.

    ``results`` are every run's rows (column ``run``; none: one run), ``reference`` the
    rows of the reference condition (``original``: each run's own; ``zero_shot``: the
    untrained model's, one run shared by every run). Cell (row task ``i``, evaluated
    task ``j``) is ``100 * sign * (score - reference score)`` of ``j``'s test samples
    (``sample_scores``: accuracy, or ROUGE-L F1), the mean over the runs (and, for a
    random ``condition``, over the random draws); its interval is
    :func:`skillneurons.reporting.intervals.interval`'s over the units of the diagonal
    claims (:func:`diagonal_dominance`): the training runs > the random draws
    (random conditions only) > ``j``'s test samples, the same under every run and draw.
    Columns :data:`skillneurons.reporting.intervals.CELL_COLUMNS` (row: the task whose
    neurons were changed, column: the evaluated task)."""
    results, reference = with_runs(results), with_runs(reference)
    trained = results[results["condition"] == condition]
    tasks = list(dict.fromkeys(results.loc[results["condition"] == "task", "source"]))
    runs = sorted(set(results.loc[results["condition"] == "task", "run"]))
    draws = int(trained["draw"].max()) + 1
    scores = {(r.run, r.source, r.eval_task, r.draw): np.asarray(r.sample_scores, np.float64)
              for r in trained.itertuples()}  # fmt: skip
    own = {(r.run, r.eval_task): np.asarray(r.sample_scores, np.float64)
           for r in reference.itertuples()}  # fmt: skip
    shared = len({run for run, _ in own}) == 1
    cells = []
    for source in tasks:
        for task in tasks:
            samples = len(own[(0 if shared else runs[0], task)])
            units = Units(
                runs={RUNS: len(runs)},
                draws={"random draws": draws} if condition in RANDOM_CONDITIONS else {},
                samples={"test samples": samples},
            )

            def statistic(i, source=source, task=task) -> float:
                chosen = i["test samples"]
                changes = [
                    np.mean(
                        [
                            scores[(run, source, task, int(d))][chosen].mean()
                            for d in i.get("random draws", [0])
                        ]
                    )  # fmt: skip
                    - own[(0 if shared else run, task)][chosen].mean()
                    for run in (runs[r] for r in i[RUNS])
                ]
                return 100 * sign * float(np.mean(changes))

            stream = f"effect {condition} {sign:g} {source} {task}"
            cells.append([source, task, *interval(statistic, units, settings, stream),
                          units.describe()])  # fmt: skip
    return pd.DataFrame(cells, columns=CELL_COLUMNS)


def reference_scores(results: pd.DataFrame, condition: str) -> dict[str, float]:
    """Per evaluated task, the ``score`` (accuracy, or ROUGE-L) of the ``condition``
    rows (original, zero_shot)."""
    chosen = results[results["condition"] == condition]
    return dict(zip(chosen["eval_task"], chosen["score"], strict=True))


def trained_runs(results: pd.DataFrame) -> list[int]:
    """The training runs of the trained (``task``) rows of ``results``, in order."""
    trained = with_runs(results)
    return sorted(set(trained.loc[trained["condition"] == "task", "run"]))


def _cells(
    results: pd.DataFrame, column: str = "sample_scores"
) -> dict[tuple[int, str, str, str, int], np.ndarray]:
    """(run, condition, source, eval_task, draw) -> per test sample score: ``column`` as
    floats (``sample_scores``: 1 or 0 for a label, the ROUGE-L F1 for generation)."""
    return {
        (int(row.run), row.condition, row.source, row.eval_task, int(row.draw)): np.asarray(
            getattr(row, column), np.float64
        )
        for row in with_runs(results).itertuples()
    }


def _mean_score(scores: np.ndarray, indices: Mapping[str, np.ndarray], task: str) -> float:
    return float(scores[indices[f"{task}: test samples"]].mean())


def _draws(results: pd.DataFrame, random: str) -> int:
    """How many draws of the random sets of condition ``random`` ``results`` holds (0:
    none)."""
    drawn = results.loc[results["condition"] == random, "draw"]
    return 0 if drawn.empty else int(drawn.max()) + 1


def _units(results: pd.DataFrame, tasks, random: str | None, column: str) -> Units:
    """The training runs > the draws of the random sets of condition ``random`` (None:
    no draws) > each task's test samples."""
    cells = _cells(results, column)
    samples = {}
    for task in tasks:
        sample = next(v for key, v in cells.items() if key[3] == task)
        samples[f"{task}: test samples"] = len(sample)
    draws = {} if random is None else {"random draws": _draws(results, random)}
    return Units(runs={RUNS: len(trained_runs(results))}, draws=draws, samples=samples)


def _no_random_sets(claim: Claim, random: str) -> dict:
    """The row of a claim whose results hold no random sets of condition ``random``."""
    return unavailable(
        claim,
        f"no {random!r} random sets in the results (written before paper B's random sets "
        "and the layer-matched ones were both drawn): rerun rules deactivation and "
        "neuron_training",
    )


def random_vs_task(
    claim: Claim,
    results: pd.DataFrame,
    better: str,
    settings: BootstrapSettings,
    column: str = "sample_scores",
    random: str = RANDOM,
) -> dict:
    """``better`` is ``"random"`` (deactivation: the random sets must score higher) or
    ``"task"`` (training: the task's neurons must); the random sets are those of
    condition ``random`` (:data:`~skillneurons.paper_b.random_neurons.RANDOM`, paper
    B's, or :data:`~skillneurons.paper_b.random_neurons.RANDOM_LAYER_MATCHED`, ours);
    each test sample scores its ``column``."""
    cells = _cells(results, column)
    tasks = list(dict.fromkeys(results.loc[results["condition"] == "task", "source"]))
    draws = _draws(results, random)
    if not draws:
        return _no_random_sets(claim, random)
    runs = trained_runs(results)

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        gaps = []
        for run in (runs[r] for r in indices[RUNS]):
            for task in tasks:
                own = _mean_score(cells[(run, "task", task, task, 0)], indices, task)
                drawn = np.mean(
                    [
                        _mean_score(
                            cells[(run, random, task, task, int(d % draws))], indices, task
                        )
                        for d in indices["random draws"]
                    ]
                )
                gaps.append(drawn - own if better == "random" else own - drawn)
        return float(np.mean(gaps))

    return decide(claim, statistic, _units(results, tasks, random, column), settings)


def diagonal_dominance(
    claim: Claim,
    results: pd.DataFrame,
    reference: Mapping[tuple[int, str], np.ndarray],
    sign: float,
    settings: BootstrapSettings,
    column: str = "sample_scores",
) -> dict:
    """Per run and task ``i``: ``sign * (change_ii - mean of change_ij, change_ji, j !=
    i)``, where ``change_ij`` is task ``j``'s score (mean ``column`` per test sample)
    with task ``i``'s neurons deactivated (or trained) minus ``reference[(run, j)]``'s
    (as trained, or zero-shot: :func:`reference_cells`); ``sign`` -1 turns accuracy
    changes into drops. The mean over runs and tasks."""
    cells = _cells(results, column)
    tasks = list(dict.fromkeys(results.loc[results["condition"] == "task", "source"]))
    if len(tasks) < 2:
        return unavailable(claim, "one task: no off-diagonal cells")
    runs = trained_runs(results)

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        margins = []
        for run in (runs[r] for r in indices[RUNS]):
            base = {task: _mean_score(reference[(run, task)], indices, task) for task in tasks}
            change = {
                (i, j): sign * (_mean_score(cells[(run, "task", i, j, 0)], indices, j) - base[j])
                for i in tasks
                for j in tasks
            }
            margins.append(_diagonal_margins(change, tasks))
        return float(np.mean(margins))

    return decide(claim, statistic, _units(results, tasks, None, column), settings)


def _diagonal_margins(change: Mapping[tuple[str, str], float], tasks) -> np.ndarray:
    """Per task ``i``: ``change_ii`` minus the mean of the other cells of row ``i`` and
    column ``i`` (``change``: (row task, column task) -> cell)."""
    margins = []
    for i in tasks:
        others = [change[(i, j)] for j in tasks if j != i]
        others += [change[(j, i)] for j in tasks if j != i]
        margins.append(change[(i, i)] - np.mean(others))
    return np.asarray(margins)


def diagonal_control(
    claim: Claim,
    results: pd.DataFrame,
    settings: BootstrapSettings,
    column: str = "sample_scores",
    random: str = RANDOM,
) -> dict:
    """B-F5c/d's control (ours). Training task ``i``'s neurons on task ``i``'s data and
    testing on ``j`` favours the diagonal by construction: random neurons trained on
    ``i``'s data would help ``i`` most too. So per task ``i``: the diagonal margin of
    :func:`diagonal_dominance` (cell ``ij``: task ``j``'s score, mean ``column`` per
    test sample, after training task ``i``'s neurons) minus the same margin of the
    random matrix (cell ``ij``: after training a random set of condition ``random`` on
    task ``i``, :data:`~skillneurons.paper_b.random_neurons.RANDOM` drawn over all
    layers or :data:`~skillneurons.paper_b.random_neurons.RANDOM_LAYER_MATCHED`, mean
    over the resampled random draws); task mean. The reference score (zero-shot)
    cancels in the difference, so none is needed. Positive: the task's own neurons make
    the diagonal dominate more than random ones."""
    cells = _cells(results, column)
    tasks = list(dict.fromkeys(results.loc[results["condition"] == "task", "source"]))
    if len(tasks) < 2:
        return unavailable(claim, "one task: no off-diagonal cells")
    draws = _draws(results, random)
    if not draws:
        return _no_random_sets(claim, random)
    runs = trained_runs(results)
    missing = [
        (run, i, j, d)
        for run in runs
        for i in tasks
        for j in tasks
        for d in range(draws)
        if (run, random, i, j, d) not in cells
    ]
    if missing:
        run, i, j, d = missing[0]
        return unavailable(
            claim,
            f"random draw {d} of run {run} trained on {i} was not tested on {j} (results "
            "written before random trainings were tested on every task): rerun its training",
        )

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        margins = []
        for run in (runs[r] for r in indices[RUNS]):
            own = {
                (i, j): _mean_score(cells[(run, "task", i, j, 0)], indices, j)
                for i in tasks
                for j in tasks
            }
            random_cells = {
                (i, j): np.mean(
                    [
                        _mean_score(cells[(run, random, i, j, int(d))], indices, j)
                        for d in indices["random draws"]
                    ]
                )
                for i in tasks
                for j in tasks
            }
            margins.append(_diagonal_margins(own, tasks) - _diagonal_margins(random_cells, tasks))
        return float(np.mean(margins))

    return decide(claim, statistic, _units(results, tasks, random, column), settings)


def reference_cells(
    results: pd.DataFrame, condition: str, runs: Sequence[int], column: str = "sample_scores"
) -> dict[tuple[int, str], np.ndarray]:
    """Per run of ``runs`` and evaluated task, the per-sample scores (``column``, as
    :func:`_cells` reads them) of its ``condition`` row: the run's own (``original``:
    each run's multi-task model), or, where ``results`` has one run (``zero_shot``: the
    untrained model), that run's under every run."""
    cells = _cells(results[results["condition"] == condition], column)
    own = {(run, task): scores for (run, _, _, task, _), scores in cells.items()}
    single = len({run for run, _ in own}) == 1
    tasks = dict.fromkeys(task for _, task in own)
    return {(run, task): own[(0 if single else run, task)] for run in runs for task in tasks}
