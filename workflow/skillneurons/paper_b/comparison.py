"""Paper A's skill neurons and paper B's task-specific neurons, side by side (AB-T1, AB-F1).

Two answers to one question, on the same model: paper A ranks neurons by predictivity
on the prompt tokens of a prompt-tuned model; paper B by gradient attribution. Here both
are computed on each of paper A's prompt-tuned models (every trial) for the same task:
paper B's relevance of every neuron (:func:`skillneurons.paper_b.relevance.relevance`,
the classifier's loss on the training split) beside paper A's ranking of that trial
(:func:`skillneurons.paper_a.skill_neurons.trial_ranking`). Per task and trial:

- Spearman's rho between A's neuron scores (predictivity; a multi-class task's best
  subtask) and B's relevance, over all neurons and within each layer (mean of layers);
- the Jaccard index of the two top-``k`` sets against what two random sets of the same
  size would give, about ``k / (2 - k)``;
- curves that deactivate (or perturb, config ``paper_b.comparison``) the neurons in A's
  order, in B's order and in layer-matched random orders of each, on the test split.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from skillneurons.neurons.perturbation.curve_table import LAYER_MATCHED
from skillneurons.neurons.perturbation.orders import NamedOrder, layer_matched_random_orders
from skillneurons.neurons.ranking import Ranking
from skillneurons.neurons.relevance_table import layer_width, relevance_matrix
from skillneurons.paper_b.relevance import COLUMNS as RELEVANCE_COLUMNS


def relevance_order(table: pd.DataFrame) -> np.ndarray:
    """Paper B's order: flat neuron ids by descending relevance (``rank``)."""
    width = layer_width(table)
    rows = table.sort_values("rank", kind="stable")
    return rows["layer"].to_numpy(np.int64) * width + rows["neuron"].to_numpy(np.int64)


def top_count(total: int, fraction: float) -> int:
    """``round(fraction * total)``, half up: the size of a top-``fraction`` set."""
    return int(np.floor(fraction * total + 0.5))


def top_set(order: np.ndarray, fraction: float) -> np.ndarray:
    """The first :func:`top_count` flat ids of an order."""
    return order[: top_count(len(order), fraction)]


def jaccard(first: np.ndarray, second: np.ndarray) -> float:
    union = len(np.union1d(first, second))
    return len(np.intersect1d(first, second)) / union if union else float("nan")


def chance_jaccard(fraction: float) -> float:
    """The Jaccard index two random sets of a fraction ``k`` of the neurons have about:
    ``k^2 N / (2 k N - k^2 N) = k / (2 - k)``."""
    return fraction / (2.0 - fraction)


def ranking_agreement(ranking: Ranking, table: pd.DataFrame, fraction: float) -> dict:
    """AB-T1's numbers for one task: Spearman's rho (all neurons; mean over layers) of
    A's scores and B's relevance, the top-``fraction`` Jaccard index and its chance."""
    missing = [column for column in RELEVANCE_COLUMNS if column not in table]
    if missing:
        raise ValueError(f"relevance table lacks columns {missing}")
    scores = ranking.scores()
    relevance = relevance_matrix(table)
    if relevance.shape != scores.shape:
        raise ValueError(
            f"relevance table is {relevance.shape} (layers, neurons), the ranking "
            f"{scores.shape}: they come from different models"
        )
    per_layer = [spearmanr(scores[i], relevance[i]).statistic for i in range(len(scores))]
    a_top = top_set(ranking.order(), fraction)
    b_top = top_set(relevance_order(table), fraction)
    return {
        "spearman": float(spearmanr(scores.ravel(), relevance.ravel()).statistic),
        "spearman_layer_mean": float(np.nanmean(per_layer)),
        "spearman_per_layer": [float(value) for value in per_layer],
        "jaccard": jaccard(a_top, b_top),
        "jaccard_chance": chance_jaccard(fraction),
        "top_neurons": len(a_top),
    }


def mean_agreement(per_trial: Sequence[Mapping]) -> dict:
    """AB-T1's numbers of a task over its prompt trials: the mean of each trial's
    :func:`ranking_agreement` (per layer too), with every trial's under ``trials``."""
    if not per_trial:
        raise ValueError("mean_agreement needs at least one trial's agreement")
    mean = {
        key: float(np.mean([trial[key] for trial in per_trial]))
        for key in ("spearman", "spearman_layer_mean", "jaccard", "jaccard_chance")
    }
    layers = np.mean([trial["spearman_per_layer"] for trial in per_trial], axis=0)
    return {
        **mean,
        "spearman_per_layer": [float(value) for value in layers],
        "top_neurons": per_trial[0]["top_neurons"],
        "trials": [dict(trial) for trial in per_trial],
    }


def comparison_orders(
    ranking: Ranking, table: pd.DataFrame, layer_matched_count: int, seed: int
) -> list[NamedOrder]:
    """AB-F1's orders: A's (``paper_a``), B's (``paper_b``) and ``layer_matched_count``
    (config ``paper_b.comparison.layer_matched_orders``) layer-matched random orders of
    each (``random_paper_a``, ``random_paper_b``)."""
    a_order, b_order = ranking.order(), relevance_order(table)
    widths = [ranking.neurons] * ranking.layers
    orders = [NamedOrder("paper_a", "task", a_order), NamedOrder("paper_b", "task", b_order)]
    for name, order, offset in (("paper_a", a_order, 1), ("paper_b", b_order, 2)):
        matched = layer_matched_random_orders(order, widths, layer_matched_count, seed + offset)
        orders += [
            NamedOrder(f"random_{name}", LAYER_MATCHED, random, repeat)
            for repeat, random in enumerate(matched)
        ]
    return orders
