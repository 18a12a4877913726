"""Accuracy while neurons are perturbed, order after order and rate after rate (paper A
§4.2, Figures 4, 11-13, 15).

:func:`perturbed_predictions` evaluates a classifier with a set of neurons perturbed
(:mod:`skillneurons.neurons.perturbation.noise`); :func:`sweep_orders` does so for the
first ``round(rate * N)`` neurons of every order
(:mod:`skillneurons.neurons.perturbation.orders`) at every rate and returns the curve
table (:mod:`skillneurons.neurons.perturbation.curve_table`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.sites import ffn_sites
from skillneurons.models.training import predict
from skillneurons.neurons.hooks import edit_activations
from skillneurons.neurons.perturbation.curve_table import CURVE_COLUMNS
from skillneurons.neurons.perturbation.noise import PerturbationSettings, perturbation_edits
from skillneurons.neurons.perturbation.orders import NamedOrder, perturbed_count
from skillneurons.neurons.ranking import split_flat


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
    computed once and shared by all orders.
    """
    widths = [site.width for site in ffn_sites(classifier)]
    total = int(sum(widths))
    unperturbed = None
    rows, correct = [], []
    for named in orders:
        if np.asarray(named.order).shape != (total,):
            raise ValueError(
                f"order {named.name!r} must hold all {total} flat neuron ids; "
                f"got shape {np.asarray(named.order).shape}"
            )
        for rate in rates:
            count = perturbed_count(rate, total)
            if count == 0:
                if unperturbed is None:
                    unperturbed = predict(classifier, split, batch_size, pad_id)
                predicted = unperturbed
            else:
                neurons = split_flat(named.order[:count], widths)
                predicted = perturbed_predictions(
                    classifier, split, neurons, settings, pad_id, batch_size, baseline, scale
                )
            right = (predicted == split.labels).numpy()
            rows.append(
                (named.name, named.order_type, named.repeat, float(rate), count, right.mean())
            )
            correct.append(right)
    frame = pd.DataFrame(rows, columns=list(CURVE_COLUMNS)).astype(CURVE_COLUMNS)
    frame["correct"] = pd.Series(correct, dtype=object)
    return frame
