"""A task of paper B's experiments as it is trained and scored: the seam that lets one
experiment serve classification and generation tasks alike (part 1: deactivation and
neuron-only training, §4; part 2: a group of tasks trained on one model and the tasks
of both groups scored, §5.1, Table 3).

A :class:`TaskScorer` holds the module the training loop calls for the task (its
verbalizer classifier, :func:`skillneurons.paper_b.classifiers.task_classifier`, or
the causal LM objective, :func:`skillneurons.paper_b.generation_scoring.generation_objective`;
all on the same backbone), its encoded training split, and how a dev or test split is
scored per sample: 1.0 or 0.0 for a right or wrong label (the mean is accuracy), or the
ROUGE-L F1 of the greedy continuation
(:func:`skillneurons.paper_b.generation_scoring.rouge_l_on`). A training keeps its
best state by :attr:`TaskScorer.dev_score`.

A task's rule params (:func:`task_scorers`) are ``{"kind": "classification",
"label_words": [...], "instruction": ..., "max_length": ..., "batch_size": ...}`` or
``{"kind": "generation", "instruction": ..., "budget": {GenerationBudget's fields},
"batch_size": ..., "rouge_stemmer": ...}`` (``batch_size``: the evaluation's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from skillneurons.data.splits import read_split
from skillneurons.models.loading import LoadedModel
from skillneurons.models.training import accuracy, predict
from skillneurons.neurons.perturbation.noise import PerturbationSettings
from skillneurons.neurons.perturbation.sweep import grouped_predictions
from skillneurons.paper_b.classifiers import encode_task, task_classifier
from skillneurons.paper_b.generation_scoring import (
    ScoredSplit,
    encode_generation,
    generation_objective,
    rouge_l_on,
)

KINDS = ("classification", "generation")
#: The metric of each kind of task.
METRICS = {"classification": "accuracy", "generation": "rouge_l"}
#: Deactivation by activations as a perturbation: activation 0 at every position.
ZEROED = PerturbationSettings(kind="zero")
SPLITS = ("train", "dev", "test")


@dataclass(frozen=True)
class TaskScorer:
    """One task as trained and scored (the module docstring): ``head`` (what
    :func:`skillneurons.models.training.train` and relevance call), ``train`` (its
    encoded training split), ``kind`` and ``evaluate(split)`` (per-sample scores of the
    ``dev`` or ``test`` split, float64, and how many labels were predicted: 0 for a
    generation task); ``dev_score(eval_batch_size)``: the dev score a training keeps
    its best state by (a classification task's dev accuracy as the training loop
    computes it, :func:`skillneurons.models.training.accuracy`, ``eval_batch_size`` at a
    time; a generation task's mean dev ROUGE-L, decoded at its own batch size,
    ``paper_b.generation.eval_batch_size``). ``evaluate_off(split, conditions)``, where
    a task has it (classification): per-sample scores ``[conditions, samples]`` with
    each condition's neurons (``{layer: indices}``) deactivated by their activations,
    the conditions batched into few forward passes
    (:func:`skillneurons.neurons.perturbation.sweep.grouped_predictions`, kind ``zero``)."""

    head: torch.nn.Module
    train: object
    kind: str
    evaluate: Callable[[str], tuple[np.ndarray, int]]
    dev_score: Callable[[int], float]
    evaluate_off: Callable[[str, Sequence[Mapping[int, np.ndarray]]], np.ndarray] | None = None

    @property
    def metric(self) -> str:
        return METRICS[self.kind]

    def mean(self, split: str) -> float:
        """The mean score of ``split`` (accuracy or ROUGE-L F1)."""
        return float(self.evaluate(split)[0].mean())


def classification_scorer(
    loaded: LoadedModel,
    frames: Mapping[str, pd.DataFrame],
    label_words: Sequence[str],
    instruction: str,
    *,
    max_length: int,
    batch_size: int,
) -> TaskScorer:
    """A classification task's :class:`TaskScorer` from its split frames."""
    head = task_classifier(loaded, label_words)
    encoded = {
        split: encode_task(loaded, frames[split], instruction, max_length) for split in SPLITS
    }

    def evaluate(split: str) -> tuple[np.ndarray, int]:
        predicted = predict(head, encoded[split], batch_size, head.pad_id)
        correct = (predicted == encoded[split].labels).numpy()
        return correct.astype(np.float64), int(predicted.unique().numel())

    def dev_score(eval_batch_size: int) -> float:
        return accuracy(head, encoded["dev"], eval_batch_size, head.pad_id)

    def evaluate_off(split: str, conditions: Sequence[Mapping[int, np.ndarray]]) -> np.ndarray:
        predicted = grouped_predictions(
            head, encoded[split], conditions, ZEROED, head.pad_id, batch_size
        )
        return (predicted == encoded[split].labels).numpy().astype(np.float64)

    return TaskScorer(head, encoded["train"], "classification", evaluate, dev_score, evaluate_off)


def generation_scorer(
    loaded: LoadedModel,
    frames: Mapping[str, pd.DataFrame],
    scoring: Mapping[str, object],
    *,
    batch_size: int,
    rouge_stemmer: bool = False,
) -> TaskScorer:
    """A generation task's :class:`TaskScorer` from its split frames and scoring params
    (:meth:`skillneurons.paper_b.generation_scoring.ScoredSplit.from_params`)."""
    scored = {split: ScoredSplit.from_params(frames[split], scoring) for split in SPLITS}
    train = encode_generation(
        loaded, frames["train"], scored["train"].instruction, scored["train"].budget
    )

    def evaluate(split: str) -> tuple[np.ndarray, int]:
        return rouge_l_on(loaded, scored[split], batch_size, rouge_stemmer)[1], 0

    def dev_score(_: int) -> float:
        return rouge_l_on(loaded, scored["dev"], batch_size, rouge_stemmer)[0]

    return TaskScorer(generation_objective(loaded), train, "generation", evaluate, dev_score)


def task_scorers(
    loaded: LoadedModel, paths: Sequence[str], tasks: Mapping[str, Mapping[str, object]]
) -> dict[str, TaskScorer]:
    """Every task's :class:`TaskScorer`: ``tasks`` maps a task to its params (the module
    docstring), ``paths`` holds each task's train, dev and test split files in turn."""
    if len(paths) != len(SPLITS) * len(tasks):
        raise ValueError(f"{len(paths)} split files for {len(tasks)} tasks x {len(SPLITS)} splits")
    scorers = {}
    for index, (task, spec) in enumerate(tasks.items()):
        files = paths[index * len(SPLITS) : (index + 1) * len(SPLITS)]
        if spec["kind"] not in KINDS:
            raise ValueError(f"task {task!r}: kind {spec['kind']!r} is not one of {KINDS}")
        read = (lambda path: read_split(path)[0]) if spec["kind"] == KINDS[0] else pd.read_parquet
        frames = {split: read(path) for split, path in zip(SPLITS, files, strict=True)}
        if spec["kind"] == "classification":
            scorers[task] = classification_scorer(
                loaded, frames, spec["label_words"], spec["instruction"],
                max_length=spec["max_length"], batch_size=spec["batch_size"],
            )  # fmt: skip
        else:
            scoring = {"instruction": spec["instruction"], "budget": spec["budget"]}
            scorers[task] = generation_scorer(
                loaded, frames, scoring, batch_size=spec["batch_size"],
                rouge_stemmer=spec["rouge_stemmer"],
            )  # fmt: skip
    return scorers
