"""Training only a task's neurons (paper B, §4.2, Tables 2 and 7, Figure 5 c and d): the
results of B-T2 and B-F5c/d.

B-T2 and B-F5c (classification tasks), B-T2's generation rows and B-F5d (generation
tasks) take one path, through each task's
:class:`skillneurons.paper_b.scorers.TaskScorer`; their tables and claims are in
:mod:`skillneurons.paper_b.neuron_training_report`.

A task's top ``k``% neurons by relevance on its training split, found on the base model
(paper B's choice for training, ``results/{model}/task_neurons/{task}.parquet``;
config ``paper_b.identify_on.training``: or on the multi-task model of
:mod:`skillneurons.paper_b.deactivation`), are trained: only their parameters are
fine-tuned on the task (:class:`skillneurons.models.neuron_deltas.NeuronDeltas`: every
other entry of the model stays bit-identical; the state of best dev score kept,
:attr:`~skillneurons.paper_b.scorers.TaskScorer.dev_score`), and every task of its
kind is scored on its test split (``task``, source = the trained task: the diagonal is
B-T2's "Train-Task", the matrix against zero-shot B-F5c/d). Random sets of the same
count are trained in several seeded draws of each kind
(:mod:`skillneurons.paper_b.random_neurons`: ``random``, drawn over all layers as paper
B's "Train-Random" sets are, and ``random_layer_matched``, ours, as many per layer as
the task's) and also scored on every task: B-T2 compares them on the trained task, and
their matrices are B-F5c/d's controls (random neurons trained on task i's data help
task i more than task j too, so B-F5's claim is that the task's own neurons make the
diagonal dominate more than random ones,
:func:`skillneurons.paper_b.neuron_effects.diagonal_control`). The untrained base model gives
``zero_shot`` (:func:`zero_shot_results`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from skillneurons.models.neuron_deltas import NeuronDeltas
from skillneurons.models.training import TrainingSettings, train
from skillneurons.paper_b.evaluation import result_row, results_frame
from skillneurons.paper_b.random_neurons import random_sets
from skillneurons.paper_b.runs import with_run
from skillneurons.paper_b.scorers import TaskScorer


def scored_rows(
    scorers: Mapping[str, TaskScorer], condition: str, source: str, draw: int
) -> list[dict]:
    """One results row per task of ``scorers``, its test split scored on the model as
    it is now."""
    rows = []
    for eval_task, scorer in scorers.items():
        scores = scorer.evaluate("test")[0]
        rows.append(result_row(condition, source, draw, eval_task, scorer.metric, scores))
    return rows


def zero_shot_results(scorers: Mapping[str, TaskScorer]) -> pd.DataFrame:
    """Every task's test scores on the untrained model (``zero_shot``)."""
    return results_frame(scored_rows(scorers, "zero_shot", "", 0))


def neuron_training_results(
    scorers: Mapping[str, TaskScorer],
    task: str,
    neurons: Mapping[int, np.ndarray],
    *,
    width: int,
    training: TrainingSettings,
    random_draws: int,
    seed: int,
    run: int = 0,
    output_only: bool = False,
    progress: bool = True,
) -> tuple[pd.DataFrame, dict]:
    """B-T2 / B-F5c-d for one trained task (the module docstring): train only
    ``neurons``, then ``random_draws`` random sets of each kind of ``width``-wide layers
    (draw ``d`` seeded by ``seed + d``:
    :func:`skillneurons.paper_b.random_neurons.random_sets`), on ``task``; score every
    task of ``scorers`` (all on the same frozen base model, ``task``'s first) after each
    training. Returns the results of training run ``run`` (config ``paper_b.runs``:
    ``training`` carries its seed) and the trainings' metrics."""
    scorer = scorers[task]
    head = scorer.head
    rows, metrics = [], []
    trainings = [("task", 0, neurons), *random_sets(neurons, width, random_draws, seed)]
    for condition, draw, chosen in trainings:
        head.deltas = NeuronDeltas(head.backbone, chosen, output_only)
        result = train(
            head, scorer.train, None, training, head.pad_id, progress=progress,
            evaluate=lambda _: scorer.dev_score(training.eval_batch_size),
        )  # fmt: skip
        with head.deltas.folded():
            rows.extend(scored_rows(scorers, condition, task, draw))
        metrics.append(
            {
                "condition": condition,
                "draw": draw,
                "neurons": int(sum(len(v) for v in chosen.values())),
                "trained_entries": head.deltas.entries(),
                "best_step": result.best_step,
                "dev_score": result.best_dev_accuracy,
                "dev_curve": [
                    {
                        "step": p["step"],
                        "dev_score": p["dev_accuracy"],
                        "train_loss": p["train_loss"],
                    }
                    for p in result.dev_curve
                ],
            }
        )
        head.deltas.remove()
        del head.deltas
    frame = with_run(results_frame(rows), run)
    return frame, {"task": task, "run": run, "metric": scorer.metric, "trainings": metrics}
