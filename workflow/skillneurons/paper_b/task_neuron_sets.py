"""Task-neuron sets as flat ids and how two such sets overlap (paper B, A.6-A.7, Eq. 13):
the arithmetic behind B-T8 and B-T9..B-T11.

A group's neurons are the union of its tasks' top-``p`` sets (``N_x`` of its training
tasks, ``N_y`` of its test tasks); a neuron is one flat id ``layer * width + neuron``.
The generalization experiment trains such sets (:mod:`skillneurons.paper_b.generalization`,
which imports torch) and its appendix reports compare them
(:mod:`skillneurons.paper_b.overlap_report`,
:mod:`skillneurons.paper_b.controlled_overlap_report`); all read them here, free of torch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.neurons.relevance_table import task_neurons

Neurons = Mapping[int, np.ndarray]


def flat_ids(neurons: Neurons, width: int) -> np.ndarray:
    """Sorted flat ids ``layer * width + neuron`` of ``{layer: indices}``."""
    parts = [layer * width + np.asarray(chosen, np.int64) for layer, chosen in neurons.items()]
    return np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)


def from_flat(ids: np.ndarray, layers: int, width: int) -> dict[int, np.ndarray]:
    """``{layer: sorted indices}`` of flat ids (every layer present)."""
    ids = np.asarray(ids, np.int64)
    return {layer: np.sort(ids[ids // width == layer] % width) for layer in range(layers)}


def union(sets: Sequence[Neurons]) -> dict[int, np.ndarray]:
    """The union of several neuron sets, ``{layer: sorted indices}`` over every layer
    any of them has."""
    layers = sorted({int(layer) for chosen in sets for layer in chosen})
    return {
        layer: np.unique(
            np.concatenate([np.asarray(chosen.get(layer, []), np.int64) for chosen in sets])
        )
        for layer in layers
    }


def top_sets(
    tables: Mapping[str, pd.DataFrame], proportion: float
) -> dict[str, dict[int, np.ndarray]]:
    """Each task's top ``proportion`` of neurons by relevance (over all layers)."""
    return {task: task_neurons(table, proportion) for task, table in tables.items()}


def union_ids(tables: Mapping[str, pd.DataFrame], proportion: float, width: int) -> np.ndarray:
    """Sorted flat ids of the union of the tasks' top ``proportion`` sets (a group's
    ``N_x`` or ``N_y``, A.6-A.7)."""
    return flat_ids(union(list(top_sets(tables, proportion).values())), width)


def overlap_rate(first: np.ndarray, second: np.ndarray) -> float:
    """Eq. 13: ``|N_x ∩ N_y| / |N_x ∪ N_y|`` of two sets of flat ids."""
    joint = len(np.union1d(first, second))
    return len(np.intersect1d(first, second)) / joint if joint else float("nan")


def share_in(first: np.ndarray, second: np.ndarray) -> float:
    """A.7's ``o`` of a trained set: ``|N_x ∩ N_y| / |N_x|``, the share of ``first``'s
    flat ids that are in ``second`` (the test tasks' neurons)."""
    return len(np.intersect1d(first, second)) / len(first) if len(first) else float("nan")


def random_overlap(size_x: int, size_y: int, total: int) -> float:
    """The overlap rate random sets of ``size_x`` and ``size_y`` of ``total`` neurons
    have, as the ratio of the expected intersection ``size_x size_y / total`` to the
    expected union."""
    shared = size_x * size_y / total
    joint = size_x + size_y - shared
    return shared / joint if joint else float("nan")
