"""Neuron rankings and orders: the ``Ranking`` type and flat neuron ids (paper A, §3.1-3.2).

A task's ranking (``results/{model}/rankings/{task}.parquet``, columns
:data:`RANKING_COLUMNS`) sorts every neuron by descending predictivity (§3.1: "sort all
the neurons ... by the descending order of their predictivities"); a multi-class task
is ranked once per binary subtask (§3.2). :class:`Ranking` wraps that table and is the
one place that knows its shape and how to read it:

- :meth:`Ranking.predictivity`: ``[layers, neurons]`` predictivity per subtask;
- :meth:`Ranking.scores`: one score per neuron (the best subtask's predictivity);
- :meth:`Ranking.order`: every neuron best first as flat ids, over all layers or
  interleaved by layer (``scope``); multi-class tasks take their subtasks in turn;
- :meth:`Ranking.top`: the top ``k`` (or a fraction) of the neurons, global or per
  layer, optionally within some layers only;
- :meth:`Ranking.top_cell`: the best (layer, prompt token, neuron).

Flat ids: neuron ``n`` of layer ``l`` is ``sum(widths[:l]) + n``, i.e. ``l * width + n``
when all layers are equally wide (every supported model); :func:`split_flat` maps a set
of flat ids back to ``{layer: neuron indices}`` and :func:`interleave_layers` reorders
an order so that every prefix takes the same number of neurons from each layer.
Ties in predictivity are broken by a seeded random key (:func:`tie_key`; the task
rankings seed it with the run's seed and the task's name), or by ``(layer, neuron)``
order without one. A tie is a tie only between equal floats: the trial means come
exact from the dev counts (:func:`skillneurons.neurons.predictivity.combine_trials`
with ``samples``), so neurons of equal predictivity are equal here and the key, not
float rounding, decides their order.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: columns (and dtypes) of ``results/{model}/rankings/{task}.parquet``.
RANKING_COLUMNS = {
    "layer": "int64",
    "neuron": "int64",
    "predictivity": "float64",
    "sem": "float64",
    "best_token": "int64",
    "rank": "int64",
    "rank_in_layer": "int64",
    "subtask": "string",
}

SCOPES = ("global", "per_layer")


def layer_offsets(widths: Sequence[int]) -> np.ndarray:
    """First flat id of every layer, ``[layers + 1]`` (the last entry is the total)."""
    return np.concatenate([[0], np.cumsum(np.asarray(widths, dtype=np.int64))])


def interleave_layers(order: np.ndarray, widths: Sequence[int]) -> np.ndarray:
    """Reorder ``order`` by (position within its layer, layer): every prefix of
    ``len(widths) * k`` neurons then holds exactly each layer's first ``k`` neurons of
    ``order`` — the per-layer top-k selection of the original code as one flat order."""
    order = np.asarray(order, dtype=np.int64)
    layer = np.searchsorted(layer_offsets(widths), order, side="right") - 1
    position = np.empty_like(order)
    for index in range(len(widths)):
        chosen = layer == index
        position[chosen] = np.arange(int(chosen.sum()))
    return order[np.lexsort((layer, position))]


def split_flat(order: np.ndarray, widths: Sequence[int]) -> dict[int, np.ndarray]:
    """Flat ids -> ``{layer: int64 neuron indices}`` (layers without any are left out)."""
    order = np.asarray(order, dtype=np.int64)
    offsets = layer_offsets(widths)
    if order.size and not 0 <= order.min() <= order.max() < offsets[-1]:
        raise ValueError(f"flat neuron ids must lie in 0..{offsets[-1] - 1}")
    layer = np.searchsorted(offsets, order, side="right") - 1
    return {
        int(index): np.sort(order[layer == index] - offsets[index]) for index in np.unique(layer)
    }


def _check_pred(pred: np.ndarray, name: str = "pred") -> np.ndarray:
    array = np.asarray(pred, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"{name} must have shape [layers, neurons]; got shape {array.shape}")
    return array


def _descending_order(
    values: np.ndarray, axis: int = -1, tie_key: np.ndarray | None = None
) -> np.ndarray:
    """Indices sorting ``values`` best first along ``axis``; ties by ascending
    ``tie_key`` (same shape), or by index order when there is none (stable sort)."""
    if tie_key is None:
        return np.argsort(-values, axis=axis, kind="stable")
    by_key = np.argsort(tie_key, axis=axis, kind="stable")
    resorted = np.argsort(-np.take_along_axis(values, by_key, axis), axis=axis, kind="stable")
    return np.take_along_axis(by_key, resorted, axis)


def tie_key(shape: tuple[int, int], seed: int | Sequence[int]) -> np.ndarray:
    """A seeded random key ``[layers, neurons]`` that orders neurons of equal
    predictivity (ascending key first): with 100 dev samples predictivity takes about 50
    values, so hundreds of neurons tie at any cut, and ties by index would favour the
    lowest layers. It only sees exact ties: the predictivities must be exactly equal
    floats (:func:`skillneurons.neurons.predictivity.combine_trials` with ``samples``)."""
    return np.random.default_rng(seed).permutation(int(np.prod(shape))).reshape(shape)


def rank_neurons(pred: np.ndarray, tie_key: np.ndarray | None = None) -> pd.DataFrame:
    """Rank neurons by descending predictivity (§3.1: "sort all the neurons ... by the
    descending order of their predictivities").

    Parameters
    ----------
    pred : float ``[layers, neurons]``, e.g. the trial mean from
        :func:`skillneurons.neurons.predictivity.combine_trials`.

    Returns
    -------
    A frame with one row per neuron, sorted by ``rank``: ``layer``, ``neuron``,
    ``predictivity``, ``rank`` (global, 0 = most predictive) and ``rank_in_layer``.
    Ties are broken by ``tie_key`` ``[layers, neurons]`` (:func:`tie_key`), or by
    ``(layer, neuron)`` order without one; either way the ranking is deterministic.
    """
    values = _check_pred(pred)
    layers, neurons = values.shape
    key = None if tie_key is None else np.asarray(tie_key).reshape(values.shape)
    order = _descending_order(values.reshape(-1), tie_key=None if key is None else key.ravel())
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size, dtype=np.int64)
    layer_order = _descending_order(values, axis=1, tie_key=key)
    rank_in_layer = np.empty_like(layer_order)
    np.put_along_axis(
        rank_in_layer,
        layer_order,
        np.broadcast_to(np.arange(neurons, dtype=np.int64), values.shape),
        axis=1,
    )
    frame = pd.DataFrame(
        {
            "layer": (order // neurons).astype(np.int64),
            "neuron": (order % neurons).astype(np.int64),
            "predictivity": values.reshape(-1)[order],
            "rank": rank[order],
            "rank_in_layer": rank_in_layer.reshape(-1)[order].astype(np.int64),
        }
    )
    return frame


def _round_robin(orders: Sequence[np.ndarray], size: int, k: int) -> np.ndarray:
    """Merge best-first orders of flat neuron ids by taking each order's next neuron in
    turn, skipping neurons already taken, until ``k`` distinct neurons (§3.2)."""
    if len(orders) == 1:
        return np.asarray(orders[0][:k], dtype=np.int64)
    taken = bytearray(size)
    cursors = [0] * len(orders)
    lists = [order.tolist() for order in orders]
    chosen: list[int] = []
    while len(chosen) < k:
        progressed = False
        for s, order in enumerate(lists):
            if len(chosen) >= k:
                break
            cursor = cursors[s]
            while cursor < len(order) and taken[order[cursor]]:
                cursor += 1
            if cursor < len(order):
                neuron = order[cursor]
                taken[neuron] = 1
                chosen.append(neuron)
                cursor += 1
                progressed = True
            cursors[s] = cursor
        if not progressed:
            break
    return np.asarray(chosen, dtype=np.int64)


def _resolve_k(fraction_or_k: float | int, total: int) -> int:
    """``k`` from an int count or a fraction in (0, 1] of ``total`` (rounded half up,
    at least 1)."""
    if isinstance(fraction_or_k, bool):
        raise TypeError("fraction_or_k must be a float in (0, 1] or an int k; got a bool")
    if isinstance(fraction_or_k, int | np.integer):
        k = int(fraction_or_k)
        if not 1 <= k <= total:
            raise ValueError(f"k must be between 1 and {total} neurons; got {k}")
        return k
    fraction = float(fraction_or_k)
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"fraction of neurons must be in (0, 1]; got {fraction}")
    return int(min(total, max(1, np.floor(fraction * total + 0.5))))


def ranking_table(
    pred_mean: Mapping[str | None, np.ndarray],
    sem: Mapping[str | None, np.ndarray],
    best_token: Mapping[str | None, np.ndarray],
    tie_key: np.ndarray | None = None,
) -> pd.DataFrame:
    """The table of ``results/{model}/rankings/{task}.parquet``.

    Parameters
    ----------
    pred_mean : subtask -> ``[layers, neurons]`` overall predictivity (Eq. 6). A binary
        task has the single key ``None``; a multi-class task one key per binary subtask
        (§3.2), in the order the subtasks take turns in :meth:`Ranking.order`.
    sem : the same keys, ``[layers, neurons]`` s.e.m. over trials.
    best_token : the same keys, ``[layers, neurons]`` int prompt token index.

    Returns
    -------
    Columns :data:`RANKING_COLUMNS`: ``layer``, ``neuron`` (int64), ``predictivity``,
    ``sem`` (float64), ``best_token``, ``rank``, ``rank_in_layer`` (int64, per
    subtask, see :func:`rank_neurons`) and ``subtask`` (pandas ``string``, null for a
    binary task). Each subtask is ranked separately; rows are grouped by subtask in
    mapping order, then sorted by rank.
    """
    keys = list(pred_mean)
    if not keys:
        raise ValueError("pred_mean is empty; give {None: pred} for a binary task")
    if None in keys and len(keys) > 1:
        raise ValueError(
            f"a binary task has the single key None; a multi-class task one name per "
            f"subtask; got keys {keys}"
        )
    for name, mapping in (("sem", sem), ("best_token", best_token)):
        if list(mapping) != keys:
            raise ValueError(f"{name} must have the keys of pred_mean {keys}; got {list(mapping)}")
    frames = []
    for key in keys:
        values = _check_pred(pred_mean[key], f"pred_mean[{key!r}]")
        errors = np.asarray(sem[key], dtype=np.float64)
        tokens = np.asarray(best_token[key])
        for name, array in (("sem", errors), ("best_token", tokens)):
            if array.shape != values.shape:
                raise ValueError(
                    f"{name}[{key!r}] must have the shape of pred_mean[{key!r}] "
                    f"{values.shape}; got {array.shape}"
                )
        frame = rank_neurons(values, tie_key)
        flat = frame["layer"].to_numpy() * values.shape[1] + frame["neuron"].to_numpy()
        frame["sem"] = errors.reshape(-1)[flat]
        frame["best_token"] = tokens.reshape(-1)[flat].astype(np.int64)
        frame["subtask"] = pd.array([key] * len(frame), dtype="string")
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    return table[list(RANKING_COLUMNS)].astype(RANKING_COLUMNS)


@dataclass(frozen=True, eq=False)
class Ranking:
    """A task's neuron ranking: the table of ``results/{model}/rankings/{task}.parquet``.

    ``table`` has the columns :data:`RANKING_COLUMNS` (:func:`ranking_table`), one row
    per neuron and subtask (``subtask`` null for a binary task). The shape
    ``(layers, neurons)`` is read from the table once, here.
    """

    table: pd.DataFrame

    def __post_init__(self) -> None:
        missing = [column for column in RANKING_COLUMNS if column not in self.table]
        if missing:
            raise ValueError(
                f"ranking table lacks columns {missing}; expected {list(RANKING_COLUMNS)}"
            )
        subtask = self.table["subtask"].astype("string")
        if subtask.isna().any() and not subtask.isna().all():
            raise ValueError("ranking table mixes binary (null subtask) rows and subtask rows")
        layers = int(self.table["layer"].max()) + 1
        neurons = int(self.table["neuron"].max()) + 1
        object.__setattr__(self, "shape", (layers, neurons))
        for key, rows in self._groups():
            if len(rows) != layers * neurons:
                raise ValueError(
                    f"ranking of subtask {key!r} has {len(rows)} rows; expected one per neuron "
                    f"({layers} layers x {neurons} neurons = {layers * neurons})"
                )

    @classmethod
    def from_parquet(cls, path: str | os.PathLike) -> Ranking:
        return cls(pd.read_parquet(path))

    @property
    def layers(self) -> int:
        return self.shape[0]

    @property
    def neurons(self) -> int:
        """Neurons per layer."""
        return self.shape[1]

    @property
    def subtasks(self) -> list[str | None]:
        """The subtask names in table order (the order they take turns), or ``[None]``."""
        subtask = self.table["subtask"].astype("string")
        return [None] if subtask.isna().all() else list(pd.unique(subtask))

    def _groups(self) -> list[tuple[str | None, pd.DataFrame]]:
        subtask = self.table["subtask"].astype("string")
        if subtask.isna().all():
            return [(None, self.table)]
        return [(key, self.table[(subtask == key).to_numpy()]) for key in pd.unique(subtask)]

    def predictivity(self) -> dict[str | None, np.ndarray]:
        """float64 ``[layers, neurons]`` predictivity per subtask (``None`` for a binary
        task), in the order in which subtasks take turns in :meth:`top`."""
        out = {}
        for key, rows in self._groups():
            pred = np.full(self.shape, np.nan)
            pred[rows["layer"].to_numpy(), rows["neuron"].to_numpy()] = rows["predictivity"]
            if np.isnan(pred).any():
                raise ValueError(f"ranking of subtask {key!r} does not cover every neuron")
            out[key] = pred
        return out

    def scores(self) -> np.ndarray:
        """float64 ``[layers, neurons]``: each neuron's trial-mean predictivity (Eq. 6); for
        a multi-class task, the maximum over its subtasks (a neuron ranks high if it is
        a skill neuron of any subtask)."""
        return np.max(np.stack(list(self.predictivity().values())), axis=0)

    def order(self, scope: str = "global") -> np.ndarray:
        """Every neuron, best first, as int64 flat ids ``layer * neurons + neuron``: the
        order in which perturbation takes them (Figures 4, 11).

        Binary task: by ``rank``. Multi-class task: the subtasks take turns, skipping
        neurons already taken, exactly as :meth:`top`. ``scope="per_layer"``
        interleaves the order by layer (:func:`interleave_layers`), so every prefix of
        ``layers * k`` neurons holds each layer's best ``k``.
        """
        if scope not in SCOPES:
            raise ValueError(f"ranking scope {scope!r} is unknown; use one of {SCOPES}")
        size = self.layers * self.neurons
        order = _round_robin(self._subtask_orders(), size, size)
        if scope == "global":
            return order
        return interleave_layers(order, [self.neurons] * self.layers)

    def _subtask_orders(self) -> list[np.ndarray]:
        """Each subtask's neurons as flat ids, by ``rank`` (ties already broken)."""
        orders = []
        for _, rows in self._groups():
            rows = rows.sort_values("rank", kind="stable")
            flat = rows["layer"].to_numpy(np.int64) * self.neurons
            orders.append(flat + rows["neuron"].to_numpy(np.int64))
        return orders

    def top(
        self,
        fraction_or_k: float | int,
        per_layer: bool = False,
        layers: Sequence[int] | None = None,
    ) -> np.ndarray:
        """The top skill neurons, int64 ``[k, 2]`` of ``(layer, neuron)``, in selection
        order, following the table's ranks (so ties fall as the ranking broke them).

        ``fraction_or_k`` is a float in (0, 1], the fraction of the neurons considered
        (``round(f * total)`` half up, at least 1), or an int ``k``. Globally, the best
        of all layers (or of ``layers`` only); with ``per_layer``, the best of every
        layer separately (the original THU-KEG code; the fraction is then of each layer's
        neurons, an int the number per layer), the layers' selections concatenated in
        layer order. A multi-class task's subtasks take turns (§3.2): each contributes
        its best neuron not yet taken, until ``k`` distinct neurons are chosen.
        """
        chosen = list(range(self.layers)) if layers is None else sorted(set(layers))
        size = self.layers * self.neurons
        orders = self._subtask_orders()
        if not per_layer:
            inside = [order[np.isin(order // self.neurons, chosen)] for order in orders]
            k = _resolve_k(fraction_or_k, len(chosen) * self.neurons)
            flat = _round_robin(inside, size, k)
            return np.stack([flat // self.neurons, flat % self.neurons], axis=1)
        k = _resolve_k(fraction_or_k, self.neurons)
        blocks = []
        for layer in chosen:
            inside = [order[order // self.neurons == layer] for order in orders]
            flat = _round_robin(inside, size, k)
            blocks.append(np.stack([flat // self.neurons, flat % self.neurons], axis=1))
        return np.concatenate(blocks).astype(np.int64)

    def top_cell(self, subtask: str | None = None) -> tuple[int, int, int]:
        """(layer, best token, neuron) of the top-ranked neuron of the task or a subtask."""
        rows = self.table if subtask is None else self.table[self.table["subtask"] == subtask]
        best = rows.sort_values("rank").iloc[0]
        return int(best["layer"]), int(best["best_token"]), int(best["neuron"])
