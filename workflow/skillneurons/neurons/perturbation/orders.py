"""The orders neurons are perturbed in (paper A §4.2, Figures 4, 11, 15; appendix H).

An order is a 1-D int64 array of flat neuron ids, most important first
(:mod:`skillneurons.neurons.perturbation`). Besides each source task's predictivity
order (:meth:`skillneurons.neurons.ranking.Ranking.order`) and the selectivity index's,
a file sweeps two random controls: uniform random orders (the paper's: random neurons of
any layer, :func:`uniform_random_orders`) and layer-matched ones (as many neurons of each
layer as a task's own order at every rate, the findings' control,
:func:`layer_matched_random_orders`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from skillneurons.neurons.perturbation.curve_table import LAYER_MATCHED
from skillneurons.neurons.ranking import Ranking, interleave_layers, layer_offsets
from skillneurons.neurons.selectivity import selectivity_order


@dataclass(frozen=True)
class NamedOrder:
    """An order to sweep: its name (a source task, ``random``, ``selectivity``), its type
    (``task``, ``random`` or ``selectivity``), the repeat index of random orders, ids."""

    name: str
    order_type: str
    order: np.ndarray
    repeat: int = 0


def uniform_random_orders(total: int, count: int, seed: int) -> list[np.ndarray]:
    """``count`` random permutations of ``range(total)`` (int64), reproducible from ``seed``."""
    generator = np.random.default_rng(seed)
    return [generator.permutation(total).astype(np.int64) for _ in range(count)]


def layer_matched_random_orders(
    order: np.ndarray, widths: Sequence[int], count: int, seed: int
) -> list[np.ndarray]:
    """``count`` random orders with the layer of ``order`` at every position: each prefix
    perturbs as many neurons of each layer as ``order``'s prefix (the control a
    layer-concentrated order must be compared with), the neurons within each layer
    drawn at random. Reproducible from ``seed``."""
    order = np.asarray(order, dtype=np.int64)
    offsets = layer_offsets(widths)
    layer = np.searchsorted(offsets, order, side="right") - 1
    generator = np.random.default_rng(seed)
    matched = []
    for _ in range(count):
        drawn = np.empty_like(order)
        for index, width in enumerate(widths):
            where = layer == index
            drawn[where] = offsets[index] + generator.permutation(width)[: int(where.sum())]
        matched.append(drawn)
    return matched


def perturbed_count(rate: float, total: int) -> int:
    """``round(rate * total)``, half up: the number of neurons perturbed at ``rate``."""
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"perturbation rate must lie in [0, 1]; got {rate}")
    return int(np.floor(rate * total + 0.5))


def perturbation_orders(
    rankings: Mapping[str, Ranking],
    selectivity: np.ndarray | None,
    layer_matched_count: int,
    seed: int,
    scope: str = "global",
    matched_to: str | None = None,
    uniform_count: int | None = None,
) -> list[NamedOrder]:
    """The orders one evaluation job sweeps (Figures 4, 11, 15).

    Parameters
    ----------
    rankings : source task -> its ranking (predictivity order, :meth:`Ranking.order`).
    selectivity : ``[layers, neurons]`` selectivity index of the evaluation task
        (:mod:`skillneurons.neurons.selectivity`), or None to leave that order out.
    layer_matched_count : number of layer-matched random orders (config
        ``perturbation.layer_matched_orders``), and of uniform random ones (drawn with
        ``seed``, :func:`uniform_random_orders`) unless ``uniform_count`` is set.
    scope : ``"global"`` or ``"per_layer"`` (config ``ranking.scope``), applied to every
        order so that all of them perturb the same number of neurons per layer.
    matched_to : the source task (a key of ``rankings``, normally the evaluation task)
        whose order the layer-matched random orders follow
        (:func:`layer_matched_random_orders`, drawn with ``seed + 1``, named
        ``random_layer_matched``, type :data:`LAYER_MATCHED`); None: none.
    uniform_count : number of uniform random orders (the paper's control, drawn in
        every layer; config ``perturbation.uniform_orders``); None:
        ``layer_matched_count``.
    """
    orders = [NamedOrder(task, "task", ranking.order(scope)) for task, ranking in rankings.items()]
    if selectivity is not None:
        layers, neurons = np.shape(selectivity)
    elif rankings:
        layers, neurons = next(iter(rankings.values())).shape
    else:
        raise ValueError("perturbation orders need at least one ranking or a selectivity index")
    widths = [neurons] * layers
    if selectivity is not None:
        order = selectivity_order(selectivity)
        if scope == "per_layer":
            order = interleave_layers(order, widths)
        orders.append(NamedOrder("selectivity", "selectivity", order))
    uniform = layer_matched_count if uniform_count is None else uniform_count
    for repeat, order in enumerate(uniform_random_orders(layers * neurons, uniform, seed)):
        if scope == "per_layer":
            order = interleave_layers(order, widths)
        orders.append(NamedOrder("random", "random", order, repeat))
    if matched_to is not None:
        own = rankings[matched_to].order(scope)
        matched = layer_matched_random_orders(own, widths, layer_matched_count, seed + 1)
        for repeat, order in enumerate(matched):
            orders.append(NamedOrder("random_layer_matched", LAYER_MATCHED, order, repeat))
    return orders
