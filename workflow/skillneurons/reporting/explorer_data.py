"""The neuron explorer's data: per task, the top neurons of paper A and
paper B side by side, each with its test activations by label, from a run's outputs.

Read, never recomputed (no model is loaded):

- paper A's ranking (``rankings/{task}.parquet``): predictivity (mean over trials,
  Eq. 6; a multi-class task's best subtask, §3.2) and the rank of a neuron in the order
  perturbation takes (:meth:`skillneurons.neurons.ranking.Ranking.order`);
- paper B's task neurons (``task_neurons/{task}.parquet``): relevance (Eqs. 2-3) and
  its rank, for paper B's tasks only;
- the test dump and Eq. 3's baseline of trial 0 (``activations/{task}/trial0/``): each
  listed neuron's activation at its best prompt token, binned per label, against the
  baseline at that token (the comparison Eq. 4 makes, as Figure A-F1 draws it);
- paper A's perturbation curve in the task's own order (§4.2): accuracy at the first
  rate that perturbs the neuron, mean over trials;
- B-T1's deactivation of the task's neurons (paper B §4.1), a task-level effect;
- A-T2's words (§4.4), which exist for each task's top skill neuron only;
- the test split's texts: per listed neuron the :data:`TEXTS` test texts with the
  highest and the lowest activation at its best prompt token, with their labels (what
  drives the neuron, the first thing a neuron page shows). The texts are per task, each
  once; a neuron lists positions into them. Per input token activations are not dumped
  (the dumps read the prompt tokens, §3.1), so no token is shaded.

Each paper's top set is the top ``fraction`` of neurons (``paper_b.fraction``, over all
layers or per layer by ``paper_b.scope``): paper B's set is the one B-T1 deactivates on
the base model (:func:`skillneurons.neurons.relevance_table.task_neurons`), paper A's the same
count by predictivity (:meth:`Ranking.top`), so the two sets are compared at one size as
in AB-T1. The table of a task lists every neuron among either paper's best
:data:`TOP_NEURONS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from skillneurons.data.splits import read_split
from skillneurons.infra.io import read_arrays, read_metadata
from skillneurons.neurons.activation_dump import iter_activations
from skillneurons.neurons.ranking import Ranking
from skillneurons.neurons.relevance_table import relevance_matrix, task_neurons

#: A task's table lists every neuron ranked this high by either paper.
TOP_NEURONS = 200
#: Bins of a neuron's activation histogram.
HISTOGRAM_BINS = 30
#: Test texts listed per neuron at each end (highest and lowest activation).
TEXTS = 5


@dataclass(frozen=True)
class TaskFiles:
    """The outputs of one task the explorer reads (None: the stage did not run)."""

    ranking: str
    test_dump: str
    baseline: str
    task_neurons: str | None = None
    perturbation: str | None = None
    test_split: str | None = None


@dataclass(frozen=True)
class PaperA:
    """Paper A's view of one task: ``rank`` (position in the perturbation order),
    ``score`` (predictivity) and ``token`` (the best prompt token), each ``[layers,
    neurons]``, and ``top`` (bool, the top set)."""

    rank: np.ndarray
    score: np.ndarray
    token: np.ndarray
    top: np.ndarray


@dataclass(frozen=True)
class PaperB:
    """Paper B's view of one task: ``rank`` and ``relevance`` ``[layers, neurons]`` and
    ``top`` (bool, the set B-T1 deactivates on the base model)."""

    rank: np.ndarray
    relevance: np.ndarray
    top: np.ndarray


def paper_a_view(ranking: Ranking, fraction: float, per_layer: bool) -> PaperA:
    """Ranks, predictivity and best tokens of every neuron (a multi-class task: those
    of the subtask where its predictivity is highest, :meth:`Ranking.scores`)."""
    shape = ranking.shape
    rank = np.empty(ranking.layers * ranking.neurons, dtype=np.int64)
    rank[ranking.order()] = np.arange(rank.size)
    predictivity = ranking.predictivity()
    stacked = np.stack(list(predictivity.values()))
    best_subtask = np.argmax(stacked, axis=0)
    tokens = np.zeros((len(predictivity), *shape), dtype=np.int64)
    subtask = ranking.table["subtask"].astype("string")
    for index, key in enumerate(predictivity):
        rows = ranking.table if key is None else ranking.table[(subtask == key).to_numpy()]
        tokens[index, rows["layer"].to_numpy(), rows["neuron"].to_numpy()] = rows["best_token"]
    token = np.take_along_axis(tokens, best_subtask[None], axis=0)[0]
    top = np.zeros(shape, dtype=bool)
    chosen = ranking.top(fraction, per_layer=per_layer)
    top[chosen[:, 0], chosen[:, 1]] = True
    return PaperA(rank.reshape(shape), ranking.scores(), token, top)


def paper_b_view(table: pd.DataFrame, fraction: float, per_layer: bool) -> PaperB:
    """Ranks and relevance of every neuron and paper B's top set
    (:func:`skillneurons.neurons.relevance_table.task_neurons`)."""
    relevance = relevance_matrix(table)
    rank = np.full(relevance.shape, -1, dtype=np.int64)
    rank[table["layer"].to_numpy(), table["neuron"].to_numpy()] = table["rank"]
    top = np.zeros(relevance.shape, dtype=bool)
    for layer, neurons in task_neurons(table, fraction, per_layer).items():
        top[layer, neurons] = True
    return PaperB(rank, relevance, top)


def listed_neurons(a_rank: np.ndarray, b_rank: np.ndarray | None, count: int) -> np.ndarray:
    """``(layer, neuron)`` int64 ``[k, 2]`` of every neuron among either paper's best
    ``count``, by the better of its two ranks (ties: paper A's rank first)."""
    best = a_rank if b_rank is None else np.minimum(a_rank, b_rank)
    flat = np.flatnonzero(best.ravel() < count)
    flat = flat[np.lexsort((a_rank.ravel()[flat], best.ravel()[flat]))]
    return np.stack(np.unravel_index(flat, a_rank.shape), axis=1).astype(np.int64)


def dump_values(path: str, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """float32 ``[samples, k]`` activations of the ``cells`` (``[k, 3]`` of ``(layer,
    token, neuron)``), int64 ``[samples]`` labels and int64 ``[samples]`` split ``idx``
    of a dump, streamed by batch."""
    values, labels, idx = [], [], []
    for batch in iter_activations(path, columns=("idx", "label", "activations")):
        block = batch.activations[:, cells[:, 0], cells[:, 1], cells[:, 2]]
        values.append(block.astype(np.float32))
        labels.append(batch.labels)
        idx.append(batch.idx)
    if not values:
        empty = np.empty(0, dtype=np.int64)
        return np.empty((0, len(cells)), dtype=np.float32), empty, empty
    return np.concatenate(values), np.concatenate(labels), np.concatenate(idx)


def driving_texts(values: np.ndarray, count: int = TEXTS) -> dict[str, list[list]]:
    """One neuron's test samples that drive it: ``high``, the ``count`` with the highest
    activation (highest first), and ``low``, the ``count`` with the lowest (lowest
    first), each ``[position, activation]`` (position in the dump's sample order; ties
    by position)."""
    order = np.lexsort((np.arange(len(values)), -values))
    rising = np.lexsort((np.arange(len(values)), values))
    return {
        "high": [[int(i), _number(values[i])] for i in order[:count]],
        "low": [[int(i), _number(values[i])] for i in rising[:count]],
    }


def split_texts(path: str, idx: np.ndarray) -> list[str]:
    """The texts of a split file's rows ``idx``, in that order: ``text_a``, and
    `` / text_b`` for a pair (an inference task's premise and hypothesis)."""
    frame = read_split(path)[0].set_index("idx").loc[idx]
    return [
        a if pd.isna(b) else f"{a} / {b}"
        for a, b in zip(frame["text_a"], frame["text_b"], strict=True)
    ]


def label_histogram(
    values: np.ndarray, labels: np.ndarray, baseline: float, num_labels: int, bins: int
) -> dict:
    """One neuron's activations binned per label: ``bins`` equal bins from the smallest
    to the largest of the values and the baseline (so the baseline is on the axis);
    ``counts[label][bin]``."""
    low = float(min(values.min(initial=baseline), baseline))
    high = float(max(values.max(initial=baseline), baseline))
    if high <= low:
        high = low + 1.0
    edges = np.linspace(low, high, bins + 1)
    counts = [
        np.histogram(values[labels == label], bins=edges)[0].astype(int).tolist()
        for label in range(num_labels)
    ]
    return {"low": low, "high": high, "counts": counts}


def perturbed_accuracy(curves: pd.DataFrame, task: str, positions: np.ndarray) -> list:
    """Per neuron at ``positions`` in paper A's order: ``[rate, accuracy]`` of the first
    rate of the task's own-order curve (§4.2) that perturbs it (``perturbed`` >
    position), accuracy the mean over trials; None beyond the largest rate."""
    own = curves[
        (curves["eval_task"] == task)
        & (curves["order"] == task)
        & (curves["order_type"] == "task")
    ]
    steps = (
        own.groupby("rate", sort=True)
        .agg(perturbed=("perturbed", "min"), accuracy=("accuracy", "mean"))
        .reset_index()
    )
    out = []
    for position in positions:
        covering = steps[steps["perturbed"] > position]
        first = covering.iloc[0] if len(covering) else None
        out.append(None if first is None else [float(first["rate"]), float(first["accuracy"])])
    return out


def unperturbed_accuracy(curves: pd.DataFrame, task: str) -> float | None:
    """Accuracy of the task's own-order curve at rate 0 (mean over trials), if swept."""
    rows = curves[
        (curves["eval_task"] == task) & (curves["order"] == task) & (curves["rate"] == 0.0)
    ]
    return float(rows["accuracy"].mean()) if len(rows) else None


def deactivation_effect(frame: pd.DataFrame, task: str) -> dict | None:
    """B-T1 for one task (paper B §4.1): the multi-task model's score, with the task's
    neurons deactivated, and with paper B's random neurons (condition ``random``: as many as
    the task's, drawn over all layers; mean over draws); None if absent."""
    own = frame[frame["eval_task"] == task]
    original = own[own["condition"] == "original"]["score"]
    deactivated = own[(own["condition"] == "task") & (own["source"] == task)]["score"]
    random = own[own["condition"] == "random"]["score"]
    if original.empty or deactivated.empty:
        return None
    return {
        "metric": str(own["metric"].iloc[0]),
        "original": float(original.mean()),
        "task": float(deactivated.mean()),
        "random": float(random.mean()) if len(random) else None,
    }


def top_words(frame: pd.DataFrame, task: str) -> dict | None:
    """A-T2/A-T6's tokens of a task's top skill neuron: ``layer``, ``neuron`` and per
    measure and direction the tokens in rank order; None where the task has none."""
    rows = frame[frame["task"] == task].sort_values("rank", kind="stable")
    if rows.empty:
        return None
    words: dict[str, dict[str, list[str]]] = {}
    for (measure, direction), group in rows.groupby(["measure", "direction"], sort=True):
        words.setdefault(str(measure), {})[str(direction)] = group["token"].astype(str).tolist()
    return {"layer": int(rows["layer"].iloc[0]), "neuron": int(rows["neuron"].iloc[0]), **words}


def layer_counts(top: np.ndarray) -> list[int]:
    """How many neurons of a top set lie in each layer."""
    return top.sum(axis=1).astype(int).tolist()


def _number(value: float) -> float | None:
    """A float for JSON (NaN as None), rounded to 6 significant digits."""
    return None if not np.isfinite(value) else float(f"{value:.6g}")


def task_data(
    task: str,
    files: TaskFiles,
    a_views: Mapping[str, PaperA],
    b_views: Mapping[str, PaperB],
    *,
    deactivation: pd.DataFrame | None,
    words: pd.DataFrame | None,
    count: int = TOP_NEURONS,
    bins: int = HISTOGRAM_BINS,
) -> dict:
    """One task's page data: its listed neurons (:func:`listed_neurons`) with both
    papers' numbers, histograms and ranks on the other tasks, and the task-level effects.
    ``a_views``/``b_views``: every task's views (ranks on the other tasks)."""
    a_view, b_view = a_views[task], b_views.get(task)
    cells = listed_neurons(a_view.rank, None if b_view is None else b_view.rank, count)
    layers, neurons = cells[:, 0], cells[:, 1]
    tokens = a_view.token[layers, neurons]
    values, labels, idx = dump_values(files.test_dump, np.stack([layers, tokens, neurons], axis=1))
    baseline = read_arrays(files.baseline)["prompt"][layers, tokens, neurons].astype(np.float64)
    label_names = [str(name) for name in read_metadata(files.test_dump).get("label_names", [])]
    num_labels = max(len(label_names), int(labels.max(initial=-1)) + 1)
    curves = pd.read_parquet(files.perturbation) if files.perturbation else None
    positions = a_view.rank[layers, neurons]
    perturbed = (
        perturbed_accuracy(curves, task, positions) if curves is not None else [None] * len(cells)
    )
    rows = []
    for index, (layer, neuron) in enumerate(cells):
        other = {
            name: [
                int(view.rank[layer, neuron]),
                int(b_views[name].rank[layer, neuron]) if name in b_views else None,
            ]
            for name, view in a_views.items()
            if name != task
        }
        rows.append(
            {
                "layer": int(layer),
                "neuron": int(neuron),
                "token": int(tokens[index]),
                "a_score": _number(a_view.score[layer, neuron]),
                "a_rank": int(a_view.rank[layer, neuron]),
                "a_top": bool(a_view.top[layer, neuron]),
                "b_relevance": None
                if b_view is None
                else _number(b_view.relevance[layer, neuron]),
                "b_rank": None if b_view is None else int(b_view.rank[layer, neuron]),
                "b_top": None if b_view is None else bool(b_view.top[layer, neuron]),
                "perturbed": perturbed[index],
                "baseline": _number(baseline[index]),
                "histogram": label_histogram(
                    values[:, index], labels, float(baseline[index]), num_labels, bins
                ),
                "other": other,
                "texts": driving_texts(values[:, index]) if files.test_split else None,
            }
        )
    return {
        "task": task,
        "layers": int(a_view.rank.shape[0]),
        "neurons": int(a_view.rank.shape[1]),
        "label_names": label_names or [str(label) for label in range(num_labels)],
        "test_samples": len(labels),
        "a_top_size": int(a_view.top.sum()),
        "b_top_size": None if b_view is None else int(b_view.top.sum()),
        "unperturbed": None if curves is None else unperturbed_accuracy(curves, task),
        "deactivation": None if deactivation is None else deactivation_effect(deactivation, task),
        "words": None if words is None else top_words(words, task),
        "texts": None
        if files.test_split is None
        else [
            [text, int(label)]
            for text, label in zip(split_texts(files.test_split, idx), labels, strict=True)
        ],
        "rows": rows,
    }


def explorer_data(
    model: str,
    files: Mapping[str, TaskFiles],
    *,
    fraction: float,
    per_layer: bool,
    deactivation: str | None = None,
    words: str | None = None,
    count: int = TOP_NEURONS,
) -> tuple[dict, dict[str, dict]]:
    """The overview (tasks, layer-by-task counts of both papers' top sets, the settings)
    and every task's :func:`task_data`, from the run's files of ``model``."""
    a_views = {
        task: paper_a_view(Ranking.from_parquet(paths.ranking), fraction, per_layer)
        for task, paths in files.items()
    }
    b_views = {
        task: paper_b_view(pd.read_parquet(paths.task_neurons), fraction, per_layer)
        for task, paths in files.items()
        if paths.task_neurons
    }
    deactivation_frame = pd.read_parquet(deactivation) if deactivation else None
    words_frame = pd.read_parquet(words) if words else None
    tasks = {
        task: task_data(
            task,
            paths,
            a_views,
            b_views,
            deactivation=deactivation_frame,
            words=words_frame,
            count=count,
        )
        for task, paths in files.items()
    }
    overview = {
        "model": model,
        "tasks": list(files),
        "top_neurons": count,
        "fraction": fraction,
        "scope": "per_layer" if per_layer else "global",
        "identify_on": None
        if deactivation is None
        else read_metadata(deactivation).get("identify_on"),
        "layer_counts": {
            "a": {task: layer_counts(view.top) for task, view in a_views.items()},
            "b": {task: layer_counts(view.top) for task, view in b_views.items()},
        },
    }
    return overview, tasks
