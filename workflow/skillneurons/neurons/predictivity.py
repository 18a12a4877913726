"""Neuron predictivity and skill-neuron rankings (paper A, §3.1, §3.2, appendices C and G).

For a binary task, a neuron ``N`` on prompt token ``p`` has a baseline activation
``a_bsl(N, p)``, the mean of its activation over the training set (Eq. 3). On the dev
set the neuron "predicts" label 1 for input ``x`` iff ``a(N, p, x) > a_bsl(N, p)``
(strictly: a tie predicts 0), and

    Acc(N, p)  = fraction of dev samples whose label equals that prediction   (Eq. 4)
    Pred(N, p) = max(Acc(N, p), 1 - Acc(N, p))                                 (Eq. 5)
    Pred(N)    = mean over trials of max over the trial's prompt tokens of Pred(N, p)
                                                                               (Eq. 6)

Neurons sorted by descending ``Pred(N)`` are the task's skill neurons. Eq. 6's mean is
computed from the dev counts behind each ``Acc`` (:func:`combine_trials` with
``samples``), so neurons of equal predictivity get equal floats and the ranking's seeded
tie key, not float rounding, orders them (:mod:`skillneurons.neurons.ranking`). A multi-class
task (§3.2) is split into binary subtasks that are scored with the original task's
prompts and activations; its top-k takes equal numbers of neurons from each subtask
in turn, skipping neurons already taken (:mod:`skillneurons.neurons.ranking`).

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

from collections.abc import Sequence
from typing import Any

import numpy as np

DEFINITIONS = ("max", "mean", "positive")


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


def combine_trials(
    per_trial: Sequence[np.ndarray], samples: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Overall predictivity (Eq. 6) and its standard error over trials.

    Parameters
    ----------
    per_trial : one ``[layers, neurons]`` array per trial (from
        :func:`neuron_predictivity`; float32 as stored in a predictivity file is fine).
    samples : ``|D_dev|``, the dev samples each trial's ``Acc`` was counted on (Eq. 4),
        or ``None`` for a plain float mean. With it, every trial's value is read back
        as the count ``k_t / samples`` it is (Eqs. 4-5: a fraction of the dev samples;
        values must lie within float32 rounding of that grid), and the mean is computed
        from the counts, ``sum_t k_t / (samples x trials)``: exact, the same for any
        order of the trials, and equal for every neuron with the same rational mean.
        A float mean is not: with 100 dev samples Eq. 4 steps by 0.01, many neurons tie
        at every cut, and float rounding (trials of 0.65, 0.69, 0.67 and of 0.67, 0.67,
        0.67, as float32, average 2e-8 apart) would decide those ties, not the ranking's
        seeded tie key (:func:`skillneurons.neurons.ranking.tie_key`).

    Returns
    -------
    mean : float64 ``[layers, neurons]``, the mean over trials (Eq. 6); with
        ``samples``, the float64 nearest to the exact multiple of
        ``1 / (samples x trials)``.
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
    trials = stacked.shape[0]
    if samples is None:
        mean = stacked.mean(axis=0)
    else:
        counts = _dev_counts(stacked, samples)
        stacked = counts / samples
        mean = counts.sum(axis=0) / (samples * trials)
    if trials == 1:
        return mean, np.zeros_like(mean)
    sem = stacked.std(axis=0, ddof=1) / np.sqrt(trials)
    return mean, sem


def _dev_counts(values: np.ndarray, samples: int) -> np.ndarray:
    """The dev-sample counts ``k`` behind fractions ``k / samples`` (Eqs. 4-5), as
    integer-valued float64 of ``values``' shape.

    ``values`` may carry float32 rounding (a predictivity file stores float32): each must
    lie within ``samples`` float32 epsilons of a count, far closer than the half count
    that would make the rounding ambiguous; otherwise the values were not measured on
    ``samples`` dev samples and a ``ValueError`` says so.
    """
    if int(samples) < 1:
        raise ValueError(f"samples (dev samples of Eq. 4) must be at least 1; got {samples}")
    scaled = np.asarray(values, dtype=np.float64) * samples
    counts = np.rint(scaled)
    off = float(np.max(np.abs(scaled - counts), initial=0.0))
    if off > samples * float(np.finfo(np.float32).eps):
        raise ValueError(
            f"predictivity values are not multiples of 1/{samples} (off by up to {off:.3g} "
            f"samples): pass the number of dev samples they were measured on"
        )
    return counts


def neuron_correct(
    activations: np.ndarray,
    labels: np.ndarray,
    baseline_value: float | np.ndarray,
    sign: int,
) -> np.ndarray:
    """Per row, whether one neuron used as a classifier is right (Table 1 and Table 3 of paper A).

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
    bool ``[rows]``: whether each row's prediction equals its label.
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
    return predicted == y.astype(bool)


def neuron_accuracy(
    activations: np.ndarray,
    labels: np.ndarray,
    baseline_value: float | np.ndarray,
    sign: int,
) -> float:
    """The accuracy of one neuron used as a classifier: the mean of :func:`neuron_correct`."""
    return float(np.mean(neuron_correct(activations, labels, baseline_value, sign)))


def neuron_sign(accuracy_on_dev: float) -> int:
    """``+1`` if the neuron's dev ``Acc`` (Eq. 4) is at least 0.5, else ``-1``: which
    branch of ``max(Acc, 1 - Acc)`` (Eq. 5) the neuron's predictivity comes from."""
    return 1 if float(accuracy_on_dev) >= 0.5 else -1
