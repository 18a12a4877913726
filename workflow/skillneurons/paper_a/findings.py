"""Paper A's findings: each claim of sections 4-5 decided by the findings engine.

Every claim is an effect, signed so that positive supports the claim, with a paired
bootstrap confidence interval (:mod:`skillneurons.reporting.findings`). The effects and
what is resampled:

==========================================  =================================================
claim (paper A)                             effect; resampled
==========================================  =================================================
top skill neurons matter (§4.2, A-F4)       area under the layer-matched random curve minus
                                            the area under the own-order curve, mean over
                                            evaluation tasks; test samples (per task),
                                            trials, random orders
same-type tasks correlate (§4.3, A-F5)      mean Spearman of same-type minus cross-type task
                                            pairs (layer means); neurons
same-type importance (§4.3, A-F6)           mean z-scored importance of same-type minus
                                            cross-type source tasks; test samples, trials,
                                            random orders
predictivity beats selectivity (App. H)     area under the selectivity-order curve minus the
                                            predictivity order's; test samples, trials
random label words agree (§4.4)             mean pairwise Spearman of the draws' orders;
                                            neurons
pre-training makes skill neurons (§5)       top-neuron test accuracy with random prompts,
                                            pre-trained minus random model; test samples,
                                            trials
other tuning methods use them (§5)          per method, as the first row, on the adapter or
                                            BitFit models' curves in prompt-tuning orders
==========================================  =================================================

Areas are trapezoid areas under accuracy-vs-rate curves (a larger area: less accuracy
lost). The layer-matched control perturbs, at every rate, as many neurons of each
layer as the own order, at random within the layers: skill neurons concentrate in a
few layers, and a uniform random order would compare them with other layers too.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.neurons.perturbation.curve_table import LAYER_MATCHED
from skillneurons.reporting.curves import TaskCurves, task_curves
from skillneurons.reporting.findings import (
    BootstrapSettings,
    Claim,
    decide,
    findings_frame,
    unavailable,
)
from skillneurons.reporting.resampling import ResampledRanks
from skillneurons.reporting.stats import zscore

TOP = Claim(
    "perturbing a task's top skill neurons hurts more than random neurons",
    "§4.2, A-F4/A-F11",
    "area(layer-matched random) - area(own order), mean over evaluation tasks",
    "test samples of each task, trials, random orders",
    "own order below random at every rate (Figure 4)",
)
CORRELATION = Claim(
    "predictivity orders of same-type tasks correlate more than cross-type",
    "§4.3, A-F5",
    "mean Spearman (layer mean), same-type pairs - cross-type pairs",
    "neurons (the same draw in every layer and task)",
    "diagonal blocks (Figure 5)",
)
IMPORTANCE = Claim(
    "same-type source tasks are more important than cross-type ones",
    "§4.3, A-F6",
    "mean z-scored importance, same-type - cross-type sources, mean over evaluation tasks",
    "test samples of each task, trials, random orders",
    "diagonal blocks (Figure 6)",
)
SELECTIVITY = Claim(
    "the predictivity order beats the selectivity index",
    "App. H, A-F15",
    "area(selectivity order) - area(predictivity order), mean over evaluation tasks",
    "test samples of each task, trials",
    "predictivity order hurts more (Figure 15)",
)
LABEL_WORDS = Claim(
    "orders found with random label words agree",
    "§4.4, A-S4.4",
    "mean pairwise Spearman (layer mean) of the orders of random-label-word draws",
    "neurons (the same draw in every layer and draw)",
    "0.87",
)
PRETRAINING = Claim(
    "skill neurons come from pre-training: the pre-trained model beats a random one",
    "§5, A-T3",
    "top-neuron test accuracy with random prompts, pre-trained - random model, task mean",
    "test samples of each task, trials",
    "e.g. SST-2 86.9 vs 55.2 (Table 3)",
)


def method_claim(method: str) -> Claim:
    return Claim(
        f"{method} models also depend on the prompt-tuning skill neurons",
        "§5, A-F7/A-F8/A-F12/A-F13",
        f"area(layer-matched random) - area(own prompt-tuning order), {method} models, "
        "mean over evaluation tasks",
        "test samples of each task, trials, random orders",
        "own order below random (Figures 7, 12, 13)",
    )


def _units(curves: Mapping[str, TaskCurves]) -> dict[str, int]:
    first = next(iter(curves.values()))
    units = {f"{task}: test samples": curve.samples for task, curve in curves.items()}
    return {**units, "trials": first.trials, "random orders": first.repeats}


def gap_claim(
    claim: Claim,
    curves: Mapping[str, TaskCurves],
    reference: str,
    settings: BootstrapSettings,
) -> dict:
    """``area(reference order) - area(own order)`` averaged over evaluation tasks;
    ``reference`` is ``"layer_matched"`` or ``"selectivity"``."""
    keys = {LAYER_MATCHED: (LAYER_MATCHED, "random_layer_matched")}
    keys["selectivity"] = ("selectivity", "selectivity")
    tasks = [task for task, curve in curves.items() if keys[reference] in curve.correct]
    if not tasks:
        return unavailable(claim, f"no {reference} curve in the perturbation files")

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        return float(
            np.mean(
                [
                    curves[task].area(keys[reference], indices, task)
                    - curves[task].area(("task", task), indices, task)
                    for task in tasks
                ]
            )
        )

    return decide(claim, statistic, _units({task: curves[task] for task in tasks}), settings)


def importance_claim(
    curves: Mapping[str, TaskCurves], task_types: Mapping[str, str], settings: BootstrapSettings
) -> dict:
    """Same-type minus cross-type mean z-scored importance (Figure 6), averaged over the
    evaluation tasks that have source tasks of both kinds."""

    def contrast(task: str, indices: Mapping[str, np.ndarray]) -> float:
        curve = curves[task]
        sources = [order for kind, order in curve.correct if kind == "task"]
        random = curve.area(("random", "random"), indices, task)
        scores = zscore([random - curve.area(("task", s), indices, task) for s in sources])
        kind = task_types[task]
        scored = list(zip(sources, scores, strict=True))
        same = [z for s, z in scored if s != task and task_types[s] == kind]
        cross = [z for s, z in scored if task_types[s] != kind]
        return float(np.mean(same) - np.mean(cross)) if same and cross else float("nan")

    tasks = [task for task in curves if not np.isnan(contrast(task, _full(curves)))]
    if not tasks:
        return unavailable(IMPORTANCE, "no evaluation task has same- and cross-type sources")
    chosen = {task: curves[task] for task in tasks}
    return decide(
        IMPORTANCE,
        lambda indices: float(np.mean([contrast(task, indices) for task in tasks])),
        _units(chosen),
        settings,
    )


def _full(curves: Mapping[str, TaskCurves]) -> dict[str, np.ndarray]:
    return {name: np.arange(size) for name, size in _units(curves).items()}


# --------------------------------------------------------------------------- rankings


def _layer_mean_spearman(ranks_a: np.ndarray, ranks_b: np.ndarray) -> float:
    """Mean over layers of the Pearson correlation of two rank arrays ``[layers, n]``."""
    a = ranks_a - ranks_a.mean(axis=1, keepdims=True)
    b = ranks_b - ranks_b.mean(axis=1, keepdims=True)
    norm = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(norm > 0, (a * b).sum(axis=1) / norm, np.nan)
    return float(np.nanmean(rho)) if np.isfinite(rho).any() else float("nan")


def correlation_claim(
    scores: Mapping[str, np.ndarray], task_types: Mapping[str, str], settings: BootstrapSettings
) -> dict:
    """Same-type minus cross-type mean Spearman of the tasks' neuron scores (Figure 5)."""
    tasks = list(scores)
    pairs = list(itertools.combinations(tasks, 2))
    same = [pair for pair in pairs if task_types[pair[0]] == task_types[pair[1]]]
    cross = [pair for pair in pairs if task_types[pair[0]] != task_types[pair[1]]]
    if not same or not cross:
        return unavailable(CORRELATION, "needs a same-type and a cross-type pair of tasks")

    rankers = {task: ResampledRanks(scores[task]) for task in tasks}

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        ranks = {task: rankers[task](indices["neurons"]) for task in tasks}
        mean = {pair: _layer_mean_spearman(ranks[pair[0]], ranks[pair[1]]) for pair in pairs}
        return float(np.nanmean([mean[p] for p in same]) - np.nanmean([mean[p] for p in cross]))

    neurons = next(iter(scores.values())).shape[1]
    return decide(CORRELATION, statistic, {"neurons": neurons}, settings)


def agreement(rankers: Sequence[ResampledRanks], indices: np.ndarray) -> float:
    """Mean pairwise layer-mean Spearman of several orders' neuron scores, on the
    neurons ``indices`` (of each layer)."""
    ranks = [ranker(indices) for ranker in rankers]
    values = [_layer_mean_spearman(a, b) for a, b in itertools.combinations(ranks, 2)]
    return float(np.nanmean(values)) if values else float("nan")


def label_words_claim(
    draws: Mapping[str, Sequence[np.ndarray]], settings: BootstrapSettings
) -> dict:
    """The random-label-word draws' agreement (§4.4), averaged over tasks; ``draws`` maps
    a task to its draws' neuron scores ``[layers, neurons]``."""
    tasks = [task for task, scores in draws.items() if len(scores) >= 2]
    if not tasks:
        return unavailable(LABEL_WORDS, "needs two draws of random label words")
    neurons = draws[tasks[0]][0].shape[1]
    rankers = {task: [ResampledRanks(scores) for scores in draws[task]] for task in tasks}
    return decide(
        LABEL_WORDS,
        lambda indices: float(np.mean([agreement(rankers[t], indices["neurons"]) for t in tasks])),
        {"neurons": neurons},
        settings,
    )


# --------------------------------------------------------------------------- controls


def pretraining_claim(
    pretrained: Mapping[str, np.ndarray],
    random_model: Mapping[str, np.ndarray],
    settings: BootstrapSettings,
) -> dict:
    """Pre-trained minus random-model top-neuron test accuracy (Table 3), with random
    prompts; each maps a task to bool ``[trials, samples]`` (the same test samples)."""
    tasks = [task for task in pretrained if task in random_model]
    if not tasks:
        return unavailable(PRETRAINING, "no control results")
    units = {f"{task}: test samples": pretrained[task].shape[1] for task in tasks}
    units["trials"] = pretrained[tasks[0]].shape[0]

    def accuracy(correct: np.ndarray, task: str, indices: Mapping[str, np.ndarray]) -> float:
        return float(correct[indices["trials"]][:, indices[f"{task}: test samples"]].mean())

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        gaps = [
            accuracy(pretrained[task], task, indices) - accuracy(random_model[task], task, indices)
            for task in tasks
        ]
        return float(np.mean(gaps))

    return decide(PRETRAINING, statistic, units, settings)


def control_correct(results: Sequence[Mapping]) -> dict[str, np.ndarray]:
    """Per task, bool ``[trials, samples]`` from per-trial top-neuron results (JSON)."""
    by_task: dict[str, list] = {}
    for result in sorted(results, key=lambda r: (r["task"], int(r["trial"]))):
        by_task.setdefault(result["task"], []).append(result)
    correct = {}
    for task, rows in by_task.items():
        first = rows[0]["test_idx"]
        if any(row["test_idx"] != first for row in rows):
            raise ValueError(f"task {task!r}: trials were scored on different test samples")
        correct[task] = np.array([row["test_correct"] for row in rows], dtype=bool)
    return correct


# --------------------------------------------------------------------------- the table


def findings_table(
    perturbation: Mapping[str, pd.DataFrame],
    scores: Mapping[str, np.ndarray],
    controls: Mapping[str, Sequence[Mapping]],
    label_word_draws: Mapping[str, Sequence[np.ndarray]],
    methods: Mapping[str, Mapping[str, pd.DataFrame]],
    task_types: Mapping[str, str],
    settings: BootstrapSettings,
) -> pd.DataFrame:
    """Every claim of paper A's sections 4-5 on this run, one row each
    (:data:`skillneurons.reporting.findings.COLUMNS`).

    ``perturbation`` maps each evaluation task to its perturbation file's rows;
    ``scores`` each task to its ranking's neuron scores (``Ranking.scores``);
    ``controls`` the settings ``random_prompt`` and ``random_model`` to their per-trial
    top-neuron results; ``label_word_draws`` each task to its random-label-word draws'
    scores (empty: the experiment is off); ``methods`` each tuning method to its
    perturbation rows per evaluation task.
    """
    curves = {task: task_curves(frame) for task, frame in perturbation.items()}
    rows = [
        gap_claim(TOP, curves, LAYER_MATCHED, settings),
        correlation_claim(scores, task_types, settings),
        importance_claim(curves, task_types, settings),
        gap_claim(SELECTIVITY, curves, "selectivity", settings),
    ]
    if label_word_draws:
        rows.append(label_words_claim(label_word_draws, settings))
    rows.append(
        pretraining_claim(
            control_correct(controls["random_prompt"]),
            control_correct(controls["random_model"]),
            settings,
        )
    )
    for method, frames in methods.items():
        method_curves = {task: task_curves(frame) for task, frame in frames.items()}
        rows.append(gap_claim(method_claim(method), method_curves, LAYER_MATCHED, settings))
    return findings_frame(rows)
