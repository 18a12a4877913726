"""Paper B's random neuron sets: the baselines of B-T1 ("Deactivate-Random"), B-T2
("Train-Random") and B-F5c/d's control, two kinds in every draw.

``random`` (:data:`RANDOM`, paper B's)
    "the same number of neurons randomly selected" (§4.1-§4.2, the captions of Tables 1,
    2, 6 and 7): as many neurons as the task's set holds in all, drawn uniformly without
    replacement over every neuron of every layer (:func:`global_random_neurons`). A layer
    gets what the draw puts there, about the same share of every layer, whatever the
    task's set holds in it. The findings decide the paper's claims on these sets.
``random_layer_matched`` (:data:`RANDOM_LAYER_MATCHED`, ours)
    as many neurons in every layer as the task's set has there
    (:func:`matched_random_neurons`): stricter than the paper's, since the top k% over
    all layers gathers in some layers and deactivating or training neurons there may
    matter more whichever neurons they are. Its findings rows are marked as ours.

Seeds. A run's draws start at seed ``s`` (config ``seed + run x paper_b.random_draws``,
:meth:`skillneurons.plan.paper_b.PaperBPlan.draw_seed`); draw ``d``'s layer-matched set
comes from ``numpy.random.default_rng(s + d)``, as every earlier version drew it, and
its global set from ``default_rng([s + d, GLOBAL_STREAM])``, a stream of its own: the
layer-matched sets are those drawn before the global kind existed. Each kind has
``paper_b.random_draws`` draws per run. Free of torch, so that the findings and tables
read the condition names without a model library.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping

import numpy as np

#: The ``condition`` of paper B's random sets (the findings' paper rows).
RANDOM = "random"
#: The ``condition`` of the layer-matched random sets (ours).
RANDOM_LAYER_MATCHED = "random_layer_matched"
#: Both kinds, in the order a results file lists them.
RANDOM_CONDITIONS = (RANDOM, RANDOM_LAYER_MATCHED)
#: The second entropy word of the global draws' seeds (the module docstring).
GLOBAL_STREAM = zlib.crc32(b"random neurons over all layers")


def global_random_neurons(
    neurons: Mapping[int, np.ndarray], width: int, seed: int
) -> dict[int, np.ndarray]:
    """Paper B's random baseline: as many neurons as ``neurons`` holds in all, drawn
    uniformly without replacement over every neuron of its layers (``{layer: indices}``
    with every layer of the model, as :func:`skillneurons.neurons.relevance_table.
    task_neurons` gives it; ``width`` neurons per layer) with
    ``default_rng([seed, GLOBAL_STREAM])``; ``{layer: sorted int64 indices}`` for the
    same layers."""
    layers = sorted(neurons)
    if layers != list(range(len(layers))):
        raise ValueError(
            f"a global random draw needs every layer of the model from 0; got layers {layers}"
        )
    total = sum(len(chosen) for chosen in neurons.values())
    generator = np.random.default_rng([seed, GLOBAL_STREAM])
    flat = generator.choice(len(layers) * width, size=total, replace=False)
    return {
        layer: np.sort(flat[flat // width == layer] % width).astype(np.int64) for layer in layers
    }


def matched_random_neurons(
    neurons: Mapping[int, np.ndarray], width: int, seed: int
) -> dict[int, np.ndarray]:
    """The layer-matched random set (ours): as many random neurons in every layer as
    ``neurons`` has there, each layer's drawn without replacement from its ``width``
    neurons with ``default_rng(seed)``."""
    generator = np.random.default_rng(seed)
    return {
        layer: np.sort(generator.choice(width, size=len(chosen), replace=False)).astype(np.int64)
        for layer, chosen in neurons.items()
    }


def random_sets(
    neurons: Mapping[int, np.ndarray], width: int, draws: int, seed: int
) -> Iterator[tuple[str, int, dict[int, np.ndarray]]]:
    """``(condition, draw, set)`` for ``draws`` draws of each kind, paper B's
    (:data:`RANDOM`) first, then the layer-matched ones (:data:`RANDOM_LAYER_MATCHED`);
    draw ``d`` of either kind from ``seed + d`` (the module docstring)."""
    for draw in range(draws):
        yield RANDOM, draw, global_random_neurons(neurons, width, seed + draw)
    for draw in range(draws):
        yield RANDOM_LAYER_MATCHED, draw, matched_random_neurons(neurons, width, seed + draw)
