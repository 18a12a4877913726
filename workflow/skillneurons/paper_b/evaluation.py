"""Evaluating paper B's models: per-sample results of one model on every task, with or
without some neurons deactivated.

Deactivation (paper B, §4.1) sets the chosen neurons' activations to 0 at every
position (:func:`deactivated`, ``by="activations"``: the seam's edit, as the
perturbation of kind ``zero``), or, with ``by="weights"``, zeroes their
output-projection columns for the evaluation; both give the same logits (tested). It
applies to whatever runs inside the block: a classifier's predictions or a causal LM's
greedy decoding (generated tokens included). Every result keeps each test sample's
score, for the findings' paired bootstrap.

Results table of paper B's part 1 (B-T1, B-T2, zero-shot; classification and
generation tasks alike): one row per evaluation with ``condition`` (what was done to
the model: ``original``, ``task``, ``random`` (paper B's random sets, drawn over all
layers), ``random_layer_matched`` (ours; :mod:`skillneurons.paper_b.random_neurons`),
``zero_shot``), ``source`` (the task whose neurons were used, or whose count a random
set matches; empty for none), ``draw`` (random draw, 0 otherwise),
``eval_task``, ``metric`` (``accuracy`` or ``rouge_l``: the task's
:attr:`skillneurons.paper_b.scorers.TaskScorer.metric`), ``score`` (float64, the mean)
and ``sample_scores`` (float64 per test sample, in split order: 1.0 or 0.0 for a right
or wrong label, or the ROUGE-L F1). A compared training's results (B-T2's) start with
``run``, the training run (:data:`RUN_COLUMNS`, :mod:`skillneurons.paper_b.runs`);
tables average the runs, the findings resample them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import numpy as np
import pandas as pd
import torch

from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.sites import ffn_sites, output_weight
from skillneurons.models.training import predict
from skillneurons.neurons.hooks import NeuronEdit, edit_activations

COLUMNS = ("condition", "source", "draw", "eval_task", "metric", "score", "sample_scores")
#: The results of one run of a compared training (config ``paper_b.runs``): ``run`` first.
RUN_COLUMNS = ("run", *COLUMNS)
#: The columns that name an evaluation (what :func:`skillneurons.paper_b.runs.run_means`
#: averages the runs of).
KEYS = ("condition", "source", "draw", "eval_task", "metric")
#: How a neuron is deactivated (config ``paper_b.deactivation``).
DEACTIVATION_METHODS = ("activations", "weights")


@contextmanager
def zeroed_columns(model: torch.nn.Module, neurons: Mapping[int, np.ndarray]):
    """The output-projection columns of ``neurons`` set to 0 inside the block, restored
    bit-identically after it (deactivation by weights)."""
    sites = ffn_sites(model)
    saved = {}
    with torch.no_grad():
        for layer, chosen in neurons.items():
            index = torch.as_tensor(np.asarray(chosen), dtype=torch.long)
            weight = output_weight(sites[layer])
            saved[layer] = (index, weight[:, index].clone())
            weight[:, index] = 0.0
    try:
        yield
    finally:
        with torch.no_grad():
            for layer, (index, values) in saved.items():
                output_weight(sites[layer])[:, index] = values


@contextmanager
def deactivated(
    model: torch.nn.Module, neurons: Mapping[int, np.ndarray], by: str = "activations"
) -> Iterator[None]:
    """Inside the block, ``neurons`` (``{layer: indices}``) of ``model`` are off: their
    activations set to 0 at every position (``by="activations"``) or their
    output-projection columns zeroed (``by="weights"``). With no neurons nothing is
    changed."""
    if by not in DEACTIVATION_METHODS:
        raise ValueError(
            f"deactivation by {by!r} is unknown (config key 'paper_b.deactivation'); "
            f"use one of {DEACTIVATION_METHODS}"
        )
    if not neurons or not any(len(v) for v in neurons.values()):
        yield
    elif by == "weights":
        with zeroed_columns(model, neurons):
            yield
    else:
        edits = {layer: NeuronEdit(chosen, "set", 0.0) for layer, chosen in neurons.items()}
        with edit_activations(model, edits):
            yield


def correct_on(
    classifier: torch.nn.Module,
    split: EncodedSplit,
    batch_size: int,
    neurons_off: Mapping[int, np.ndarray] | None = None,
    by: str = "activations",
) -> np.ndarray:
    """Bool ``[samples]``: which of ``split``'s samples ``classifier`` gets right, with
    ``neurons_off`` (``{layer: indices}``) :func:`deactivated` if given."""
    with deactivated(classifier, neurons_off or {}, by):
        predicted = predict(classifier, split, batch_size, classifier.pad_id)
    return (predicted == split.labels).numpy()


def result_row(
    condition: str, source: str, draw: int, eval_task: str, metric: str, scores
) -> dict:
    """One evaluation's row of the results table (the module docstring) from its
    per-sample ``scores``."""
    scores = np.asarray(scores, dtype=np.float64)
    return {
        "condition": condition,
        "source": source,
        "draw": int(draw),
        "eval_task": eval_task,
        "metric": metric,
        "score": float(scores.mean()),
        "sample_scores": scores,
    }


def results_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return frame.astype({"draw": "int64", "score": "float64"})
