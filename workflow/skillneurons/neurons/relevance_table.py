"""Paper B's task-specific neuron sets from a task-neuron table (§3; the table of
``results/{model}/task_neurons/{task}.parquet``, :mod:`skillneurons.paper_b.relevance`):
the top ``k``% by relevance and the relevance matrix. In the neurons layer and free of
torch, so that reports that show both papers (the neuron explorer) read the sets without
a model library or an import across papers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def layer_width(table: pd.DataFrame) -> int:
    """Neurons per layer of a task-neuron table."""
    return int(table["neuron"].max()) + 1


def task_neurons(
    table: pd.DataFrame, fraction: float, per_layer: bool = False
) -> dict[int, np.ndarray]:
    """The top ``fraction`` of neurons by relevance (paper B: 10%), ``{layer: sorted
    int64 indices}``: over all layers (``round(fraction * total)``, half up), or
    ``round(fraction * width)`` within every layer."""
    layers, width = int(table["layer"].max()) + 1, layer_width(table)
    if per_layer:
        count = int(np.floor(fraction * width + 0.5))
        chosen = table[table["rank_in_layer"] < count]
    else:
        count = int(np.floor(fraction * layers * width + 0.5))
        chosen = table[table["rank"] < count]
    return {
        layer: np.sort(chosen.loc[chosen["layer"] == layer, "neuron"].to_numpy(np.int64))
        for layer in range(layers)
    }


def relevance_matrix(table: pd.DataFrame) -> np.ndarray:
    """``[layers, neurons]`` relevance from a task-neuron table."""
    values = np.full((int(table["layer"].max()) + 1, layer_width(table)), np.nan)
    values[table["layer"].to_numpy(), table["neuron"].to_numpy()] = table["relevance"]
    return values
