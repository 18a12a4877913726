"""Parameters of task neurons and generalization (paper B, §5.2): the models ``M_i`` and
the similarities behind B-F3 and B-T4.

One model ``M_i`` is fully fine-tuned per training task ``i``. Inside ``M_i``, per
layer, the parameters ``P^i_i`` of the training task's neurons are compared with the
parameters ``P^i_j`` of each out-of-domain test task's neurons (both sets found on
``M_i``, the evaluated model) by a cosine similarity; B-F3 plots it per layer (mean
over the models), B-T4 correlates it (mean over layers) with ``M_i``'s score on
test task ``j`` (accuracy, or ROUGE-L F1 for a generation task; the training tasks of
both groups train a model each, and every group's test tasks are compared; B-F3 shows
each test task's profile averaged over all the models and, with two groups, over its
own group's models: paper B's panel c, the generation-trained models alone).

A neuron's parameter vector ``θ_n`` is its entries of the seam
(:func:`skillneurons.models.sites.neuron_parameters`: its output-projection column,
its input-projection row(s) and bias entries); every neuron of a layer has one in the
same space. Paper B calls a task's neuron parameters "certain columns of W" (A.2) and
computes "the cosine similarity between ``P^i_i`` and ``P^i_j``" in a layer (§5.2): one
cosine of two parameter objects, where the sets may differ in size. A cosine compares
two vectors of one space, so each set's parameters are taken as one vector of the
neurons' space, the sum of its columns; the cosine of the sums is the cosine of the
means. It is 1 for one set against itself (as any cosine of a thing with itself) and
uses every neuron of both sets, whatever their sizes. The definitions (config
``paper_b.generalization.similarity``; with their labels in B-F3:
:data:`skillneurons.paper_b.similarity_definitions.DEFINITIONS`):

``centroid`` (default)     paper B's cosine, read as above:
                           ``cos(mean_{N_i} θ_n, mean_{N_j} θ_n)``; it depends on the
                           neurons' directions: two disjoint sets of parallel
                           neurons give 1, of opposite neurons -1;
``rank_paired``            the cosine of the two sets' vectors concatenated in
                           relevance order, both cut to the smaller set's size (drops
                           the larger set's other neurons);
``delta_centroid``         ``centroid`` on the fine-tuning's changes
                           ``θ_n(M_i) - θ_n(base)``;
``norm_weighted_overlap``  not a cosine of directions: the cosine of the layer's
                           parameters with every entry outside each set zeroed,
                           ``Σ_{N_i ∩ N_j} |θ_n|^2 / sqrt(Σ_{N_i} |θ_n|^2
                           Σ_{N_j} |θ_n|^2)``, which only counts the shared neurons,
                           weighted by their norms: §5.1's overlap again (it was
                           called ``masked``; that name is refused).

The similarity file always holds ``centroid`` and ``norm_weighted_overlap`` (so B-F3
shows how much of the cosine the shared neurons alone give) and the configured one,
each with its ``chance`` level: the mean over random sets of the same sizes drawn from
the layer (:func:`chance_similarity`). A layer's neurons share a mean direction, so the
cosine of two large sets' means is high whatever the sets, and higher the larger they
are; top-p% over all layers gives each layer its own set sizes, so a raw profile can
rise with depth by the sizes alone. The claims
(:mod:`skillneurons.paper_b.similarity_report`) decide the excess
``similarity - chance``.

The profile B-F3 reads (§5.2: "at the bottom layer, the similarity remains notably low.
When reaching a certain layer depth, similarity starts to gradually increase") is
compared between the two halves of the layers
(:func:`skillneurons.paper_b.similarity_report.depth_halves`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from skillneurons.models.loading import LoadedModel
from skillneurons.models.sites import ffn_sites, neuron_parameters
from skillneurons.models.training import TrainingSettings, train
from skillneurons.paper_b.classifiers import unfreeze_backbone
from skillneurons.paper_b.relevance import relevance_tables
from skillneurons.paper_b.scorers import TaskScorer
from skillneurons.paper_b.similarity_definitions import DEFINITIONS

#: Pairs of random sets behind each chance level (:func:`chance_similarity`).
CHANCE_DRAWS = 20


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
    """A CPU copy of the parameters at ``places`` (the base model, for ``delta_centroid``)."""
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


def _norm_weighted_overlap(of, first: np.ndarray, second: np.ndarray) -> float:
    shared = np.intersect1d(first, second)
    own, other, both = ((of(ids) ** 2).sum() for ids in (first, second, shared))
    denominator = np.sqrt(own * other)
    return float(both / denominator) if denominator > 0 else float("nan")


Rows = Callable[[np.ndarray], np.ndarray]


def _compare(definition: str, rows: Rows, first: np.ndarray, second: np.ndarray) -> float:
    """``definition`` on the sets ``first`` and ``second``, ``rows(ids)`` giving their
    vectors (``θ_n``, or the changes for ``delta_centroid``)."""
    if definition == "norm_weighted_overlap":
        return _norm_weighted_overlap(rows, first, second)
    if definition == "rank_paired":
        size = min(len(first), len(second))
        return _cosine(rows(first[:size]), rows(second[:size]))
    return _cosine(rows(first).mean(axis=0), rows(second).mean(axis=0))


def _check(definition: str, base) -> None:
    if definition not in DEFINITIONS:
        raise ValueError(f"similarity {definition!r} is unknown; use one of {tuple(DEFINITIONS)}")
    if definition == "delta_centroid" and base is None:
        raise ValueError("similarity 'delta_centroid' needs the base model's parameters")


def _rows(definition: str, places: Places, base: Places | None) -> Rows:
    if definition == "delta_centroid":
        return lambda ids: vectors(places, ids) - vectors(base, ids)
    return lambda ids: vectors(places, ids)


def similarity(
    definition: str,
    places: Places,
    first: np.ndarray,
    second: np.ndarray,
    base: Places | None = None,
) -> float:
    """One layer's similarity of the neuron sets ``first`` and ``second`` (indices in
    relevance order) under ``definition`` (the module docstring; ``centroid`` is paper
    B §5.2's cosine); ``base`` holds the base model's parameters of that layer
    (``delta_centroid`` only). NaN when a set is empty or a mean vector is zero."""
    _check(definition, base)
    if not len(first) or not len(second):
        return float("nan")
    return _compare(definition, _rows(definition, places, base), first, second)


def chance_similarity(
    definition: str,
    rows: Rows,
    width: int,
    sizes: tuple[int, int],
    draws: int,
    generator: np.random.Generator,
) -> float:
    """The mean of ``definition`` over ``draws`` pairs of random sets of ``sizes``
    drawn independently from a layer's ``width`` neurons (``rows``: their vectors; draws
    without a value left out, NaN when no draw has one or a size is 0): what the sets'
    sizes give by themselves. A layer's neurons share a mean direction, so
    the cosine of two large random sets' means nears 1 (MiniLM-L2, 1536 neurons: 0.78
    for disjoint sets of 150, 0.93 of 600); the claims test the excess over this."""
    values = np.array(
        [
            _compare(definition, rows, *(generator.choice(width, n, replace=False) for n in sizes))
            for _ in range(draws if min(sizes) else 0)
        ]
    )
    defined = values[np.isfinite(values)]  # a draw whose mean vector is zero has no cosine
    return float(defined.mean()) if defined.size else float("nan")


def similarity_frame(
    places: Sequence[Places],
    tables: Mapping[str, pd.DataFrame],
    trained: str,
    test_tasks: Sequence[str],
    fraction: float,
    definitions: Sequence[str],
    base: Sequence[Places] | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """B-F3's values for model ``M_trained``: ``layer``, ``test_task``, ``definition``,
    ``similarity`` of the trained task's and each test task's top-``fraction`` neurons
    (``tables``: their relevance on this model; ``places``: its parameters) and its
    ``chance`` level (:func:`chance_similarity`, :data:`CHANCE_DRAWS` pairs seeded by
    ``seed``, the layer and the test task)."""
    for definition in definitions:
        _check(definition, base)
    own = ranked_sets(tables[trained], fraction)
    others = {task: ranked_sets(tables[task], fraction) for task in test_tasks}
    rows = {task: [] for task in test_tasks}
    for layer, layer_places in enumerate(places):
        view, axis = layer_places[0]
        every = np.arange(view.shape[axis])
        values = vectors(layer_places, every)  # each layer's vectors read once
        changes = None if base is None else values - vectors(base[layer], every)
        for index, task in enumerate(test_tasks):
            sets = own[layer], others[task][layer]
            for definition in definitions:
                of = (changes if definition == "delta_centroid" else values).__getitem__
                generator = np.random.default_rng([seed, layer, index])
                value = _compare(definition, of, *sets) if min(map(len, sets)) else float("nan")
                sizes = (len(sets[0]), len(sets[1]))
                chance = chance_similarity(
                    definition, of, len(every), sizes, CHANCE_DRAWS, generator
                )
                rows[task].append(
                    {
                        "layer": layer,
                        "test_task": task,
                        "definition": definition,
                        "similarity": value,
                        "chance": chance,
                    }
                )
    return pd.DataFrame([row for task in test_tasks for row in rows[task]])


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
    base = snapshot(parameter_places(loaded.model)) if "delta_centroid" in definitions else None
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
        parameter_places(loaded.model), tables, trained, test_tasks, fraction, definitions,
        base, seed,
    )  # fmt: skip
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
