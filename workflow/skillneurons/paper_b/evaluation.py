"""Evaluating paper B's models: per-sample results of one model on every task, with or
without some neurons deactivated.

Deactivation (paper B, §4.1) sets the chosen neurons' activations to 0 at every
position: the perturbation edit of kind ``zero``
(:func:`skillneurons.neurons.perturbation.perturbed_predictions`), or, with
``by="weights"``, their output-projection columns zeroed for the evaluation; both
give the same logits (tested). Every result keeps which samples were right, for the
findings' paired bootstrap.

Results table (the experiments' Parquet files): one row per evaluation with
``condition`` (what was done to the model: ``original``, ``task``, ``random``,
``zero_shot``, ...), ``source`` (the task whose neurons were used; empty for none),
``draw`` (random draw, 0 otherwise), ``eval_task``, ``accuracy`` (float64) and
``correct`` (bool per test sample, in split order).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import contextmanager

import numpy as np
import pandas as pd
import torch

from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.sites import ffn_sites, output_weight
from skillneurons.models.training import predict
from skillneurons.neurons.perturbation import PerturbationSettings, perturbed_predictions

COLUMNS = ("condition", "source", "draw", "eval_task", "accuracy", "correct")
DEACTIVATION = ("activations", "weights")


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


def correct_on(
    classifier: torch.nn.Module,
    split: EncodedSplit,
    batch_size: int,
    deactivated: Mapping[int, np.ndarray] | None = None,
    by: str = "activations",
) -> np.ndarray:
    """Bool ``[samples]``: which of ``split``'s samples ``classifier`` gets right, with
    ``deactivated`` neurons (``{layer: indices}``) off if given."""
    if by not in DEACTIVATION:
        raise ValueError(f"deactivation by {by!r} is unknown; use one of {DEACTIVATION}")
    pad_id = classifier.pad_id
    if not deactivated or not any(len(v) for v in deactivated.values()):
        predicted = predict(classifier, split, batch_size, pad_id)
    elif by == "weights":
        with zeroed_columns(classifier, deactivated):
            predicted = predict(classifier, split, batch_size, pad_id)
    else:
        settings = PerturbationSettings(kind="zero", positions="all")
        predicted = perturbed_predictions(
            classifier, split, deactivated, settings, pad_id, batch_size
        )
    return (predicted == split.labels).numpy()


def result_row(condition: str, source: str, draw: int, eval_task: str, correct) -> dict:
    correct = np.asarray(correct, dtype=bool)
    return {
        "condition": condition,
        "source": source,
        "draw": int(draw),
        "eval_task": eval_task,
        "accuracy": float(correct.mean()),
        "correct": correct,
    }


def results_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return frame.astype({"draw": "int64", "accuracy": "float64"})
