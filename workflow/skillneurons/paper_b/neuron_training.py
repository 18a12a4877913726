"""Training only a task's neurons (paper B, §4.2, Tables 2 and 7, Figure 5 c): B-T2 and
B-F5c.

A task's top ``k``% neurons by relevance on its training split, found on the base model
(paper B's choice for training; config ``paper_b.identify_on.training``: or on the
multi-task model of :mod:`skillneurons.paper_b.multitask`), are trained: only their
parameters are fine-tuned on the task (:class:`skillneurons.models.neuron_deltas.NeuronDeltas`:
every other entry of the model stays bit-identical), and every task's test split is
evaluated (``task``, source = the trained task: the diagonal is B-T2's "Train-Task", the
matrix against zero-shot B-F5c). The same count of random neurons per layer is trained
in several seeded draws (``random``, "Train-Random") and also evaluated on every task:
B-T2 compares them on the trained task, and their matrix is B-F5c's control (random
neurons trained on task i's data help task i more than task j too, so B-F5c's claim is
that the task's own neurons make the diagonal dominate more than random ones,
:func:`skillneurons.paper_b.findings.diagonal_control`). The untrained base model gives
``zero_shot`` (:func:`zero_shot_results`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.neuron_deltas import NeuronDeltas
from skillneurons.models.training import TrainingSettings, train
from skillneurons.paper_b.evaluation import correct_on, result_row, results_frame
from skillneurons.paper_b.relevance import trained_sets


def zero_shot_results(
    heads: Mapping[str, object], tests: Mapping[str, EncodedSplit], batch_size: int
) -> pd.DataFrame:
    """Every task's test results on the untrained model (``zero_shot``)."""
    rows = [
        result_row("zero_shot", "", 0, task, correct_on(heads[task], tests[task], batch_size))
        for task in heads
    ]
    return results_frame(rows)


def neuron_training_results(
    heads: Mapping[str, object],
    task: str,
    encoded: Mapping[str, Mapping[str, EncodedSplit]],
    neurons: Mapping[int, np.ndarray],
    *,
    width: int,
    training: TrainingSettings,
    random_draws: int,
    seed: int,
    batch_size: int,
    output_only: bool = False,
    progress: bool = True,
) -> tuple[pd.DataFrame, dict]:
    """B-T2 / B-F5c for one trained task (the module docstring): train only ``neurons``
    (then ``random_draws`` layer-matched random sets of ``width``-wide layers) on
    ``task``; evaluate every task after each training. ``heads`` are every task's
    classifiers on the (frozen) base backbone. Returns the results and the trainings'
    metrics."""
    classifier = heads[task]
    rows, metrics = [], []
    for condition, draw, chosen in trained_sets(neurons, width, random_draws, seed):
        classifier.deltas = NeuronDeltas(classifier.backbone, chosen, output_only)
        result = train(
            classifier, encoded[task]["train"], encoded[task]["dev"], training,
            classifier.pad_id, progress=progress,
        )  # fmt: skip
        with classifier.deltas.folded():
            for eval_task, head in heads.items():
                correct = correct_on(head, encoded[eval_task]["test"], batch_size)
                rows.append(result_row(condition, task, draw, eval_task, correct))
        metrics.append(
            {
                "condition": condition,
                "draw": draw,
                "neurons": int(sum(len(v) for v in chosen.values())),
                "trained_entries": classifier.deltas.entries(),
                "best_step": result.best_step,
                "dev_accuracy": result.best_dev_accuracy,
                "dev_curve": result.dev_curve,
            }
        )
        classifier.deltas.remove()
        del classifier.deltas
    return results_frame(rows), {"task": task, "trainings": metrics}
