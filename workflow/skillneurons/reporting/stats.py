"""Statistics shared by the tables and figures of both papers.

- :func:`accuracy_summary`: mean, sample std and the "mean ± std" text of accuracies
  over trials (Tables A-T1, A-T3, A-T4, ...);
- :func:`curve_area`: the trapezoid-rule area under a curve over its rates (neuronal
  importance, paper A §4.3);
- :func:`zscore`: standard scores with the population std;
- :func:`spearman_per_layer`, :func:`task_correlation`: Spearman's rank correlation of
  two ``[layers, neurons]`` neuron scores within each layer and its mean over layers
  (paper A, Figures 5 and 14). Ties get average ranks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import rankdata


def accuracy_summary(values: Sequence[float]) -> tuple[float, float, str]:
    """Mean, sample std and the text of accuracies over trials, in percent: "mean ± std"
    over several trials, "mean (1 trial)" for one (no spread was measured; std NaN)."""
    array = np.asarray(values, dtype=np.float64)
    if len(array) == 1:
        return float(array[0]), float("nan"), f"{100 * array[0]:.1f} (1 trial)"
    std = float(array.std(ddof=1))
    return float(array.mean()), std, f"{100 * array.mean():.1f} ± {100 * std:.1f}"


def curve_area(rates: Sequence[float], accuracies) -> float | np.ndarray:
    """Trapezoid-rule area under ``accuracies`` over ``rates`` (sorted by rate).

    ``accuracies`` is ``[rates]`` (returns a float) or ``[..., rates]`` (returns the
    area of every curve, ``[...]``).
    """
    x = np.asarray(rates, dtype=np.float64)
    y = np.asarray(accuracies, dtype=np.float64)
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[..., order]
    area = np.sum((x[1:] - x[:-1]) * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)
    return float(area) if area.ndim == 0 else area


def zscore(values: np.ndarray) -> np.ndarray:
    """``(x - mean) / std`` with the population std (``ddof=0``); zeros if std is 0."""
    x = np.asarray(values, dtype=np.float64)
    std = x.std()
    return np.zeros_like(x) if std == 0 else (x - x.mean()) / std


def _check_pair(pred_a: np.ndarray, pred_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(pred_a, dtype=np.float64)
    b = np.asarray(pred_b, dtype=np.float64)
    if a.ndim != 2 or a.shape != b.shape:
        raise ValueError(
            f"predictivities must both be [layers, neurons] of one shape; got {a.shape}, {b.shape}"
        )
    return a, b


def spearman_per_layer(pred_a: np.ndarray, pred_b: np.ndarray) -> np.ndarray:
    """Spearman's rho between two ``[layers, neurons]`` arrays, layer by layer.

    Average ranks for ties; NaN for a layer where either array is constant.
    Returns float64 ``[layers]``.
    """
    a, b = _check_pair(pred_a, pred_b)
    ranks_a = rankdata(a, axis=1)
    ranks_b = rankdata(b, axis=1)
    ranks_a -= ranks_a.mean(axis=1, keepdims=True)
    ranks_b -= ranks_b.mean(axis=1, keepdims=True)
    norm = np.sqrt((ranks_a**2).sum(axis=1) * (ranks_b**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norm > 0, (ranks_a * ranks_b).sum(axis=1) / norm, np.nan)


def task_correlation(pred_a: np.ndarray, pred_b: np.ndarray) -> tuple[np.ndarray, float]:
    """Spearman correlation of two tasks' predictivity orders (Figures 5 and 14).

    Parameters
    ----------
    pred_a, pred_b : float ``[layers, neurons]`` neuron scores of two tasks (e.g.
        :meth:`skillneurons.neurons.ranking.Ranking.scores`).

    Returns
    -------
    ``(per_layer, mean)``: float64 ``[layers]`` Spearman's rho within each layer
    (Figure 14) and its mean over layers (Figure 5; layers with NaN are skipped).
    """
    per_layer = spearman_per_layer(pred_a, pred_b)
    valid = per_layer[~np.isnan(per_layer)]
    return per_layer, float(valid.mean()) if len(valid) else float("nan")
