"""The class selectivity index of Morcos et al. (2018), as paper A's appendix H uses it.

Morcos et al. define a unit's selectivity index from its class-conditional mean
activations ``mu_c``:

    SI = (mu_max - mu_-max) / (mu_max + mu_-max),

where ``mu_max`` is the largest class mean and ``mu_-max`` the mean of the other
classes' means. Paper A (appendix H, Figure 15) perturbs neurons "in descending
orders of their selectivity index" under its own setup, i.e. on the activations at
the soft-prompt tokens. Choices made here, where the paper is silent:

- **Where**: every (layer, prompt token, neuron) of the dev activation dump gets an
  index; a neuron's index is the **maximum over prompt tokens**, like predictivity
  (Eq. 6), then the **mean over trials**.
- **Classes**: the task's own labels (two or three), so multi-class tasks need no
  binary subtasks.
- **Sign**: the formula assumes non-negative (ReLU) activity; GELU and SiLU neurons can
  be negative, which would make the denominator vanish or flip sign. Activations are
  therefore measured from the cell's minimum over the dev samples ``m``:
  ``mu_c - m >= 0``, so ``SI = (mu_max - mu_-max) / (mu_max + mu_-max - 2m)`` lies in
  ``[0, 1]``; for a ReLU unit that is silent on some sample (``m = 0``) it is exactly
  Morcos et al.'s index. A cell whose activation never changes gets 0.

File ``results/{model}/selectivity/{task}.safetensors``: float32 ``[layers, neurons]``
tensors ``trial{t}`` (max over prompt tokens) and ``mean`` (over trials).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from skillneurons.infra.io import read_arrays, write_arrays
from skillneurons.neurons.activation_dump import activation_shape, iter_activations


def selectivity_index(class_means: np.ndarray, minimum: np.ndarray | float = 0.0) -> np.ndarray:
    """Morcos et al.'s selectivity index from class-conditional means.

    Parameters
    ----------
    class_means : ``[classes, ...]`` mean activation per class (at least two classes).
    minimum : ``[...]`` (or a scalar) the lowest activation of each cell, subtracted
        so that activity is non-negative (0 for ReLU units).

    Returns
    -------
    float64 ``[...]`` in ``[0, 1]``: ``(mu_max - mu_-max) / (mu_max + mu_-max)`` of the
    shifted means, where ``mu_-max`` is the mean of the non-maximal classes' means;
    0 where both are 0.
    """
    means = np.asarray(class_means, dtype=np.float64)
    if means.ndim < 1 or means.shape[0] < 2:
        raise ValueError(f"class_means needs at least two classes on axis 0; got {means.shape}")
    shifted = means - np.asarray(minimum, dtype=np.float64)
    top = shifted.max(axis=0)
    rest = (shifted.sum(axis=0) - top) / (shifted.shape[0] - 1)
    denominator = top + rest
    with np.errstate(invalid="ignore", divide="ignore"):
        index = np.where(denominator > 0, (top - rest) / denominator, 0.0)
    return index


class SelectivityAccumulator:
    """Streams ``[rows, layers, tokens, neurons]`` blocks into class sums and the minimum."""

    def __init__(self, shape: Sequence[int], classes: int):
        self.sums = np.zeros((classes, *shape), dtype=np.float64)
        self.counts = np.zeros(classes, dtype=np.int64)
        self.minimum = np.full(tuple(shape), np.inf, dtype=np.float64)

    def update(self, activations: np.ndarray, labels: np.ndarray) -> None:
        block = np.asarray(activations, dtype=np.float32)
        labels = np.asarray(labels, dtype=np.int64)
        if labels.size and not 0 <= labels.min() <= labels.max() < len(self.counts):
            raise ValueError(f"labels must lie in 0..{len(self.counts) - 1}")
        for label in np.unique(labels):
            chosen = block[labels == label]
            self.sums[label] += chosen.sum(axis=0, dtype=np.float64)
            self.counts[label] += len(chosen)
        if len(block):
            np.minimum(self.minimum, block.min(axis=0), out=self.minimum)

    def index(self) -> np.ndarray:
        """``[layers, tokens, neurons]`` selectivity index over the classes seen."""
        seen = self.counts > 0
        if seen.sum() < 2:
            raise ValueError(
                f"the selectivity index needs samples of at least two classes; "
                f"got counts {self.counts.tolist()}"
            )
        means = self.sums[seen] / self.counts[seen].reshape(-1, *[1] * (self.sums.ndim - 1))
        return selectivity_index(means, self.minimum)


def trial_selectivity(dump_path: str, classes: int) -> np.ndarray:
    """A trial's ``[layers, neurons]`` selectivity index: max over prompt tokens of the
    index of each (layer, token, neuron) on the dumped samples (streamed)."""
    accumulator = SelectivityAccumulator(activation_shape(dump_path), classes)
    for batch in iter_activations(dump_path):
        accumulator.update(batch.activations, batch.labels)
    return accumulator.index().max(axis=1)


def write_selectivity(
    path: str, per_trial: Sequence[np.ndarray], metadata: Mapping[str, object]
) -> None:
    """Write the selectivity file (see the module docstring) atomically."""
    arrays = {
        f"trial{trial}": np.asarray(index, dtype=np.float32)
        for trial, index in enumerate(per_trial)
    }
    arrays["mean"] = np.mean(per_trial, axis=0).astype(np.float32)
    write_arrays(path, arrays, metadata)


def read_selectivity(path: str) -> np.ndarray:
    """The trial-mean ``[layers, neurons]`` selectivity index of a selectivity file."""
    return read_arrays(path)["mean"]


def selectivity_order(index: np.ndarray) -> np.ndarray:
    """Flat ids ``layer * neurons + neuron`` by descending index (ties: lower id first)."""
    values = np.asarray(index, dtype=np.float64).reshape(-1)
    return np.argsort(-values, kind="stable").astype(np.int64)
