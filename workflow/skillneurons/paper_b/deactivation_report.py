"""What paper B's deactivation experiment reports (§4.1, A.4): B-T1's table and the claims
of B-T1 and B-F5a/b.

Named for the experiment it reports: :mod:`skillneurons.paper_b.deactivation` runs it
(and imports torch); this module turns its results into the table and the claims, free
of torch so that the table and findings scripts start fast. B-F5a/b's matrices come from
:func:`skillneurons.paper_b.neuron_effects.effect_matrix`, shared with neuron-only
training's panels c/d; so do the statistics the claims decide and their units
(:mod:`skillneurons.paper_b.neuron_effects`: random neurons of both kinds, training runs
> random draws > test samples).

=============================================  ============================================
claim                                          effect; resampled
=============================================  ============================================
deactivating task neurons hurts more than      accuracy with random neurons deactivated
random ones (§4.1, B-T1: 76.0 vs 84.8)         minus with the task's, task mean; runs >
                                               random draws > test samples of each task
... than layer-matched random ones (ours)      the same against the layer-matched sets
deactivation is task-specific (A.4, B-F5a)     per task, its drop when its own neurons are
                                               off minus the mean drop of the row's and
                                               column's other cells; runs > samples
generation: the three claims above on the      each test sample scored by its ROUGE-L F1
generation tasks (B-T1's generation rows,      (where a causal LM runs them)
B-F5b)
=============================================  ============================================
"""

from __future__ import annotations

import pandas as pd

from skillneurons.paper_b.neuron_effects import (
    LAYER_MATCHED_PAPER,
    condition_scores,
    diagonal_dominance,
    random_columns,
    random_vs_task,
    reference_cells,
    trained_runs,
)
from skillneurons.paper_b.random_neurons import RANDOM_LAYER_MATCHED
from skillneurons.reporting.findings import BootstrapSettings, Claim

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

#: B-T1's claims against paper B's random sets and against the layer-matched ones (ours),
#: then B-F5a's, on the classification tasks.
CLASSIFICATION = (DEACTIVATION_VS_RANDOM, DEACTIVATION_VS_LAYER_MATCHED, DEACTIVATION_SPECIFIC)
#: The same claims on the generation tasks (B-T1's generation rows, B-F5b).
GENERATION = (
    DEACTIVATION_GENERATION,
    DEACTIVATION_GENERATION_LAYER_MATCHED,
    DEACTIVATION_SPECIFIC_GENERATION,
)


def deactivation_table(results: pd.DataFrame) -> pd.DataFrame:
    """B-T1 (B-T6): per task, the multi-task model's test score x 100 (accuracy; ROUGE-L
    for the generation rows) as trained, with random neurons deactivated (mean and std
    over draws): ``deactivate_random``, paper B's "Deactivate-Random" (as many neurons
    as the task's, drawn over all layers), and ``deactivate_random_layer_matched`` (ours:
    as many per layer), and with the task's neurons."""
    rows = []
    for task in dict.fromkeys(results["eval_task"]):
        random = random_columns(results, "deactivate", task)
        rows.append(
            {
                "task": task,
                "original": 100 * condition_scores(results, "original", "", task)[0],
                **{k: v for k, v in random.items() if k != "random_draws"},
                "deactivate_task": 100 * condition_scores(results, "task", task, task)[0],
                "random_draws": random["random_draws"],
            }
        )
    return pd.DataFrame(rows)


def random_claims(
    results: pd.DataFrame,
    settings: BootstrapSettings,
    claims: tuple[Claim, Claim, Claim] = CLASSIFICATION,
) -> list[dict]:
    """B-T1's two claims of ``claims`` (:data:`CLASSIFICATION`, or :data:`GENERATION`
    on the generation tasks' results) on the multi-task model's ``results`` (its
    original, task and random rows): the task's neurons deactivated hurt it more than
    paper B's random sets, and (ours) than the layer-matched ones
    (:func:`~skillneurons.paper_b.neuron_effects.random_vs_task`)."""
    paper, layer_matched, _ = claims
    return [
        random_vs_task(paper, results, "random", settings),
        random_vs_task(layer_matched, results, "random", settings, random=RANDOM_LAYER_MATCHED),
    ]


def specificity_claims(
    results: pd.DataFrame,
    settings: BootstrapSettings,
    claims: tuple[Claim, Claim, Claim] = CLASSIFICATION,
) -> list[dict]:
    """B-F5a's claim (B-F5b's with :data:`GENERATION`) on the same ``results``: each
    task's drop with its own neurons deactivated dominates its row and column
    (:func:`~skillneurons.paper_b.neuron_effects.diagonal_dominance`), each run's drops
    measured from its multi-task model as trained (the ``original`` rows)."""
    *_, specific = claims
    original = reference_cells(results, "original", trained_runs(results))
    return [diagonal_dominance(specific, results, original, -1.0, settings)]
