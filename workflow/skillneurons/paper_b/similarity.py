"""Parameters of task neurons and generalization (paper B, §5.2): B-F3 and B-T4.

One model ``M_i`` is fully fine-tuned per training task ``i``. Inside ``M_i``, per
layer, the parameters ``P^i_i`` of the training task's neurons are compared with the
parameters ``P^i_j`` of each out-of-domain test task's neurons (both sets found on
``M_i``, the evaluated model) by a cosine similarity; B-F3 plots it per layer (mean
over the models), B-T4 correlates it (mean over layers) with ``M_i``'s score on
test task ``j`` (accuracy, or ROUGE-L F1 for a generation task; the training tasks of
both groups train a model each, and every group's test tasks are compared; B-F3 shows
each test task's profile averaged over all the models, paper B's panel c, the
generation-trained models alone, is not drawn separately).

A neuron's parameter vector ``θ_n`` is its entries of the seam
(:func:`skillneurons.models.sites.neuron_parameters`: its output-projection column,
its input-projection row(s) and bias entries). Paper B does not say how two sets of
different neurons are compared; the definitions (config
``paper_b.generalization.similarity``):

``masked`` (default)  the cosine of the layer's parameters with every entry outside
                      each set zeroed: ``Σ_{N_i ∩ N_j} |θ_n|^2 / sqrt(Σ_{N_i} |θ_n|^2
                      Σ_{N_j} |θ_n|^2)``; defined for any set sizes, a norm-weighted
                      overlap of the sets;
``centroid``          the cosine of the two sets' mean parameter vectors;
``rank_paired``       the cosine of the two sets' vectors concatenated in relevance
                      order, both cut to the smaller set's size;
``delta``             ``masked`` on the fine-tuning's changes ``θ_n(M_i) - θ_n(base)``.

The similarity file always holds ``masked`` and ``centroid`` (the masked value mostly
measures the overlap, so the centroid is shown beside it) and the configured one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch
from scipy.stats import pearsonr, spearmanr

from skillneurons.models.loading import LoadedModel
from skillneurons.models.sites import ffn_sites, neuron_parameters
from skillneurons.models.training import TrainingSettings, train
from skillneurons.paper_b.classifiers import unfreeze_backbone
from skillneurons.paper_b.relevance import relevance_tables
from skillneurons.paper_b.scorers import TaskScorer

DEFINITIONS = ("masked", "centroid", "rank_paired", "delta")
#: Correlations need at least this many (model, test task) points.
MIN_POINTS = 4


def ranked_sets(table: pd.DataFrame, fraction: float) -> dict[int, np.ndarray]:
    """The top ``fraction`` of neurons over all layers (``round(fraction * N)``, half
    up), ``{layer: indices in relevance order}`` for every layer (possibly empty)."""
    layers = int(table["layer"].max()) + 1
    count = int(np.floor(fraction * len(table) + 0.5))
    top = table[table["rank"] < count].sort_values("rank", kind="stable")
    return {
        layer: top.loc[top["layer"] == layer, "neuron"].to_numpy(np.int64)
        for layer in range(layers)
    }


Places = list[tuple[torch.Tensor, int]]


def parameter_places(model: torch.nn.Module) -> list[Places]:
    """Per layer, where the neurons' parameters live (views into ``model``)."""
    sites = ffn_sites(model)
    return [neuron_parameters(site, torch.arange(site.width)) for site in sites]


def snapshot(places: Sequence[Places]) -> list[Places]:
    """A CPU copy of the parameters at ``places`` (the base model, for ``delta``)."""
    return [[(view.detach().cpu().clone(), axis) for view, axis in layer] for layer in places]


def vectors(places: Places, neurons: np.ndarray) -> np.ndarray:
    """``θ_n`` of ``neurons`` of one layer, float64 ``[len(neurons), entries]``."""
    parts = []
    with torch.no_grad():
        for view, axis in places:
            index = torch.as_tensor(
                np.ascontiguousarray(neurons), dtype=torch.long, device=view.device
            )
            values = view.index_select(axis, index)
            entries = int(np.prod(view.shape[1:]))  # a bias row has one entry
            parts.append(values.T if axis == 1 else values.reshape(len(neurons), entries))
        return torch.cat(parts, dim=1).double().cpu().numpy()


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    norm = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a.ravel() @ b.ravel() / norm) if norm > 0 else float("nan")


def _masked(of, first: np.ndarray, second: np.ndarray) -> float:
    shared = np.intersect1d(first, second)
    own, other, both = ((of(ids) ** 2).sum() for ids in (first, second, shared))
    denominator = np.sqrt(own * other)
    return float(both / denominator) if denominator > 0 else float("nan")


def similarity(
    definition: str,
    places: Places,
    first: np.ndarray,
    second: np.ndarray,
    base: Places | None = None,
) -> float:
    """One layer's similarity of the neuron sets ``first`` and ``second`` (indices in
    relevance order) under ``definition`` (the module docstring); ``base`` holds the
    base model's parameters of that layer (``delta`` only). NaN when a set is empty."""
    if definition not in DEFINITIONS:
        raise ValueError(f"similarity {definition!r} is unknown; use one of {DEFINITIONS}")
    if not len(first) or not len(second):
        return float("nan")
    if definition == "masked":
        return _masked(lambda ids: vectors(places, ids), first, second)
    if definition == "centroid":
        return _cosine(vectors(places, first).mean(axis=0), vectors(places, second).mean(axis=0))
    if definition == "rank_paired":
        size = min(len(first), len(second))
        return _cosine(vectors(places, first[:size]), vectors(places, second[:size]))
    if base is None:
        raise ValueError("similarity 'delta' needs the base model's parameters")
    return _masked(lambda ids: vectors(places, ids) - vectors(base, ids), first, second)


def similarity_frame(
    places: Sequence[Places],
    tables: Mapping[str, pd.DataFrame],
    trained: str,
    test_tasks: Sequence[str],
    fraction: float,
    definitions: Sequence[str],
    base: Sequence[Places] | None = None,
) -> pd.DataFrame:
    """B-F3's values for model ``M_trained``: ``layer``, ``test_task``, ``definition``,
    ``similarity`` of the trained task's and each test task's top-``fraction`` neurons
    (``tables``: their relevance on this model; ``places``: its parameters)."""
    own = ranked_sets(tables[trained], fraction)
    rows = []
    for task in test_tasks:
        other = ranked_sets(tables[task], fraction)
        for layer, layer_places in enumerate(places):
            layer_base = None if base is None else base[layer]
            for definition in definitions:
                value = similarity(definition, layer_places, own[layer], other[layer], layer_base)
                rows.append(
                    {
                        "layer": layer,
                        "test_task": task,
                        "definition": definition,
                        "similarity": value,
                    }
                )
    return pd.DataFrame(rows)


def correlation_table(points: pd.DataFrame) -> pd.DataFrame:
    """B-T4: per test task, Pearson's r and Spearman's rho (with p-values) between the
    models' similarity (mean over layers) and their score on it; NaN below
    :data:`MIN_POINTS` models. A last ``pooled`` row correlates all points after
    centring both within each test task (so tasks' levels do not count).

    ``points`` has ``trained``, ``test_task``, ``similarity`` and ``score``."""
    rows = []
    for task, group in points.groupby("test_task", sort=False):
        rows.append({"test_task": task, **_correlations(group["similarity"], group["score"])})
    centred = points.assign(
        similarity=points["similarity"]
        - points.groupby("test_task")["similarity"].transform("mean"),
        score=points["score"] - points.groupby("test_task")["score"].transform("mean"),
    )
    rows.append({"test_task": "pooled", **_correlations(centred["similarity"], centred["score"])})
    return pd.DataFrame(rows)


def _correlations(x: pd.Series, y: pd.Series) -> dict:
    keep = x.notna() & y.notna()
    x, y = x[keep].to_numpy(), y[keep].to_numpy()
    nan = float("nan")
    if len(x) < MIN_POINTS or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {
            "points": len(x),
            "pearson": nan,
            "pearson_p": nan,
            "spearman": nan,
            "spearman_p": nan,
        }
    pearson, spearman = pearsonr(x, y), spearmanr(x, y)
    return {
        "points": len(x),
        "pearson": float(pearson.statistic),
        "pearson_p": float(pearson.pvalue),
        "spearman": float(spearman.statistic),
        "spearman_p": float(spearman.pvalue),
    }


def model_similarity(
    loaded: LoadedModel,
    scorers: Mapping[str, TaskScorer],
    trained: str,
    test_tasks: Sequence[str],
    training: TrainingSettings,
    *,
    freeze_embeddings: bool,
    fraction: float,
    definitions: Sequence[str],
    relevance: Mapping[str, object],
    seed: int,
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """One ``M_i`` (the module docstring): fully fine-tune ``loaded`` on ``trained``
    (its :class:`~skillneurons.paper_b.scorers.TaskScorer`: a classification or a
    generation task; the best dev score kept), find the trained and the test tasks'
    neurons on it (their training splits, ``relevance`` settings of
    :func:`skillneurons.paper_b.relevance.relevance_tables`), and return the similarity
    frame (:func:`similarity_frame`), the model's test results on every task
    (``eval_task``, ``metric``, ``score``, ``sample_scores``) and the training's
    metrics. ``loaded``'s weights are changed."""
    base = snapshot(parameter_places(loaded.model)) if "delta" in definitions else None
    scorer = scorers[trained]
    parameters = unfreeze_backbone(loaded, freeze_embeddings)
    result = train(
        scorer.head, scorer.train, None, training, scorer.head.pad_id,
        evaluate=lambda _: scorer.mean("dev"),
    )  # fmt: skip
    for parameter in loaded.model.parameters():
        parameter.requires_grad_(False)
    tasks = [trained, *test_tasks]
    tables = relevance_tables(
        {task: scorers[task].head for task in tasks},
        {task: scorers[task].train for task in tasks}, **relevance, seed=seed,
    )  # fmt: skip
    frame = similarity_frame(
        parameter_places(loaded.model), tables, trained, test_tasks, fraction, definitions, base
    )
    scores = []
    for task in tasks:
        values, _ = scorers[task].evaluate("test")
        scores.append({"eval_task": task, "metric": scorers[task].metric,
                       "score": float(values.mean()), "sample_scores": values})  # fmt: skip
    metrics = {
        "dev_curve": result.dev_curve,
        "best_step": result.best_step,
        "steps": result.steps,
        "dev_score": result.best_dev_accuracy,
        "trained_parameters": parameters,
    }
    return frame, pd.DataFrame(scores), metrics
