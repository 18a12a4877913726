"""What the A-vs-B comparison reports (ours): AB-T1's table and the claims of AB-T1 and
AB-F1.

Paper A's skill neurons and paper B's task neurons on one prompt-tuned model. Named for
the comparison it reports: :mod:`skillneurons.paper_b.comparison` measures it
(the rank agreements and the AB-F1 perturbation orders); this module turns those into the
table and the claims. The claims stand on paper A's prompt trials: on each trial's model,
that trial's ranking (Eq. 6 of the trial alone) against paper B's relevance on it.

=============================================  ============================================
claim                                          effect; resampled
=============================================  ============================================
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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.neurons.perturbation.curve_table import LAYER_MATCHED
from skillneurons.reporting.curves import AREA_BASIS, AREA_MARGIN, TaskCurves
from skillneurons.reporting.findings import BootstrapSettings, Claim, Units, decide
from skillneurons.reporting.stats import curve_area

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


def comparison_table(
    agreements: Mapping[str, Mapping], areas: Mapping[str, Mapping[str, float]]
) -> pd.DataFrame:
    """AB-T1: per task, the rank agreement of paper A's and paper B's neurons
    (:func:`skillneurons.paper_b.comparison.ranking_agreement`) and the areas under the
    AB-F1 curves (less area: more accuracy destroyed)."""
    rows = []
    for task, agreement in agreements.items():
        rows.append(
            {
                "task": task,
                "spearman": agreement["spearman"],
                "spearman_layer_mean": agreement["spearman_layer_mean"],
                "jaccard_top": agreement["jaccard"],
                "jaccard_chance": agreement["jaccard_chance"],
                "top_neurons": agreement["top_neurons"],
                **{f"area_{name}": value for name, value in areas[task].items()},
            }
        )
    return pd.DataFrame(rows)


def curve_areas_by_order(curves: pd.DataFrame, orders: Sequence[str]) -> dict[str, float]:
    """Mean area under each order's accuracy curve (random repeats averaged)."""
    areas = {}
    for order in orders:
        rows = curves[curves["order"] == order].groupby("rate")["accuracy"].mean()
        areas[order] = float(curve_area(rows.index.to_numpy(), rows.to_numpy()))
    return areas


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
