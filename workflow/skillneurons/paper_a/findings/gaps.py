"""Paper A's effects between two conditions of the same prompt trials: the area gap of
two perturbation curves (§4.2, appendix H, §5) and the accuracy gap of two selections on
the same test samples (§4.1, §5), decided by the findings engine."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from skillneurons.neurons.perturbation.curve_table import LAYER_MATCHED
from skillneurons.reporting.curves import TaskCurves
from skillneurons.reporting.findings import (
    BootstrapSettings,
    Claim,
    Units,
    decide,
    unavailable,
    with_note,
)


def curve_units(curves: Mapping[str, TaskCurves]) -> Units:
    """Prompt trials > random orders > each task's test samples (crossed: the same
    samples under every trial and order)."""
    first = next(iter(curves.values()))
    return Units(
        runs={"trials": first.trials},
        draws={"random orders": first.repeats},
        samples={f"{task}: test samples": curve.samples for task, curve in curves.items()},
    )


def gap_claim(
    claim: Claim,
    curves: Mapping[str, TaskCurves],
    reference: str,
    settings: BootstrapSettings,
) -> dict:
    """``area(reference order) - area(own order)`` averaged over evaluation tasks;
    ``reference`` is ``"layer_matched"``, ``"random"`` (uniform random orders, the
    paper's control) or ``"selectivity"``."""
    keys = {LAYER_MATCHED: (LAYER_MATCHED, "random_layer_matched")}
    keys["selectivity"] = ("selectivity", "selectivity")
    keys["random"] = ("random", "random")
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

    row = decide(claim, statistic, curve_units({task: curves[task] for task in tasks}), settings)
    moved = max(curves[task].largest_change() for task in tasks)
    return with_note(
        row,
        f"the perturbation moved mean accuracy by at most {100 * moved:.1f} points from "
        "the unperturbed (any rate, any order)",
    )


def full_indices(curves: Mapping[str, TaskCurves]) -> dict[str, np.ndarray]:
    return {name: np.arange(size) for name, size in curve_units(curves).levels.items()}


def accuracy_gap(
    claim: Claim,
    better: Mapping[str, np.ndarray],
    worse: Mapping[str, np.ndarray],
    settings: BootstrapSettings,
) -> dict:
    """``claim`` decided on the mean over ``better``'s tasks (panels) of the accuracy of
    ``better`` minus ``worse``, each a task's bool ``[trials, samples]`` on the same
    samples; trials > each task's test samples resampled (crossed)."""
    trials = {values.shape[0] for task in better for values in (better[task], worse[task])}
    if len(trials) != 1:
        return unavailable(claim, f"the compared results differ in trials ({sorted(trials)})")
    units = Units(
        runs={"trials": trials.pop()},
        samples={f"{task}: test samples": better[task].shape[1] for task in better},
    )

    def accuracy(correct: np.ndarray, task: str, indices: Mapping[str, np.ndarray]) -> float:
        return float(correct[indices["trials"]][:, indices[f"{task}: test samples"]].mean())

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        gaps = [
            accuracy(better[task], task, indices) - accuracy(worse[task], task, indices)
            for task in better
        ]
        return float(np.mean(gaps))

    return decide(claim, statistic, units, settings)
