"""§4.3's claims on the relations between tasks: the predictivity orders of same-type
tasks correlate more than cross-type ones (Figure 5, A-F5), and same-type source tasks
are more important than cross-type ones (Figure 6, A-F6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats

from skillneurons.paper_a.findings.gaps import curve_units, full_indices
from skillneurons.reporting.curves import TaskCurves
from skillneurons.reporting.findings import BootstrapSettings, Claim, Units, decide, unavailable
from skillneurons.reporting.resampling import distinct_pairs
from skillneurons.reporting.stats import zscore

CORRELATION = Claim(
    "predictivity orders of same-type tasks correlate more than cross-type",
    "§4.3, A-F5",
    "mean Spearman (layer mean), same-type pairs - cross-type pairs",
    "trials (Eq. 6 and the orders recomputed over the drawn trials; the tasks fixed)",
    "diagonal blocks (Figure 5)",
    margin=0.1,
    margin_basis="smallest effect of interest: 0.1 Spearman (Figure 5 gives no number)",
    key="same_type_correlation",
)
IMPORTANCE = Claim(
    "same-type source tasks are more important than cross-type ones",
    "§4.3, A-F6",
    "mean z-scored importance, same-type - cross-type sources, mean over evaluation tasks",
    "test samples of each task, trials, random orders",
    "diagonal blocks (Figure 6)",
    margin=0.5,
    margin_basis="smallest effect of interest: half a standard deviation of importance",
    key="same_type_importance",
)


def importance_claim(
    curves: Mapping[str, TaskCurves], task_types: Mapping[str, str], settings: BootstrapSettings
) -> dict:
    """Same-type minus cross-type mean z-scored importance (Figure 6), averaged over the
    evaluation tasks that have source tasks of both kinds."""

    def contrast(task: str, indices: Mapping[str, np.ndarray]) -> float:
        curve = curves[task]
        sources = [order for kind, order in curve.correct if kind == "task"]
        random = curve.area(("random", "random"), indices, task)
        scores = zscore([random - curve.area(("task", s), indices, task) for s in sources])
        kind = task_types[task]
        scored = list(zip(sources, scores, strict=True))
        same = [z for s, z in scored if s != task and task_types[s] == kind]
        cross = [z for s, z in scored if task_types[s] != kind]
        return float(np.mean(same) - np.mean(cross)) if same and cross else float("nan")

    tasks = [task for task in curves if not np.isnan(contrast(task, full_indices(curves)))]
    if not tasks:
        return unavailable(IMPORTANCE, "no evaluation task has same- and cross-type sources")
    chosen = {task: curves[task] for task in tasks}
    return decide(
        IMPORTANCE,
        lambda indices: float(np.mean([contrast(task, indices) for task in tasks])),
        curve_units(chosen),
        settings,
    )


def layer_mean_spearman(ranks_a: np.ndarray, ranks_b: np.ndarray) -> float:
    """Mean over layers of the Pearson correlation of two rank arrays ``[layers, n]``."""
    a = ranks_a - ranks_a.mean(axis=1, keepdims=True)
    b = ranks_b - ranks_b.mean(axis=1, keepdims=True)
    norm = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(norm > 0, (a * b).sum(axis=1) / norm, np.nan)
    return float(np.nanmean(rho)) if np.isfinite(rho).any() else float("nan")


def pair_contrast(matrix: np.ndarray, kinds: Sequence[str], chosen: np.ndarray) -> float:
    """Mean of ``matrix[a, b]`` over the pairs of distinct tasks drawn (``chosen``:
    indices, repeats allowed; a task drawn twice is not paired with itself) of the same
    kind, minus over the pairs of different kinds; NaN without both."""
    first, second = distinct_pairs(chosen)
    same = np.asarray(kinds)[first] == np.asarray(kinds)[second]
    values = matrix[first, second]
    if not same.any() or same.all():
        return float("nan")
    return float(values[same].mean() - values[~same].mean())


def trial_scores(predictivity: Mapping[str, np.ndarray]) -> np.ndarray:
    """Each trial's neuron predictivity (Eq. 5 at the best prompt token), float64
    ``[groups, trials, layers, neurons]``, from a predictivity file's arrays
    (:func:`skillneurons.paper_a.skill_neurons.read_predictivity`: ``max/{group}/trial{t}``;
    one group for a binary task, its subtasks for a multi-class one)."""
    names = sorted(name for name in predictivity if name.startswith("max/"))
    groups = sorted({name.split("/")[1] for name in names})
    trials = sorted({int(name.split("/")[2].removeprefix("trial")) for name in names})
    return np.array(
        [[predictivity[f"max/{g}/trial{t}"] for t in trials] for g in groups], dtype=np.float64
    )


def _drawn_ranks(scores: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Ranks within each layer of Eq. 6's scores over the drawn trials: the mean over
    ``chosen`` trials of each group's predictivity, the best group of a multi-class
    task (:meth:`skillneurons.neurons.ranking.Ranking.scores`); average ranks for ties."""
    return stats.rankdata(scores[:, chosen].mean(axis=1).max(axis=0), axis=1)


def correlation_claim(
    scores: Mapping[str, np.ndarray], task_types: Mapping[str, str], settings: BootstrapSettings
) -> dict:
    """Same-type minus cross-type mean Spearman of the tasks' neuron orders (Figure 5):
    :func:`pair_contrast` of the layer-mean Spearman matrix of Eq. 6's scores.
    ``scores`` maps a task to its per-trial predictivity (:func:`trial_scores`).

    The trials are the runs: each resample recomputes Eq. 6's mean over its drawn trials
    and the orders it yields. The tasks define the estimand (the contrast over these
    tasks' pairs) and are fixed; resampling thousands of neurons instead would make
    any non-zero association "hold"."""
    tasks = list(scores)
    kinds = [task_types[task] for task in tasks]
    counts = {scores[task].shape[1] for task in tasks}
    if len(counts) != 1:
        return unavailable(CORRELATION, f"tasks ranked on different numbers of trials {counts}")

    def contrast(indices: Mapping[str, np.ndarray]) -> float:
        ranks = [_drawn_ranks(scores[task], indices["trials"]) for task in tasks]
        matrix = np.array([[layer_mean_spearman(a, b) for b in ranks] for a in ranks])
        return pair_contrast(matrix, kinds, indices["tasks"])

    units = Units(runs={"trials": counts.pop()}, fixed={"tasks": len(tasks)})
    if not np.isfinite(contrast(units.full())):
        return unavailable(CORRELATION, "needs a same-type and a cross-type pair of tasks")
    return decide(CORRELATION, contrast, units, settings)
