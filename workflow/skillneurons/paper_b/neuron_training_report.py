"""What paper B's neuron-only training experiment reports (§4.2, A.4): B-T2's table and the
claims of B-T2, B-F5c/d and their random controls.

Named for the experiment it reports: :mod:`skillneurons.paper_b.neuron_training` runs it
(and imports torch); this module turns its results into the table and the claims, free
of torch so that the table and findings scripts start fast. B-F5c/d's matrices and their
controls come from :func:`skillneurons.paper_b.neuron_effects.effect_matrix`, shared with
deactivation's panels a/b; so do the statistics the claims decide and their units
(:mod:`skillneurons.paper_b.neuron_effects`: random neurons of both kinds, training runs
> random draws > test samples).

=============================================  ============================================
claim                                          effect; resampled
=============================================  ============================================
training task neurons gains more than          accuracy after training the task's
training random ones (§4.2, B-T2: 29.9 vs      neurons minus after training random ones,
1.5 points)                                    task mean; runs > random draws > samples
... than layer-matched random ones (ours)      the same against the layer-matched sets
training is task-specific (A.4, B-F5c)         per task, its gain over zero-shot when its
                                               own neurons are trained minus the mean gain
                                               of the row's and column's other cells; runs
                                               > samples (not decidable here: the diagonal
                                               dominates by construction)
the task's own neurons make B-F5c's diagonal   B-F5c's per-task margin above minus the
dominate more than random neurons trained on   same margin of the matrix of random neurons
the same data (control; ours)                  trained on the row's task, task mean; runs
                                               > random draws > samples
... than layer-matched random neurons (ours)   the same with the layer-matched sets
generation: the five claims above on the       each test sample scored by its ROUGE-L F1
generation tasks (B-T2's generation rows,      (where a causal LM runs them)
B-F5d, B-F5d's controls)
=============================================  ============================================
"""

from __future__ import annotations

import pandas as pd

from skillneurons.paper_b.neuron_effects import (
    LAYER_MATCHED_PAPER,
    condition_scores,
    diagonal_control,
    diagonal_dominance,
    random_columns,
    random_vs_task,
    reference_cells,
    trained_runs,
)
from skillneurons.paper_b.random_neurons import RANDOM_CONDITIONS, RANDOM_LAYER_MATCHED
from skillneurons.reporting.findings import NOT_DECIDABLE, BootstrapSettings, Claim, refuse

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

#: B-T2's claims against paper B's random sets and against the layer-matched ones (ours),
#: then B-F5c's and its controls against both kinds, on the classification tasks.
CLASSIFICATION = (
    TRAINING,
    TRAINING_VS_LAYER_MATCHED,
    TRAINING_SPECIFIC,
    TRAINING_CONTROL,
    TRAINING_CONTROL_LAYER_MATCHED,
)
#: The same claims on the generation tasks (B-T2's generation rows, B-F5d and its controls).
GENERATION = (
    TRAINING_GENERATION,
    TRAINING_GENERATION_LAYER_MATCHED,
    GENERATION_SPECIFIC,
    GENERATION_CONTROL,
    GENERATION_CONTROL_LAYER_MATCHED,
)


def training_table(results: pd.DataFrame, zero_shot: pd.DataFrame) -> pd.DataFrame:
    """B-T2 (B-T7): per trained task, its zero-shot score x 100 (accuracy; ROUGE-L for
    the generation rows), after training random neurons (mean and std over draws):
    ``train_random``, paper B's "Train-Random" (as many neurons as the task's, drawn
    over all layers), and ``train_random_layer_matched`` (ours: as many per layer), and
    after training the task's neurons, with the three gains over zero-shot in points."""
    trained = results[
        (results["condition"] == "task") & (results["source"] == results["eval_task"])
    ]
    rows = []
    for task in dict.fromkeys(trained["source"]):
        base = 100 * condition_scores(zero_shot, "zero_shot", "", task)[0]
        random = random_columns(results, "train", task)
        own = 100 * condition_scores(results, "task", task, task)[0]
        rows.append(
            {
                "task": task,
                "zero_shot": base,
                **{k: v for k, v in random.items() if k != "random_draws"},
                "train_task": own,
                **{
                    f"gain_{condition}": random[f"train_{condition}"] - base
                    for condition in RANDOM_CONDITIONS
                },
                "gain_task": own - base,
                "random_draws": random["random_draws"],
            }
        )
    return pd.DataFrame(rows)


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


def random_claims(
    results: pd.DataFrame,
    settings: BootstrapSettings,
    claims: tuple[Claim, ...] = CLASSIFICATION,
) -> list[dict]:
    """B-T2's two claims of ``claims`` (:data:`CLASSIFICATION`, or :data:`GENERATION`
    on the generation tasks' results) on every task's training ``results`` (task and
    random rows): training the task's neurons gains more than training paper B's random
    sets, and (ours) than the layer-matched ones
    (:func:`~skillneurons.paper_b.neuron_effects.random_vs_task`)."""
    paper, layer_matched, *_ = claims
    return [
        random_vs_task(paper, results, "task", settings),
        random_vs_task(layer_matched, results, "task", settings, random=RANDOM_LAYER_MATCHED),
    ]


def specificity_claims(
    results: pd.DataFrame,
    zero_shot: pd.DataFrame,
    settings: BootstrapSettings,
    claims: tuple[Claim, ...] = CLASSIFICATION,
) -> list[dict]:
    """B-F5c's claims (B-F5d's with :data:`GENERATION`) on the same ``results``, each
    training tested on every task: the diagonal's dominance over the gains from
    zero-shot (``zero_shot``: the untrained model's rows, one run shared by every run;
    :func:`by_construction`), then its control against paper B's random sets and
    (ours) the layer-matched ones
    (:func:`~skillneurons.paper_b.neuron_effects.diagonal_control`)."""
    *_, specific, control, layer_matched = claims
    untrained = reference_cells(zero_shot, "zero_shot", trained_runs(results))
    return [
        by_construction(diagonal_dominance(specific, results, untrained, 1.0, settings)),
        diagonal_control(control, results, settings),
        diagonal_control(layer_matched, results, settings, random=RANDOM_LAYER_MATCHED),
    ]
