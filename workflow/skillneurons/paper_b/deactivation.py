"""Deactivating task-specific neurons of a multi-task model (paper B, §4.1, Tables 1 and
6, Figure 5 a and b): B-T1 and B-F5a (classification tasks), B-T1's generation rows and
B-F5b (generation tasks), one path for both through each task's
:class:`skillneurons.paper_b.scorers.TaskScorer`.

One model is fully fine-tuned on the mixture of the tasks (:func:`train_multitask`),
keeping the state with the best mean dev score over tasks (accuracy, or ROUGE-L). On
that model (the model that is evaluated, paper B's choice for deactivation; config
``paper_b.identify_on.deactivation: base`` takes the base model's,
``results/{model}/task_neurons/{task}.parquet``) each task's relevance is computed on
its training split (:func:`skillneurons.paper_b.relevance.relevance_tables`) and its
top ``k``% neurons taken. Then every task's test split is scored
(:func:`deactivation_results`): as trained (``original``), with each task's neurons
deactivated (``task``, source = that task: the diagonal is B-T1's "Deactivate-Task",
the whole matrix B-F5a/b), and with random sets of its own task's count deactivated,
several seeded draws of each kind (:mod:`skillneurons.paper_b.random_neurons`):
``random``, drawn over all layers as paper B draws its "Deactivate-Random" sets, and
``random_layer_matched`` (ours), as many per layer as the task's. A neuron is
deactivated as config ``paper_b.deactivation`` says
(:func:`skillneurons.paper_b.evaluation.deactivated`), for a causal LM at every
decoded position too.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import numpy as np
import pandas as pd

from skillneurons.models.decoding import CausalLMObjective, GenerationSplit
from skillneurons.models.loading import LoadedModel
from skillneurons.models.mixture import MultiTaskClassifier, TaskMixture
from skillneurons.models.training import TrainingSettings, train
from skillneurons.paper_b.classifiers import unfreeze_backbone
from skillneurons.paper_b.evaluation import deactivated, result_row, results_frame
from skillneurons.paper_b.random_neurons import random_sets
from skillneurons.paper_b.scorers import TaskScorer


def multitask_mixture(scorers: Mapping[str, TaskScorer]) -> tuple[object, object, int]:
    """What :func:`train_multitask` trains and on what: ``(model, mixture, pad_id)``.
    Classification tasks take one task per batch, in turn
    (:class:`~skillneurons.models.mixture.TaskMixture`; a batch is scored with its
    own task's label words); generation tasks share one causal LM and one loss, so
    their training pairs are pooled and shuffled together."""
    kinds = {scorer.kind for scorer in scorers.values()}
    if kinds == {"classification"}:
        model = MultiTaskClassifier([scorer.head for scorer in scorers.values()])
        mixture = TaskMixture({task: scorer.train for task, scorer in scorers.items()})
        return model, mixture, model.pad_id
    if kinds == {"generation"}:
        model = next(iter(scorers.values())).head
        examples = [example for scorer in scorers.values() for example in scorer.train.examples]
        return model, GenerationSplit(examples), model.pad_id
    raise ValueError(
        f"a multi-task model is trained on tasks of one kind; these are {sorted(kinds)}"
    )


def train_multitask(
    loaded: LoadedModel,
    scorers: Mapping[str, TaskScorer],
    training: TrainingSettings,
    freeze_embeddings: bool = True,
    progress: bool = True,
) -> dict:
    """Fully fine-tune the backbone under ``scorers`` on the mixture of their tasks
    (:func:`multitask_mixture`), keeping the state with the best mean dev score over
    tasks (:attr:`TaskScorer.dev_score`); the model's parameters are frozen again
    afterwards, so the scorers score the trained model. Returns the training's
    metrics."""
    model, mixture, pad_id = multitask_mixture(scorers)
    trained = unfreeze_backbone(loaded, freeze_embeddings)

    def mean_dev_score(_: MultiTaskClassifier | CausalLMObjective) -> float:
        scores = [scorer.dev_score(training.eval_batch_size) for scorer in scorers.values()]
        return float(np.mean(scores))

    result = train(
        model, mixture, None, training, pad_id, progress=progress, evaluate=mean_dev_score
    )
    for parameter in loaded.model.parameters():
        parameter.requires_grad_(False)
    return {
        "metric": next(iter(scorers.values())).metric,
        "dev_curve": [
            {"step": p["step"], "mean_dev_score": p["dev_accuracy"], "train_loss": p["train_loss"]}
            for p in result.dev_curve
        ],
        "best_step": result.best_step,
        "steps": result.steps,
        "mean_dev_score": result.best_dev_accuracy,
        "trained_parameters": trained,
        "tasks": list(scorers),
    }


def deactivation_results(
    scorers: Mapping[str, TaskScorer],
    neurons: Mapping[str, Mapping[int, np.ndarray]],
    *,
    width: int,
    random_draws: int,
    seed: int,
    by: str = "activations",
) -> pd.DataFrame:
    """B-T1 / B-F5a-b (the module docstring): every task's test scores on the model
    under ``scorers`` as trained, with each task's ``neurons`` deactivated (``by``) and
    with ``random_draws`` random draws of each kind of its own task's count (``width``
    neurons per layer; :func:`deactivation_conditions`). Columns
    :data:`skillneurons.paper_b.evaluation.COLUMNS`. A classification task's conditions
    with neurons off by their activations go through the model together
    (:attr:`TaskScorer.evaluate_off`): the same predictions as one pass each up to the
    rounding of larger matrix products."""
    rows = []
    for eval_task, scorer in scorers.items():
        conditions = list(deactivation_conditions([eval_task], neurons, width, random_draws, seed))
        scores = [None] * len(conditions)
        if by == "activations" and scorer.evaluate_off is not None:
            grouped = [i for i, c in enumerate(conditions) if any(len(v) for v in c[4].values())]
            off = scorer.evaluate_off("test", [conditions[i][4] for i in grouped])
            for i, row in zip(grouped, off, strict=True):
                scores[i] = row
        for i, (*_, neurons_off) in enumerate(conditions):
            if scores[i] is None:
                with deactivated(scorer.head, neurons_off, by):
                    scores[i] = scorer.evaluate("test")[0]
        for (condition, source, draw, _, _), row in zip(conditions, scores, strict=True):
            rows.append(result_row(condition, source, draw, eval_task, scorer.metric, row))
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
    each task's ``neurons`` off (``task``), then ``random_draws`` random draws of its
    own task's count over all layers (``random``, paper B's) and as many layer-matched
    ones (``random_layer_matched``, ours), draw ``d`` of each from ``seed + d``
    (:func:`skillneurons.paper_b.random_neurons.random_sets`; ``width`` neurons per
    layer)."""
    for eval_task in eval_tasks:
        yield "original", "", 0, eval_task, {}
        for source, chosen in neurons.items():
            yield "task", source, 0, eval_task, chosen
        for condition, draw, random in random_sets(neurons[eval_task], width, random_draws, seed):
            yield condition, eval_task, draw, eval_task, random
