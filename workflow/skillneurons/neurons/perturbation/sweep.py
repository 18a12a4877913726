"""Accuracy while neurons are perturbed, order after order and rate after rate (paper A
§4.2, Figures 4, 11-13, 15).

:func:`perturbed_predictions` evaluates a classifier with a set of neurons perturbed
(:mod:`skillneurons.neurons.perturbation.noise`); :func:`sweep_orders` does so for the
first ``round(rate * N)`` neurons of every order
(:mod:`skillneurons.neurons.perturbation.orders`) at every rate and returns the curve
table (:mod:`skillneurons.neurons.perturbation.curve_table`), the conditions batched
into few forward passes (:func:`grouped_predictions`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from skillneurons.models.encoding import EncodedSplit, repeated_batch
from skillneurons.models.sites import ffn_sites
from skillneurons.models.training import batches_by_length, predict
from skillneurons.neurons.hooks import edit_activations
from skillneurons.neurons.perturbation.curve_table import CURVE_COLUMNS
from skillneurons.neurons.perturbation.noise import (
    PerturbationSettings,
    grouped_perturbation_edits,
    perturbation_edits,
)
from skillneurons.neurons.perturbation.orders import NamedOrder, perturbed_count
from skillneurons.neurons.ranking import split_flat

#: Rows of one forward pass of :func:`sweep_orders` (conditions x batch rows): the
#: conditions of a sweep go through the model this many rows at a time, which bounds
#: the activations' memory.
MAX_ROWS_PER_PASS = 512


def _edit_positions(classifier: torch.nn.Module, settings: PerturbationSettings):
    if settings.positions == "all":
        return None
    positions = getattr(classifier, "prompt_positions", None)
    if positions is None:
        raise ValueError(
            f"perturbation positions 'prompt' need a prompted classifier; "
            f"{type(classifier).__name__} has no prompt_positions (use positions 'all')"
        )
    return positions


def perturbed_predictions(
    classifier: torch.nn.Module,
    split: EncodedSplit,
    neurons: Mapping[int, np.ndarray | torch.Tensor],
    settings: PerturbationSettings,
    pad_id: int,
    batch_size: int,
    baseline: np.ndarray | torch.Tensor | None = None,
    scale: np.ndarray | torch.Tensor | None = None,
) -> torch.Tensor:
    """Predicted labels ``[samples]`` on ``split`` while ``neurons`` (``{layer:
    indices}``) are perturbed. With no neurons no hook is installed, so the result is
    the unperturbed prediction."""
    if not any(len(chosen) for chosen in neurons.values()):
        return predict(classifier, split, batch_size, pad_id)
    edits = perturbation_edits(
        classifier,
        neurons,
        settings,
        positions=_edit_positions(classifier, settings),
        baseline=baseline,
        scale=scale,
    )
    with edit_activations(classifier, edits):
        return predict(classifier, split, batch_size, pad_id)


def perturbed_accuracy(
    classifier: torch.nn.Module,
    split: EncodedSplit,
    neurons: Mapping[int, np.ndarray | torch.Tensor],
    settings: PerturbationSettings,
    pad_id: int,
    batch_size: int,
    baseline: np.ndarray | torch.Tensor | None = None,
    scale: np.ndarray | torch.Tensor | None = None,
) -> float:
    """Accuracy on ``split`` while ``neurons`` are perturbed (:func:`perturbed_predictions`)."""
    predicted = perturbed_predictions(
        classifier, split, neurons, settings, pad_id, batch_size, baseline, scale
    )
    return (predicted == split.labels).float().mean().item()


@torch.inference_mode()
def grouped_predictions(
    classifier: torch.nn.Module,
    split: EncodedSplit,
    conditions: Sequence[Mapping[int, np.ndarray | torch.Tensor]],
    settings: PerturbationSettings,
    pad_id: int,
    batch_size: int,
    baseline: np.ndarray | torch.Tensor | None = None,
    scale: np.ndarray | torch.Tensor | None = None,
    max_rows: int = MAX_ROWS_PER_PASS,
) -> torch.Tensor:
    """Predicted labels ``[conditions, samples]``: :func:`perturbed_predictions` of each
    condition (``{layer: indices}``), ``max_rows // batch_size`` conditions per forward
    pass of each batch of ``split`` (the batch's rows once per condition, each
    condition's rows with its own neurons perturbed: :func:`grouped_perturbation_edits`).
    The noise of each condition's rows is that of its own pass; the logits can differ
    from it only by the rounding of larger matrix products."""
    was_training = classifier.training
    classifier.eval()
    positions = _edit_positions(classifier, settings)
    predictions = torch.empty(len(conditions), len(split), dtype=torch.long)
    device = next(classifier.parameters()).device
    per_pass = max(1, max_rows // batch_size)
    for start in range(0, len(conditions), per_pass):
        chunk = conditions[start : start + per_pass]
        edits = grouped_perturbation_edits(
            classifier, chunk, settings, positions=positions, baseline=baseline, scale=scale
        )
        with edit_activations(classifier, edits):
            for rows in batches_by_length(split, batch_size):
                batch = repeated_batch(split.batch(rows, pad_id, device), len(chunk))
                logits = classifier(**batch).argmax(dim=-1).view(len(chunk), len(rows))
                predictions[start : start + len(chunk), rows] = logits.cpu()
    classifier.train(was_training)
    return predictions


def sweep_orders(
    classifier: torch.nn.Module,
    split: EncodedSplit,
    orders: Sequence[NamedOrder],
    rates: Sequence[float],
    settings: PerturbationSettings,
    pad_id: int,
    batch_size: int,
    baseline: np.ndarray | torch.Tensor | None = None,
    scale: np.ndarray | torch.Tensor | None = None,
    max_rows: int = MAX_ROWS_PER_PASS,
) -> pd.DataFrame:
    """Accuracy on ``split`` at each rate, perturbing the first ``round(rate * N)`` neurons
    of each order (paper A, Figures 4, 11-13, 15), as one table: the columns
    :data:`CURVE_COLUMNS` and ``correct`` (bool ``[samples]`` per row, in split order:
    which predictions were right, for the findings' paired bootstrap).

    ``orders`` hold int64 ``[N]`` flat neuron ids, most important first
    (:mod:`skillneurons.neurons.perturbation.orders`); ``classifier`` returns label
    logits and contains the backbone whose FFN sites are perturbed; ``baseline`` is
    ``a_bsl`` for ``kind="baseline"`` and ``scale`` each neuron's std for the
    ``neuron_std`` unit (:func:`skillneurons.neurons.perturbation.noise.perturbation_edits`).

    The unperturbed predictions (rate 0, and any rate that perturbs no neuron) are
    computed once and shared by all orders. The perturbed conditions go through the
    model together, ``max_rows // batch_size`` of them per pass
    (:func:`grouped_predictions`).
    """
    widths = [site.width for site in ffn_sites(classifier)]
    total = int(sum(widths))
    conditions = []
    for named in orders:
        if np.asarray(named.order).shape != (total,):
            raise ValueError(
                f"order {named.name!r} must hold all {total} flat neuron ids; "
                f"got shape {np.asarray(named.order).shape}"
            )
        conditions += [(named, float(rate), perturbed_count(rate, total)) for rate in rates]
    perturbed = [i for i, (_, _, count) in enumerate(conditions) if count > 0]
    predicted = {}
    if len(perturbed) < len(conditions):
        unperturbed = predict(classifier, split, batch_size, pad_id)
        predicted = dict.fromkeys(range(len(conditions)), unperturbed)
    neurons = [split_flat(conditions[i][0].order[: conditions[i][2]], widths) for i in perturbed]
    labels = grouped_predictions(
        classifier, split, neurons, settings, pad_id, batch_size, baseline, scale, max_rows
    )
    predicted.update(zip(perturbed, labels, strict=True))
    rows, correct = [], []
    for i, (named, rate, count) in enumerate(conditions):
        right = (predicted[i] == split.labels).numpy()
        rows.append((named.name, named.order_type, named.repeat, rate, count, right.mean()))
        correct.append(right)
    frame = pd.DataFrame(rows, columns=list(CURVE_COLUMNS)).astype(CURVE_COLUMNS)
    frame["correct"] = pd.Series(correct, dtype=object)
    return frame
