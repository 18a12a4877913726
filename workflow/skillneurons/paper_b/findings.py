"""Paper B's findings (part 1) and the A-vs-B comparison, decided by the findings engine.

=============================================  ============================================
claim                                          effect; resampled
=============================================  ============================================
deactivating task neurons hurts more than      accuracy with random neurons deactivated
random ones (§4.1, B-T1: 76.0 vs 84.8)         minus with the task's, task mean; runs >
                                               random draws > test samples of each task
... than layer-matched random ones (ours)      the same against the layer-matched sets
training task neurons gains more than          accuracy after training the task's
training random ones (§4.2, B-T2: 29.9 vs      neurons minus after training random ones,
1.5 points)                                    task mean; runs > random draws > samples
... than layer-matched random ones (ours)      the same against the layer-matched sets
deactivation is task-specific (A.4, B-F5a)     per task, its drop when its own neurons are
                                               off minus the mean drop of the row's and
                                               column's other cells; runs > samples
training is task-specific (A.4, B-F5c)         the same with the gains over zero-shot
the task's own neurons make B-F5c's diagonal   B-F5c's per-task margin above minus the
dominate more than random neurons trained on   same margin of the matrix of random neurons
the same data (control; ours)                  trained on the row's task, task mean; runs
                                               > random draws > samples
... than layer-matched random neurons (ours)   the same with the layer-matched sets
generation: deactivating and training task     the eight claims above on the generation
neurons, and task-specifically (B-T1, B-T2,    tasks (where a causal LM runs them), each
B-F5b, B-F5d, B-F5d's controls)                test sample scored by its ROUGE-L F1
A and B rank neurons alike (AB-T1; new)        Spearman's rho of the trial's predictivity
                                               and relevance on its model over all
                                               neurons, trial and task mean; trials, tasks
their top neurons overlap (AB-T1; new)         top-k Jaccard minus its chance k/(2-k),
                                               trial and task mean; trials, tasks
A's / B's top neurons matter on the prompt-    area under the layer-matched random curve
tuned model (AB-F1; new)                       minus under the order's curve (AB-F1),
                                               task mean; trials > random orders > test
                                               samples
A's order hurts its own model more than B's    area under B's curve minus under A's,
(AB-F1; new)                                   task mean; trials > test samples
=============================================  ============================================

**Random neurons.** Paper B's baselines are "the same number of neurons randomly
selected": the rows that decide its claims (and B-F5c/d's controls) read the random sets
of that design, as many neurons as the task's drawn over all layers (condition
``random``, :mod:`skillneurons.paper_b.random_neurons`). Each has a row of its own,
marked as ours, against the stricter layer-matched sets (``random_layer_matched``: as
many neurons in every layer as the task's), with the same margin: the task's neurons
gather in some layers, and a claim that holds only against the paper's sets may be the
layers' doing.

The part-1 claims resample the training runs of their results (config
``paper_b.runs``: the ``run`` column, :data:`RUNS`) as their top unit, the random draws
nested in each run, and the test samples (the same under every run) crossed with them;
a claim on fewer runs than ``findings.min_runs`` stays inconclusive
(:mod:`skillneurons.reporting.findings`). Results without a ``run`` column (the
untrained model's zero-shot scores) are one run, shared by every run they are compared
with. The AB claims stand on paper A's prompt trials: on each trial's model, that
trial's ranking (Eq. 6 of the trial alone) against paper B's relevance on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.neurons.perturbation.curve_table import LAYER_MATCHED
from skillneurons.paper_b.random_neurons import RANDOM, RANDOM_LAYER_MATCHED
from skillneurons.paper_b.runs import RUNS, with_runs
from skillneurons.reporting.curves import AREA_BASIS, AREA_MARGIN, TaskCurves
from skillneurons.reporting.findings import (
    NOT_DECIDABLE,
    BootstrapSettings,
    Claim,
    Units,
    decide,
    findings_frame,
    refuse,
    unavailable,
)

#: The paper value of a row against layer-matched random sets (ours): paper B measured
#: its number against random sets drawn over all layers.
LAYER_MATCHED_PAPER = "(paper B draws its random neurons over all layers: {} with those)"

DEACTIVATION_VS_RANDOM = Claim(
    "deactivating a task's neurons hurts it more than deactivating random neurons",
    "§4.1, B-T1",
    "accuracy with random k% deactivated (as many neurons, drawn over all layers) - with "
    "the task's k% deactivated, task mean",
    "training runs > random draws > test samples of each task",
    "84.8 vs 76.0 (classification mean)",
    margin=0.044,
    margin_basis="half the paper's effect (B-T1: 84.8 vs 76.0, 8.8 points)",
    key="deactivation_vs_random",
)
DEACTIVATION_VS_LAYER_MATCHED = Claim(
    "deactivating a task's neurons hurts it more than deactivating layer-matched random "
    "neurons (ours)",
    "§4.1, B-T1 (ours: layer-matched random neurons)",
    "accuracy with layer-matched random neurons deactivated (as many in every layer as the "
    "task's k%) - with the task's k% deactivated, task mean",
    "training runs > random draws > test samples of each task",
    LAYER_MATCHED_PAPER.format("84.8 vs 76.0"),
    margin=0.044,
    margin_basis="half the paper's effect (B-T1: 84.8 vs 76.0, 8.8 points), as its row",
    key="deactivation_vs_layer_matched",
)
TRAINING = Claim(
    "training only a task's neurons gains more than training random neurons",
    "§4.2, B-T2",
    "accuracy after training the task's k% - after training random k% (as many neurons, "
    "drawn over all layers), task mean",
    "training runs > random draws > test samples of each task",
    "gains 29.9 vs 1.5 points",
    margin=0.142,
    margin_basis="half the paper's effect (B-T2: gains 29.9 vs 1.5, 28.4 points)",
    key="training",
)
TRAINING_VS_LAYER_MATCHED = Claim(
    "training only a task's neurons gains more than training layer-matched random neurons (ours)",
    "§4.2, B-T2 (ours: layer-matched random neurons)",
    "accuracy after training the task's k% - after training layer-matched random neurons "
    "(as many in every layer as the task's k%), task mean",
    "training runs > random draws > test samples of each task",
    LAYER_MATCHED_PAPER.format("gains 29.9 vs 1.5 points"),
    margin=0.142,
    margin_basis="half the paper's effect (B-T2: gains 29.9 vs 1.5, 28.4 points), as its row",
    key="training_vs_layer_matched",
)
DEACTIVATION_SPECIFIC = Claim(
    "deactivating a task's neurons hurts that task most (the diagonal dominates)",
    "A.4, B-F5a",
    "own drop - mean drop of the other cells of its row and column, task mean",
    "training runs > test samples of each task",
    "the diagonal dominates its row and column",
    margin=0.05,
    margin_basis="smallest effect of interest: 5 points of accuracy (B-F5a gives no number)",
    key="deactivation_specific",
)
TRAINING_SPECIFIC = Claim(
    "training a task's neurons helps that task most (the diagonal dominates)",
    "A.4, B-F5c",
    "own gain over zero-shot - mean gain of the other cells of its row and column",
    "training runs > test samples of each task",
    "the diagonal dominates, 4 of 12 tasks excepted",
    margin=0.05,
    margin_basis="smallest effect of interest: 5 points of accuracy (B-F5c gives no number)",
    key="training_specific",
)
TRAINING_CONTROL = Claim(
    "training a task's own neurons makes the diagonal dominate more than training random "
    "neurons on the same data",
    "A.4, B-F5c (control; ours)",
    "B-F5c's margin (own gain - mean gain of the other cells of its row and column) - "
    "the same margin with random neurons (drawn over all layers) trained, task mean",
    "training runs > random draws > test samples of each task",
    "(paper B has no random matrix; its diagonal dominates)",
    margin=0.05,
    margin_basis="smallest effect of interest: 5 points of accuracy",
    key="training_control",
)
TRAINING_CONTROL_LAYER_MATCHED = Claim(
    "training a task's own neurons makes the diagonal dominate more than training "
    "layer-matched random neurons on the same data",
    "A.4, B-F5c (ours: the control with layer-matched random neurons)",
    "B-F5c's margin (own gain - mean gain of the other cells of its row and column) - "
    "the same margin with layer-matched random neurons trained, task mean",
    "training runs > random draws > test samples of each task",
    "(paper B has no random matrix; its diagonal dominates)",
    margin=0.05,
    margin_basis="smallest effect of interest: 5 points of accuracy",
    key="training_control_layer_matched",
)
DEACTIVATION_GENERATION = Claim(
    "deactivating a generation task's neurons hurts it more than deactivating random neurons",
    "§4.1, B-T1 (generation)",
    "ROUGE-L F1 with random k% deactivated (as many neurons, drawn over all layers) - "
    "with the task's k% deactivated, task mean",
    "training runs > random draws > test samples of each generation task",
    "42.3 vs 32.0 (generation mean)",
    margin=0.0515,
    margin_basis="half the paper's effect (B-T1: 42.3 vs 32.0 ROUGE-L, 10.3 points)",
    key="deactivation_generation",
)
DEACTIVATION_GENERATION_LAYER_MATCHED = Claim(
    "deactivating a generation task's neurons hurts it more than deactivating "
    "layer-matched random neurons (ours)",
    "§4.1, B-T1 (generation; ours: layer-matched random neurons)",
    "ROUGE-L F1 with layer-matched random neurons deactivated (as many in every layer as "
    "the task's k%) - with the task's k% deactivated, task mean",
    "training runs > random draws > test samples of each generation task",
    LAYER_MATCHED_PAPER.format("42.3 vs 32.0"),
    margin=0.0515,
    margin_basis="half the paper's effect (B-T1: 42.3 vs 32.0 ROUGE-L, 10.3 points), as its row",
    key="deactivation_generation_layer_matched",
)
DEACTIVATION_SPECIFIC_GENERATION = Claim(
    "deactivating a generation task's neurons hurts that task most (the diagonal dominates)",
    "A.4, B-F5b",
    "own ROUGE-L F1 drop - mean drop of the other cells of its row and column, task mean",
    "training runs > test samples of each generation task",
    "the diagonal dominates its row and column",
    margin=0.05,
    margin_basis="smallest effect of interest: 5 points of ROUGE-L F1 (B-F5b gives no number)",
    key="deactivation_specific_generation",
)
TRAINING_GENERATION = Claim(
    "training only a generation task's neurons gains more than training random neurons",
    "§4.2, B-T2 (generation)",
    "ROUGE-L F1 after training the task's k% - after training random k% (as many neurons, "
    "drawn over all layers), task mean",
    "training runs > random draws > test samples of each generation task",
    "gains 17.2 vs 2.7 points",
    margin=0.0725,
    margin_basis="half the paper's effect (B-T2: gains 17.2 vs 2.7 ROUGE-L, 14.5 points)",
    key="training_generation",
)
TRAINING_GENERATION_LAYER_MATCHED = Claim(
    "training only a generation task's neurons gains more than training layer-matched "
    "random neurons (ours)",
    "§4.2, B-T2 (generation; ours: layer-matched random neurons)",
    "ROUGE-L F1 after training the task's k% - after training layer-matched random "
    "neurons (as many in every layer as the task's k%), task mean",
    "training runs > random draws > test samples of each generation task",
    LAYER_MATCHED_PAPER.format("gains 17.2 vs 2.7 points"),
    margin=0.0725,
    margin_basis="half the paper's effect (B-T2: gains 17.2 vs 2.7 ROUGE-L, 14.5 points), "
    "as its row",
    key="training_generation_layer_matched",
)
GENERATION_SPECIFIC = Claim(
    "training a generation task's neurons helps that task most (the diagonal dominates)",
    "A.4, B-F5d",
    "own ROUGE-L F1 gain over zero-shot - mean gain of the other cells of its row and column",
    "training runs > test samples of each generation task",
    "the diagonal dominates, E2E and CommonGen excepted",
    margin=0.05,
    margin_basis="smallest effect of interest: 5 points of ROUGE-L F1 (B-F5d gives no number)",
    key="generation_specific",
)
GENERATION_CONTROL = Claim(
    "training a generation task's own neurons makes the diagonal dominate more than "
    "training random neurons on the same data",
    "A.4, B-F5d (control; ours)",
    "B-F5d's ROUGE-L F1 margin (own gain - mean gain of the other cells of its row and "
    "column) - the same margin with random neurons (drawn over all layers) trained, task "
    "mean",
    "training runs > random draws > test samples of each generation task",
    "(paper B has no random matrix; its diagonal dominates)",
    margin=0.05,
    margin_basis="smallest effect of interest: 5 points of ROUGE-L F1",
    key="generation_control",
)
GENERATION_CONTROL_LAYER_MATCHED = Claim(
    "training a generation task's own neurons makes the diagonal dominate more than "
    "training layer-matched random neurons on the same data",
    "A.4, B-F5d (ours: the control with layer-matched random neurons)",
    "B-F5d's ROUGE-L F1 margin (own gain - mean gain of the other cells of its row and "
    "column) - the same margin with layer-matched random neurons trained, task mean",
    "training runs > random draws > test samples of each generation task",
    "(paper B has no random matrix; its diagonal dominates)",
    margin=0.05,
    margin_basis="smallest effect of interest: 5 points of ROUGE-L F1",
    key="generation_control_layer_matched",
)
RANK_CORRELATION = Claim(
    "paper A's predictivity and paper B's relevance rank neurons alike",
    "new, AB-T1",
    "Spearman's rho of a trial's predictivity and paper B's relevance on its model over "
    "all neurons, trial and task mean",
    "prompt trials (one value over all neurons each; the tasks fixed)",
    "(no paper has it)",
    margin=0.1,
    margin_basis="smallest effect of interest: 0.1 Spearman (no paper has it)",
    key="rank_correlation",
)
OVERLAP = Claim(
    "paper A's and paper B's top neurons overlap more than chance",
    "new, AB-T1",
    "Jaccard index of the two top-k sets - its chance k/(2-k), trial and task mean",
    "prompt trials (one value over all neurons each; the tasks fixed)",
    "(no paper has it)",
    margin=0.05,
    margin_basis="smallest effect of interest: 0.05 Jaccard above chance (no paper has it)",
    key="overlap",
)


A_ORDER = Claim(
    "deactivating paper A's top neurons hurts the prompt-tuned model more than random ones",
    "new, AB-F1",
    "area(layer-matched random) - area(paper A's order), task mean",
    "test samples of each task, random orders",
    "(paper A's §4.2 claim, with deactivation)",
    margin=AREA_MARGIN,
    margin_basis=AREA_BASIS,
    key="a_order",
)
B_ORDER = Claim(
    "deactivating paper B's top neurons hurts the prompt-tuned model more than random ones",
    "new, AB-F1",
    "area(layer-matched random) - area(paper B's order), task mean",
    "test samples of each task, random orders",
    "(paper B's §4.1 claim, on paper A's model)",
    margin=AREA_MARGIN,
    margin_basis=AREA_BASIS,
    key="b_order",
)
A_OVER_B = Claim(
    "on its own prompt-tuned model, paper A's order hurts more than paper B's",
    "new, AB-F1",
    "area(paper B's order) - area(paper A's order), task mean",
    "test samples of each task",
    "(no paper has it)",
    margin=0.01,
    margin_basis="smallest effect of interest: an area of 0.01, half the central claim's margin",
    key="a_over_b",
)


def _runs(results: pd.DataFrame) -> list[int]:
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
    return Units(runs={RUNS: len(_runs(results))}, draws=draws, samples=samples)


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
    condition ``random`` (:data:`RANDOM`, paper B's, or :data:`RANDOM_LAYER_MATCHED`,
    ours); each test sample scores its ``column``."""
    cells = _cells(results, column)
    tasks = list(dict.fromkeys(results.loc[results["condition"] == "task", "source"]))
    draws = _draws(results, random)
    if not draws:
        return _no_random_sets(claim, random)
    runs = _runs(results)

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
    (as trained, or zero-shot: :func:`_references`); ``sign`` -1 turns accuracy changes
    into drops. The mean over runs and tasks."""
    cells = _cells(results, column)
    tasks = list(dict.fromkeys(results.loc[results["condition"] == "task", "source"]))
    if len(tasks) < 2:
        return unavailable(claim, "one task: no off-diagonal cells")
    runs = _runs(results)

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


def by_construction(row: dict) -> dict:
    """B-F5c/d's diagonal taken out of the test (``not decidable here``): each row of the
    matrix trains on its own task's data, so its diagonal dominates whatever neurons are
    trained (random ones too: the control row, :func:`diagonal_control`, decides). The
    estimate and interval stay as a description."""
    return refuse(
        row,
        "each row trains on its own task's data, so the diagonal dominates by "
        "construction (random neurons trained on the same data do too): the control row "
        "against random neurons decides",
        NOT_DECIDABLE,
    )


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
    task ``i``, :data:`RANDOM` drawn over all layers or :data:`RANDOM_LAYER_MATCHED`,
    mean over the resampled random draws); task mean. The reference score (zero-shot)
    cancels in the difference, so none is needed. Positive: the task's own neurons make
    the diagonal dominate more than random ones."""
    cells = _cells(results, column)
    tasks = list(dict.fromkeys(results.loc[results["condition"] == "task", "source"]))
    if len(tasks) < 2:
        return unavailable(claim, "one task: no off-diagonal cells")
    draws = _draws(results, random)
    if not draws:
        return _no_random_sets(claim, random)
    runs = _runs(results)
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


def _references(
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


def generation_claims(
    deactivation: pd.DataFrame, training: pd.DataFrame, settings: BootstrapSettings
) -> list[dict]:
    """B-T1's, B-T2's, B-F5b's, B-F5d's and its controls' claims on the generation
    tasks, each against paper B's random sets and (ours) the layer-matched ones: their
    ``deactivation`` results (the multi-task model's original, task and random rows)
    and ``training`` results (every task's zero-shot, task and random rows, each
    training tested on every task), each test sample scored by its ROUGE-L F1."""
    original = _references(deactivation, "original", _runs(deactivation))
    untrained = _references(training, "zero_shot", _runs(training))
    return [
        random_vs_task(DEACTIVATION_GENERATION, deactivation, "random", settings),
        random_vs_task(
            DEACTIVATION_GENERATION_LAYER_MATCHED,
            deactivation,
            "random",
            settings,
            random=RANDOM_LAYER_MATCHED,
        ),  # fmt: skip
        random_vs_task(TRAINING_GENERATION, training, "task", settings),
        random_vs_task(
            TRAINING_GENERATION_LAYER_MATCHED,
            training,
            "task",
            settings,
            random=RANDOM_LAYER_MATCHED,
        ),  # fmt: skip
        diagonal_dominance(
            DEACTIVATION_SPECIFIC_GENERATION, deactivation, original, -1.0, settings
        ),
        by_construction(
            diagonal_dominance(GENERATION_SPECIFIC, training, untrained, 1.0, settings)
        ),
        diagonal_control(GENERATION_CONTROL, training, settings),
        diagonal_control(
            GENERATION_CONTROL_LAYER_MATCHED, training, settings, random=RANDOM_LAYER_MATCHED
        ),
    ]


def comparison_claims(
    agreements: Mapping[str, Sequence[Mapping[str, float]]], settings: BootstrapSettings
) -> list[dict]:
    """The two AB claims from each task's rank agreements, one per prompt trial (the
    ``trials`` of its comparison file, :func:`skillneurons.paper_b.comparison.
    ranking_agreement`: paper A's ranking of the trial and paper B's relevance on the
    same prompt-tuned model). Per trial and task one value over all its neurons; the
    **trials** (the training runs) are resampled, the tasks fixed (the claim is about
    the mean over these tasks; with the neurons resampled, any association among
    thousands of them would hold)."""
    tasks = list(agreements)
    counts = {len(agreements[task]) for task in tasks}
    if len(counts) != 1:
        raise ValueError(f"the tasks' comparisons cover different numbers of trials: {counts}")

    def values(read) -> np.ndarray:  # [trials, tasks]
        return np.array([[read(trial) for trial in agreements[task]] for task in tasks]).T

    rhos = values(lambda trial: trial["spearman"])
    gaps = values(lambda trial: trial["jaccard"] - trial["jaccard_chance"])
    units = Units(runs={"trials": rhos.shape[0]}, fixed={"tasks": len(tasks)})
    return [
        decide(RANK_CORRELATION, _cell_mean(rhos), units, settings),
        decide(OVERLAP, _cell_mean(gaps), units, settings),
    ]


def _cell_mean(values: np.ndarray):
    return lambda indices: float(values[np.ix_(indices["trials"], indices["tasks"])].mean())


def curve_claims(curves: Mapping[str, TaskCurves], settings: BootstrapSettings) -> list[dict]:
    """The AB-F1 claims on each task's A-vs-B curves (:class:`TaskCurves` of its
    comparison file): each order against its layer-matched random orders, and A's
    order against B's; trials > random orders > test samples."""
    first = next(iter(curves.values()))
    units = Units(
        runs={"trials": first.trials},
        draws={"random orders": first.repeats},
        samples={f"{task}: test samples": curve.samples for task, curve in curves.items()},
    )

    def gap(better: tuple[str, str], worse: tuple[str, str]):
        def statistic(indices: Mapping[str, np.ndarray]) -> float:
            return float(
                np.mean(
                    [
                        curve.area(better, indices, task) - curve.area(worse, indices, task)
                        for task, curve in curves.items()
                    ]
                )
            )

        return statistic

    a, b = ("task", "paper_a"), ("task", "paper_b")
    return [
        decide(A_ORDER, gap((LAYER_MATCHED, "random_paper_a"), a), units, settings),
        decide(B_ORDER, gap((LAYER_MATCHED, "random_paper_b"), b), units, settings),
        decide(A_OVER_B, gap(b, a), units, settings),
    ]


def findings_table(
    deactivation: pd.DataFrame,
    training: pd.DataFrame,
    zero_shot: pd.DataFrame,
    agreements: Mapping[str, Sequence[Mapping[str, float]]],
    curves: Mapping[str, TaskCurves],
    settings: BootstrapSettings,
    generation: Mapping[str, pd.DataFrame] | None = None,
    more: Sequence[dict] = (),
    primary: Sequence[str] = (),
) -> pd.DataFrame:
    """Paper B's part-1 claims and the AB claims (the module docstring), one row each,
    then the rows ``more`` (§5's: :mod:`skillneurons.paper_b.generalization_findings`).

    ``deactivation`` holds B-T1's results (with ``original`` rows), ``training`` every
    task's B-T2 results, ``zero_shot`` the untrained model's; ``agreements`` (AB-T1,
    one per trial) and ``curves`` (AB-F1) are per task on paper A's prompt-tuned
    models; ``generation`` (where the model runs the generation tasks) the generation
    tasks' ``deactivation`` and ``training`` results (:func:`generation_claims`);
    ``primary`` the keys of the primary family (config ``findings.primary``,
    :data:`skillneurons.paper_b.registry.CLAIMS`): Holm runs within it and within the
    rest apart."""
    original = _references(deactivation, "original", _runs(deactivation))
    untrained = _references(zero_shot, "zero_shot", _runs(training))
    rows = [
        random_vs_task(DEACTIVATION_VS_RANDOM, deactivation, "random", settings),
        random_vs_task(
            DEACTIVATION_VS_LAYER_MATCHED,
            deactivation,
            "random",
            settings,
            random=RANDOM_LAYER_MATCHED,
        ),  # fmt: skip
        random_vs_task(TRAINING, training, "task", settings),
        random_vs_task(
            TRAINING_VS_LAYER_MATCHED, training, "task", settings, random=RANDOM_LAYER_MATCHED
        ),
        diagonal_dominance(DEACTIVATION_SPECIFIC, deactivation, original, -1.0, settings),
        by_construction(diagonal_dominance(TRAINING_SPECIFIC, training, untrained, 1.0, settings)),
        diagonal_control(TRAINING_CONTROL, training, settings),
        diagonal_control(
            TRAINING_CONTROL_LAYER_MATCHED, training, settings, random=RANDOM_LAYER_MATCHED
        ),
        *([] if generation is None else generation_claims(**generation, settings=settings)),
        *comparison_claims(agreements, settings),
        *curve_claims(curves, settings),
        *more,
    ]
    return findings_frame(rows, settings.alpha, primary)
