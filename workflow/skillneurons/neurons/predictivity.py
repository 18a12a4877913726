"""Neuron predictivity and skill-neuron rankings (paper A, §3.1, §3.2, appendices C and G).

For a binary task, a neuron ``N`` on prompt token ``p`` has a baseline activation
``a_bsl(N, p)``, the mean of its activation over the training set (Eq. 3). On the dev
set the neuron "predicts" label 1 for input ``x`` iff ``a(N, p, x) > a_bsl(N, p)``
(strictly: a tie predicts 0), and

    Acc(N, p)  = fraction of dev samples whose label equals that prediction   (Eq. 4)
    Pred(N, p) = max(Acc(N, p), 1 - Acc(N, p))                                 (Eq. 5)
    Pred(N)    = mean over trials of max over the trial's prompt tokens of Pred(N, p)
                                                                               (Eq. 6)

Neurons sorted by descending ``Pred(N)`` are the task's skill neurons. A multi-class
task (§3.2) is split into binary subtasks that are scored with the original task's
prompts and activations; its top-k takes equal numbers of neurons from each subtask
in turn, skipping neurons already taken (:func:`top_neurons`, :func:`task_order`).

Appendix G (Figure 10) compares two other definitions, both available through
:func:`neuron_predictivity`: ``"mean"`` (mean over prompt tokens instead of max) and
``"positive"`` (``Acc`` itself instead of ``max(Acc, 1 - Acc)``, i.e. only positive
correlation with the label).

Shapes follow the project convention (see :mod:`skillneurons.models.sites`):
activations ``[rows, layers, tokens, neurons]``, per-token statistics
``[layers, tokens, neurons]``, per-neuron statistics ``[layers, neurons]``. A neuron's
flat id is ``layer * neurons + neuron``.

This module only computes; reading activation dumps and writing the ranking files
is left to the callers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

DEFINITIONS = ("max", "mean", "positive")

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


def _to_numpy(array: Any) -> np.ndarray:
    """A numpy view of a numpy array or a (CPU or device) torch tensor."""
    if hasattr(array, "detach"):  # torch.Tensor, without importing torch here
        tensor = array.detach().cpu()
        if str(tensor.dtype) == "torch.bfloat16":  # numpy has no bfloat16
            tensor = tensor.float()
        return tensor.numpy()
    return np.asarray(array)


def _threshold_float32(baseline: np.ndarray) -> np.ndarray:
    """The float32 ``t`` with ``a > t  <=>  a > baseline`` for every float32 (or float16) ``a``.

    ``t`` is ``baseline`` rounded towards minus infinity onto the float32 grid: if the
    baseline is representable it is unchanged; otherwise any float32 ``a`` above the
    rounded-down value is at least the next float32, which lies above the baseline.
    Comparing in float32 is therefore exact, and ties stay ties.
    """
    rounded = baseline.astype(np.float32)
    above = rounded.astype(np.float64) > baseline
    rounded[above] = np.nextafter(rounded[above], np.float32(-np.inf))
    return rounded


class PredictivityAccumulator:
    """Streams dev activations of one trial; counts, per (layer, token, neuron), how often
    ``a > a_bsl`` agrees with the label (the numerator of Eq. 4 of paper A).

    Parameters
    ----------
    baseline : array ``[layers, tokens, neurons]`` (numpy or torch), the baseline
        activation ``a_bsl(N, p)`` of Eq. 3, i.e. the mean activation over the training
        set.

    Notes
    -----
    :meth:`update` may be called any number of times with chunks of the dev set; the
    result does not depend on how the rows are chunked. The comparison ``a > a_bsl``
    is exact (a tie predicts label 0) whatever the float dtypes: float16/float32
    activations are compared in float32 against the baseline rounded down onto the
    float32 grid (see :func:`_threshold_float32`), float64 ones in float64. Rows are
    processed ``chunk_elements`` activations at a time, so temporary memory stays near
    ``chunk_elements`` bytes (plus a float64 copy of the chunk for other dtypes).
    """

    #: activations compared per step; bounds the temporary boolean array.
    chunk_elements: int = 1 << 24

    def __init__(self, baseline: Any):
        base = _to_numpy(baseline).astype(np.float64)
        if base.ndim != 3:
            raise ValueError(
                f"baseline must have shape [layers, tokens, neurons]; got shape {base.shape}"
            )
        if not np.all(np.isfinite(base)):
            raise ValueError("baseline contains NaN or infinite values; it must be finite")
        self.baseline = base
        self._threshold32 = _threshold_float32(base)
        self.shape: tuple[int, ...] = tuple(base.shape)
        # Per (layer, token, neuron): rows with a > a_bsl among label-1 and label-0 rows.
        self._above_positive = np.zeros(self.shape, dtype=np.int64)
        self._above_negative = np.zeros(self.shape, dtype=np.int64)
        self._positives = 0
        self._negatives = 0

    def update(self, activations: Any, labels: Any) -> None:
        """Add a chunk of dev rows.

        Parameters
        ----------
        activations : array ``[rows, layers, tokens, neurons]`` (numpy or torch; float16
            is fine), activations ``a(N, p, x)`` on the prompt tokens.
        labels : array ``[rows]`` of binary labels in ``{0, 1}``.
        """
        acts = _to_numpy(activations)
        y = _to_numpy(labels)
        if acts.ndim != 4 or tuple(acts.shape[1:]) != self.shape:
            raise ValueError(
                f"activations must have shape [rows, {', '.join(map(str, self.shape))}] "
                f"([rows, layers, tokens, neurons] like the baseline); got {acts.shape}"
            )
        if y.ndim != 1 or y.shape[0] != acts.shape[0]:
            raise ValueError(
                f"labels must have shape [{acts.shape[0]}] (one per activation row); got {y.shape}"
            )
        if y.size and not np.isin(y, (0, 1)).all():
            raise ValueError(
                f"labels must be binary (0 or 1); got values {np.unique(y)[:10].tolist()}"
            )
        y = y.astype(bool)
        # float16/float32 compare (exactly) in float32; anything else in float64, cast a
        # chunk at a time.
        narrow = acts.dtype in (np.float16, np.float32)
        threshold = self._threshold32 if narrow else self.baseline

        rows = acts.shape[0]
        per_row = int(np.prod(self.shape))
        step = max(1, self.chunk_elements // max(per_row, 1))
        for start in range(0, rows, step):
            chunk = acts[start : start + step]
            if not narrow and chunk.dtype != np.float64:
                chunk = chunk.astype(np.float64)
            chunk_labels = y[start : start + step]
            above = (chunk > threshold).reshape(chunk.shape[0], -1)
            above_total = np.add.reduce(above, axis=0, dtype=np.int64)
            above_positive = np.add.reduce(above[chunk_labels], axis=0, dtype=np.int64)
            self._above_positive += above_positive.reshape(self.shape)
            self._above_negative += (above_total - above_positive).reshape(self.shape)
        positives = int(y.sum())
        self._positives += positives
        self._negatives += rows - positives

    @property
    def count(self) -> int:
        """Number of dev rows seen so far, ``|D_dev|``."""
        return self._positives + self._negatives

    def accuracy(self) -> np.ndarray:
        """``Acc(N, p)`` of Eq. 4, float64 ``[layers, tokens, neurons]``.

        Correct predictions are label-1 rows above the baseline plus label-0 rows not
        above it.
        """
        if self.count == 0:
            raise ValueError("no dev rows were added; call update() before accuracy()")
        correct = self._above_positive + (self._negatives - self._above_negative)
        return correct / float(self.count)


def predictivity_per_token(accuracy: np.ndarray) -> np.ndarray:
    """``Pred(N, p) = max(Acc(N, p), 1 - Acc(N, p))``, Eq. 5 of paper A.

    ``accuracy`` is ``[layers, tokens, neurons]`` (any shape works); returns float64 of
    the same shape. A neuron below 0.5 is predictive with the opposite sign (an
    "inhibitory" neuron, §3.1).
    """
    acc = np.asarray(accuracy, dtype=np.float64)
    return np.maximum(acc, 1.0 - acc)


def neuron_predictivity(
    accuracy: np.ndarray, definition: str = "max"
) -> tuple[np.ndarray, np.ndarray]:
    """One trial's predictivity of every neuron, reduced over the prompt tokens.

    Parameters
    ----------
    accuracy : float ``[layers, tokens, neurons]``, ``Acc(N, p)`` of Eq. 4.
    definition :
        ``"max"`` (paper default, inner term of Eq. 6): ``max_p Pred(N, p)``;
        ``"mean"`` (appendix G): ``mean_p Pred(N, p)``;
        ``"positive"`` (appendix G): ``max_p Acc(N, p)``, positive correlation only.

    Returns
    -------
    pred : float64 ``[layers, neurons]``.
    best_token : int64 ``[layers, neurons]``, the prompt token attaining the maximum
        (of ``Pred`` for ``"max"`` and ``"mean"``, of ``Acc`` for ``"positive"``); the
        first such token on ties.
    """
    acc = np.asarray(accuracy, dtype=np.float64)
    if acc.ndim != 3:
        raise ValueError(
            f"accuracy must have shape [layers, tokens, neurons]; got shape {acc.shape}"
        )
    if definition == "max":
        per_token = predictivity_per_token(acc)
        pred = per_token.max(axis=1)
    elif definition == "mean":
        per_token = predictivity_per_token(acc)
        pred = per_token.mean(axis=1)
    elif definition == "positive":
        per_token = acc
        pred = per_token.max(axis=1)
    else:
        raise ValueError(
            f"predictivity definition {definition!r} is not defined; "
            f"known definitions: {', '.join(DEFINITIONS)}"
        )
    best_token = per_token.argmax(axis=1).astype(np.int64)
    return pred, best_token


def combine_trials(per_trial: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Overall predictivity (Eq. 6) and its standard error over trials.

    Parameters
    ----------
    per_trial : one ``[layers, neurons]`` array per trial (from
        :func:`neuron_predictivity`).

    Returns
    -------
    mean : float64 ``[layers, neurons]``, the mean over trials (Eq. 6).
    sem : float64 ``[layers, neurons]``, ``std(ddof=1) / sqrt(trials)`` (the error
        bars of Figures 3, 9 and 10); zeros for a single trial.
    """
    if len(per_trial) == 0:
        raise ValueError("combine_trials needs at least one trial; got none")
    shapes = {np.shape(trial) for trial in per_trial}
    if len(shapes) != 1:
        raise ValueError(
            f"every trial must have the same [layers, neurons] shape; got {sorted(shapes)}"
        )
    stacked = np.stack([np.asarray(trial, dtype=np.float64) for trial in per_trial])
    mean = stacked.mean(axis=0)
    trials = stacked.shape[0]
    if trials == 1:
        return mean, np.zeros_like(mean)
    sem = stacked.std(axis=0, ddof=1) / np.sqrt(trials)
    return mean, sem


def _check_pred(pred: np.ndarray, name: str = "pred") -> np.ndarray:
    array = np.asarray(pred, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"{name} must have shape [layers, neurons]; got shape {array.shape}")
    return array


def _descending_order(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """Indices sorting ``values`` best first; ties keep index order (stable sort)."""
    return np.argsort(-values, axis=axis, kind="stable")


def rank_neurons(pred: np.ndarray) -> pd.DataFrame:
    """Rank neurons by descending predictivity (§3.1: "sort all the neurons ... by the
    descending order of their predictivities").

    Parameters
    ----------
    pred : float ``[layers, neurons]``, e.g. the trial mean from :func:`combine_trials`.

    Returns
    -------
    A frame with one row per neuron, sorted by ``rank``: ``layer``, ``neuron``,
    ``predictivity``, ``rank`` (global, 0 = most predictive) and ``rank_in_layer``.
    Ties are broken by ``(layer, neuron)`` order, so the ranking is deterministic.
    """
    values = _check_pred(pred)
    layers, neurons = values.shape
    order = _descending_order(values.reshape(-1))
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size, dtype=np.int64)
    layer_order = _descending_order(values, axis=1)
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


def _as_subtask_preds(pred: np.ndarray | Mapping[str, np.ndarray]) -> list[np.ndarray]:
    if isinstance(pred, Mapping):
        if not pred:
            raise ValueError("pred mapping is empty; give at least one subtask's predictivity")
        arrays = [_check_pred(value, f"pred[{key!r}]") for key, value in pred.items()]
        shapes = {array.shape for array in arrays}
        if len(shapes) != 1:
            raise ValueError(
                f"every subtask's predictivity must have the same [layers, neurons] shape; "
                f"got {sorted(shapes)}"
            )
        return arrays
    return [_check_pred(pred)]


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


def top_neurons(
    pred: np.ndarray | Mapping[str, np.ndarray],
    fraction_or_k: float | int,
    per_layer: bool = False,
) -> np.ndarray:
    """The top skill neurons of a task, best first.

    Parameters
    ----------
    pred : ``[layers, neurons]`` predictivity of a binary task, or an ordered mapping
        subtask -> ``[layers, neurons]`` for a multi-class task (§3.2): the subtasks
        take turns, in mapping order, each contributing its best neuron not yet taken,
        until ``k`` distinct neurons are chosen (equal numbers per subtask, the first
        subtasks getting one more when ``k`` does not divide evenly).
    fraction_or_k : a float in (0, 1], the fraction of all neurons (``round(f * total)``
        half up, at least 1), or an int ``k``.
    per_layer : if True, select within every layer separately (the choice of the
        original THU-KEG code): a float is the fraction of each layer's neurons, an int
        the number per layer. The layers' selections are concatenated in layer order.

    Returns
    -------
    int64 ``[k, 2]`` of ``(layer, neuron)``, in selection order. Ties in predictivity
    are broken by ``(layer, neuron)`` order.
    """
    arrays = _as_subtask_preds(pred)
    layers, neurons = arrays[0].shape
    if not per_layer:
        k = _resolve_k(fraction_or_k, layers * neurons)
        orders = [_descending_order(array.reshape(-1)) for array in arrays]
        flat = _round_robin(orders, layers * neurons, k)
        return np.stack([flat // neurons, flat % neurons], axis=1).astype(np.int64)
    k = _resolve_k(fraction_or_k, neurons)
    blocks = []
    for layer in range(layers):
        orders = [_descending_order(array[layer]) for array in arrays]
        chosen = _round_robin(orders, neurons, k)
        blocks.append(np.stack([np.full_like(chosen, layer), chosen], axis=1))
    return np.concatenate(blocks).astype(np.int64)


def ranking_table(
    pred_mean: Mapping[str | None, np.ndarray],
    sem: Mapping[str | None, np.ndarray],
    best_token: Mapping[str | None, np.ndarray],
) -> pd.DataFrame:
    """The table of ``results/{model}/rankings/{task}.parquet``.

    Parameters
    ----------
    pred_mean : subtask -> ``[layers, neurons]`` overall predictivity (Eq. 6). A binary
        task has the single key ``None``; a multi-class task one key per binary subtask
        (§3.2), in the order the subtasks take turns in :func:`task_order`.
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
        frame = rank_neurons(values)
        flat = frame["layer"].to_numpy() * values.shape[1] + frame["neuron"].to_numpy()
        frame["sem"] = errors.reshape(-1)[flat]
        frame["best_token"] = tokens.reshape(-1)[flat].astype(np.int64)
        frame["subtask"] = pd.array([key] * len(frame), dtype="string")
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    return table[list(RANKING_COLUMNS)].astype(RANKING_COLUMNS)


def task_order(table: pd.DataFrame) -> np.ndarray:
    """The order in which a task's ranking perturbs neurons (Figures 4, 11).

    Parameters
    ----------
    table : a :func:`ranking_table` frame (e.g. read back from its Parquet file).

    Returns
    -------
    int64 ``[layers * neurons]`` flat neuron ids ``layer * neurons + neuron``, best
    first. Binary task: by ``rank``. Multi-class task: the subtasks (in their order of
    first appearance in the table) take turns, skipping neurons already taken, exactly
    as :func:`top_neurons`, until every neuron is placed.
    """
    missing = [column for column in ("layer", "neuron", "rank", "subtask") if column not in table]
    if missing:
        raise ValueError(
            f"ranking table lacks columns {missing}; expected {list(RANKING_COLUMNS)}"
        )
    layers = int(table["layer"].max()) + 1
    neurons = int(table["neuron"].max()) + 1
    size = layers * neurons
    subtask = table["subtask"].astype("string")
    if subtask.isna().all():
        groups = [table]
    elif subtask.isna().any():
        raise ValueError("ranking table mixes binary (null subtask) rows and subtask rows")
    else:
        groups = [table[(subtask == key).to_numpy()] for key in pd.unique(subtask)]
    orders = []
    for rows in groups:
        if len(rows) != size:
            name = rows["subtask"].iloc[0]
            raise ValueError(
                f"ranking of subtask {name!r} has {len(rows)} rows; expected one per neuron "
                f"({layers} layers x {neurons} neurons = {size})"
            )
        rows = rows.sort_values("rank", kind="stable")
        orders.append(
            rows["layer"].to_numpy(np.int64) * neurons + rows["neuron"].to_numpy(np.int64)
        )
    return _round_robin(orders, size, size)


def neuron_accuracy(
    activations: np.ndarray,
    labels: np.ndarray,
    baseline_value: float | np.ndarray,
    sign: int,
) -> float:
    """Accuracy of one neuron used as a classifier (Table 1 and Table 3 of paper A).

    Parameters
    ----------
    activations : ``[rows]``, the neuron's activation on its best prompt token (one
        ``(layer, token, neuron)``) for each sample of, e.g., the test set.
    labels : ``[rows]`` binary labels in ``{0, 1}``.
    baseline_value : ``a_bsl(N, p)`` of Eq. 3 (a scalar).
    sign : ``+1`` predicts 1 iff ``a > a_bsl`` (Eq. 4); ``-1`` predicts 1 iff
        ``a <= a_bsl``, the negatively correlated neuron of Eq. 5. Choose it on the dev
        set with :func:`neuron_sign`.

    Returns
    -------
    The fraction of rows whose prediction equals the label.
    """
    acts = _to_numpy(activations).astype(np.float64).reshape(-1)
    y = _to_numpy(labels).reshape(-1)
    if acts.shape != y.shape:
        raise ValueError(
            f"activations and labels must have one value per row; got {acts.shape} and {y.shape}"
        )
    if acts.size == 0:
        raise ValueError("neuron_accuracy needs at least one row; got none")
    if not np.isin(y, (0, 1)).all():
        raise ValueError(
            f"labels must be binary (0 or 1); got values {np.unique(y)[:10].tolist()}"
        )
    if sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1; got {sign}")
    above = acts > np.asarray(_to_numpy(baseline_value), dtype=np.float64)
    predicted = above if sign == 1 else ~above
    return float(np.mean(predicted == y.astype(bool)))


def neuron_sign(accuracy_on_dev: float) -> int:
    """``+1`` if the neuron's dev ``Acc`` (Eq. 4) is at least 0.5, else ``-1``: which
    branch of ``max(Acc, 1 - Acc)`` (Eq. 5) the neuron's predictivity comes from."""
    return 1 if float(accuracy_on_dev) >= 0.5 else -1
