"""Deactivating task-specific neurons of a multi-task model (paper B, §4.1, Tables 1 and
6, Figure 5 a): B-T1 and B-F5a.

One model is fully fine-tuned on the mixture of the configured tasks
(:class:`skillneurons.models.mixture.TaskMixture`, one task per batch, in turn). On that
model (the model that is evaluated, paper B's choice for deactivation; config
``paper_b.identify_on.deactivation``: or on the base model, the neurons that
:mod:`skillneurons.paper_b.neuron_training` trains) each task's relevance is computed
on its training split (:func:`skillneurons.paper_b.relevance.relevance_tables`) and
its top ``k``% neurons taken. Then every task's test split is evaluated: as trained
(``original``), with each task's neurons deactivated (``task``, source = that task:
the diagonal is B-T1's "Deactivate-Task", the whole matrix B-F5a), and with as many
random neurons per layer as its own task's deactivated (``random``, several seeded
draws: "Deactivate-Random").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import numpy as np
import pandas as pd

from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.loading import LoadedModel
from skillneurons.models.mixture import MultiTaskClassifier, TaskMixture
from skillneurons.models.training import TrainingSettings, accuracy, train
from skillneurons.paper_b.classifiers import task_classifiers, unfreeze_backbone
from skillneurons.paper_b.evaluation import correct_on, result_row, results_frame
from skillneurons.paper_b.relevance import matched_random_neurons


def train_multitask(
    loaded: LoadedModel,
    encoded: Mapping[str, Mapping[str, EncodedSplit]],
    label_words: Mapping[str, list[str]],
    training: TrainingSettings,
    freeze_embeddings: bool = True,
    progress: bool = True,
) -> tuple[dict, dict]:
    """Fully fine-tune the backbone on the mixture of ``encoded``'s tasks (their
    ``train`` splits), keeping the state with the best mean dev accuracy over tasks.
    Returns the tasks' classifiers on the trained backbone (frozen again) and metrics."""
    heads = task_classifiers(loaded, label_words)
    model = MultiTaskClassifier(list(heads.values()))
    trained = unfreeze_backbone(loaded, freeze_embeddings)
    mixture = TaskMixture({task: splits["train"] for task, splits in encoded.items()})

    def mean_dev_accuracy(_: MultiTaskClassifier) -> float:
        scores = [
            accuracy(heads[task], encoded[task]["dev"], training.eval_batch_size, model.pad_id)
            for task in heads
        ]
        return float(np.mean(scores))

    result = train(
        model, mixture, None, training, model.pad_id, progress=progress,
        evaluate=mean_dev_accuracy,
    )  # fmt: skip
    for parameter in loaded.model.parameters():
        parameter.requires_grad_(False)
    metrics = {
        "dev_curve": result.dev_curve,
        "best_step": result.best_step,
        "steps": result.steps,
        "mean_dev_accuracy": result.best_dev_accuracy,
        "trained_parameters": trained,
        "tasks": list(heads),
    }
    return heads, metrics


def deactivation_results(
    heads: Mapping[str, object],
    encoded: Mapping[str, Mapping[str, EncodedSplit]],
    neurons: Mapping[str, Mapping[int, np.ndarray]],
    *,
    width: int,
    random_draws: int,
    seed: int,
    batch_size: int,
    by: str = "activations",
) -> pd.DataFrame:
    """B-T1 / B-F5a (the module docstring): every task's test results on the model under
    ``heads`` as trained, with each task's ``neurons`` deactivated and with
    ``random_draws`` layer-matched random draws of its own task's count (``width``
    neurons per layer). Columns :data:`skillneurons.paper_b.evaluation.COLUMNS`."""
    rows = [
        result_row(
            condition,
            source,
            draw,
            eval_task,
            correct_on(heads[eval_task], encoded[eval_task]["test"], batch_size, off, by),
        )  # fmt: skip
        for condition, source, draw, eval_task, off in deactivation_conditions(
            heads, neurons, width, random_draws, seed
        )
    ]
    return results_frame(rows)


def deactivation_conditions(
    eval_tasks: Iterable[str],
    neurons: Mapping[str, Mapping[int, np.ndarray]],
    width: int,
    random_draws: int,
    seed: int,
) -> Iterator[tuple[str, str, int, str, Mapping[int, np.ndarray]]]:
    """B-T1's evaluations in order, as ``(condition, source, draw, eval_task,
    neurons_off)``: per evaluated task, as trained (no neurons off, ``original``), with
    each task's ``neurons`` off (``task``), then ``random_draws`` layer-matched random
    draws of its own task's count (``random``, seed + draw; ``width`` neurons per
    layer). Classification and generation deactivation evaluate the same ones."""
    for eval_task in eval_tasks:
        yield "original", "", 0, eval_task, {}
        for source, chosen in neurons.items():
            yield "task", source, 0, eval_task, chosen
        for draw in range(random_draws):
            random = matched_random_neurons(neurons[eval_task], width, seed + draw)
            yield "random", eval_task, draw, eval_task, random
