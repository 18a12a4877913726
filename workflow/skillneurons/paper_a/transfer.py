"""Skill neurons as a prompt-transferability indicator (paper A, §6.2).

Su et al. (2021) found that the overlapping rate of activated neurons (ON) between
two tasks' soft prompts predicts how well one task's prompts work, zero-shot, on the
other. Paper A restricts ON to the top 20% skill neurons of the target task and
reports a higher Spearman correlation with transfer accuracy (0.53 -> 0.71, averaged
over target tasks). This module computes

- the zero-shot transfer accuracy of every source task's prompts on every target
  task with the same label words (:func:`transfer_pairs`; the target's verbalizer);
- the activation state of a prompt (:func:`activation_state`): which neurons are
  active (``a > 0``) when the prompts are fed to the model with no input, read at the
  answer position (``[MASK]``, as Su et al.'s code does) or at every prompt token;
- ON between two prompts (:func:`overlap_rate`): the cosine similarity of the two
  binary activation states, ``|A ∩ B| / sqrt(|A| |B|)`` (our reading of Su et al.;
  neither paper A nor its code spells the formula out), or their Jaccard index, over
  all neurons or over the target's top skill neurons (:func:`skill_neuron_mask`);
- per target task, Spearman's correlation between ON and transfer accuracy over the
  source tasks, its average over targets (paper A) and a correlation pooled within
  targets that also counts targets with only two sources
  (:func:`indicator_correlations`, :func:`pooled_spearman`);
- the points of Figure A-S6.2 (:func:`scatter_points`), drawn by
  :func:`skillneurons.reporting.figures.transfer_scatter`.

Pairs table (``results/{model}/transfer/pairs.parquet``): one row per source, target
and trial with ``transfer_accuracy``, ``on_all`` and ``on_skill`` (float64).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from skillneurons.infra.io import read_tensor_metadata
from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.loading import LoadedModel
from skillneurons.models.prompted import PromptedClassifier, load_prompt
from skillneurons.models.training import accuracy
from skillneurons.neurons.hooks import capture_activations
from skillneurons.neurons.ranking import Ranking

POSITIONS = ("answer", "prompts")
MEASURES = ("cosine", "jaccard")
PAIR_COLUMNS = ("source", "target", "trial", "transfer_accuracy", "on_all", "on_skill")
#: Fewer source tasks than this give no informative rank correlation (2 points: ±1).
MIN_SOURCES = 3


def transfer_pairs(
    label_words: Mapping[str, Sequence[str]], include_self: bool = True
) -> list[tuple[str, str]]:
    """Ordered (source, target) pairs of tasks with the same label words, in task order.

    A prompt can be moved to another task zero-shot only when the verbalizer reads the
    same words (paper A: Negative/Positive for binary tasks, Negative/Neutral/Positive
    for three-way ones).
    """
    tasks = list(label_words)
    return [
        (source, target)
        for target in tasks
        for source in tasks
        if tuple(label_words[source]) == tuple(label_words[target])
        and (include_self or source != target)
    ]


def answer_position(classifier: PromptedClassifier) -> int:
    """Sequence position of the answer when there is no input: ``[MASK]`` (0) for
    masked models, the last prompt token (-1, the last position) for causal LMs."""
    return 0 if classifier.masked else -1


@torch.inference_mode()
def activation_state(classifier: PromptedClassifier, positions: str = "answer") -> np.ndarray:
    """Which neurons the prompts activate (``a > 0``), ``[layers, positions, neurons]`` bool.

    The prompts are fed with an empty input (Su et al., 2021): ``[MASK] p_1 .. p_l`` for
    masked models, ``p_1 .. p_l`` for causal LMs. ``positions`` is ``"answer"`` (one
    position, see :func:`answer_position`) or ``"prompts"`` (every prompt token).
    """
    if positions not in POSITIONS:
        raise ValueError(f"positions {positions!r} is unknown; use one of {POSITIONS}")
    index = (
        [answer_position(classifier)]
        if positions == "answer"
        else classifier.prompt_positions.tolist()
    )
    device = classifier.prompts.device
    empty = torch.zeros((1, 0), dtype=torch.long, device=device)
    modes = [(module, module.training) for module in classifier.modules()]
    classifier.eval()
    try:
        with capture_activations(classifier, positions=index) as capture:
            classifier(input_ids=empty, attention_mask=empty)
    finally:  # restore each module's own mode (the backbone stays in eval mode)
        for module, training in modes:
            module.training = training
    return (capture.stacked()[0] > 0).cpu().numpy()


def transfer_evaluation(
    loaded: LoadedModel,
    prompt_files: Mapping[tuple[str, int], str],
    tests: Mapping[str, EncodedSplit],
    label_words: Mapping[str, Sequence[str]],
    *,
    batch_size: int,
    positions: str = "answer",
) -> tuple[dict[tuple[str, str, int], float], dict[tuple[str, int], np.ndarray]]:
    """Zero-shot transfer accuracies and activation states of every task's prompts.

    ``prompt_files`` maps (task, trial) to its ``prompt.safetensors``; ``tests`` maps a
    target task to its encoded test split. For every (source, target) of
    :func:`transfer_pairs` (self included) and trial, the source's prompts run on the
    target's test split with the target's label words. Returns ``accuracies``
    ((source, target, trial) -> accuracy) and ``states`` ((task, trial) ->
    :func:`activation_state`).
    """
    lengths = {read_tensor_metadata(path)["prompt_length"] for path in prompt_files.values()}
    if len(lengths) != 1:
        raise ValueError(f"prompts of different lengths {sorted(lengths)} cannot be swapped")
    length = lengths.pop()
    trials = sorted({trial for _, trial in prompt_files})
    classifiers = {
        task: PromptedClassifier(loaded, words, length) for task, words in label_words.items()
    }
    accuracies, states = {}, {}
    for source, target in transfer_pairs(label_words):
        classifier = classifiers[target]
        for trial in trials:
            load_prompt(classifier, prompt_files[(source, trial)])
            split = tests[target]
            accuracies[(source, target, trial)] = accuracy(
                classifier, split, batch_size, classifier.pad_id
            )
            if source == target:
                states[(target, trial)] = activation_state(classifier, positions)
    return accuracies, states


def skill_neuron_mask(ranking: Ranking, fraction: float, per_layer: bool) -> np.ndarray:
    """``[layers, neurons]`` bool: the task's top ``fraction`` skill neurons (paper: 20%).

    Chosen over all layers, or within each layer when ``per_layer`` (``ranking.scope``);
    multi-class tasks take their subtasks' best neurons in turn (§3.2).
    """
    chosen = ranking.top(float(fraction), per_layer=per_layer)
    mask = np.zeros(ranking.shape, dtype=bool)
    mask[chosen[:, 0], chosen[:, 1]] = True
    return mask


def overlap_rate(
    state_a: np.ndarray,
    state_b: np.ndarray,
    neurons: np.ndarray | None = None,
    measure: str = "cosine",
) -> float:
    """ON between two activation states ``[layers, positions, neurons]`` (bool).

    ``neurons`` (``[layers, neurons]`` bool) restricts both states to those neurons at
    every position. ``cosine``: ``|A ∩ B| / sqrt(|A| |B|)``, the cosine similarity of
    the binary vectors (Su et al., 2021); ``jaccard``: ``|A ∩ B| / |A ∪ B|``. NaN when
    a state has no active neuron (cosine) or both have none (Jaccard).
    """
    if measure not in MEASURES:
        raise ValueError(f"measure {measure!r} is unknown; use one of {MEASURES}")
    if state_a.shape != state_b.shape:
        raise ValueError(f"activation states differ in shape: {state_a.shape} vs {state_b.shape}")
    a, b = state_a, state_b
    if neurons is not None:
        select = np.broadcast_to(neurons[:, None, :], a.shape)
        a, b = a[select], b[select]
    both = float(np.logical_and(a, b).sum())
    if measure == "cosine":
        norm = np.sqrt(float(a.sum()) * float(b.sum()))
        return both / norm if norm else float("nan")
    union = float(np.logical_or(a, b).sum())
    return both / union if union else float("nan")


def pairs_table(
    accuracies: Mapping[tuple[str, str, int], float],
    states: Mapping[tuple[str, int], np.ndarray],
    skill_masks: Mapping[str, np.ndarray],
    measure: str = "cosine",
) -> pd.DataFrame:
    """The pairs table (see the module docstring).

    ``accuracies`` maps (source, target, trial) to the zero-shot accuracy of the
    source's trial-``t`` prompts on the target's test split; ``states`` maps (task,
    trial) to :func:`activation_state`; ``skill_masks`` maps a target task to its
    :func:`skill_neuron_mask`. ON compares the source's and the target's prompts of
    the same trial.
    """
    rows = []
    for (source, target, trial), value in accuracies.items():
        a, b = states[(source, trial)], states[(target, trial)]
        rows.append(
            {
                "source": source,
                "target": target,
                "trial": int(trial),
                "transfer_accuracy": float(value),
                "on_all": overlap_rate(a, b, measure=measure),
                "on_skill": overlap_rate(a, b, skill_masks[target], measure=measure),
            }
        )
    frame = pd.DataFrame(rows, columns=list(PAIR_COLUMNS))
    return frame.astype({"trial": "int64", "transfer_accuracy": "float64"})


def mean_over_trials(pairs: pd.DataFrame) -> pd.DataFrame:
    """Transfer accuracy and ON per (source, target), averaged over trials."""
    values = ["transfer_accuracy", "on_all", "on_skill"]
    return pairs.groupby(["source", "target"], sort=False, as_index=False)[values].mean()


def pooled_spearman(groups: Sequence[pd.DataFrame], x: str, y: str) -> float:
    """Spearman's correlation pooled within groups (here: the sources of each target).

    ``x`` and ``y`` are ranked within each group (average ranks for ties), each
    group's ranks are centred on its mean rank, and Pearson's correlation is taken
    over the centred ranks of all groups together. Without ties this is the mean of
    the per-group Spearman correlations weighted by ``n (n^2 - 1)``: a group of two
    (whose own correlation is always ±1) counts 6, one of four counts 60, a single
    row counts nothing. NaN when no group has two rows or every rank is tied.
    """
    centred = []
    for group in groups:
        if len(group) < 2:
            continue
        ranks = group[[x, y]].rank()
        centred.append(ranks - ranks.mean())
    if not centred:
        return float("nan")
    ranks = pd.concat(centred)
    norm = np.sqrt((ranks[x] ** 2).sum() * (ranks[y] ** 2).sum())
    return float((ranks[x] * ranks[y]).sum() / norm) if norm else float("nan")


def indicator_correlations(pairs: pd.DataFrame, include_self: bool = False) -> pd.DataFrame:
    """Spearman's rank correlation of ON with transfer accuracy, per target task.

    For each target, over its source tasks (the target itself only when
    ``include_self``), both averaged over trials: ``spearman_all`` (ON over all
    neurons, Su et al.) and ``spearman_skill`` (ON over the target's top skill neurons,
    paper A). Targets with fewer than :data:`MIN_SOURCES` sources get NaN. Two rows
    follow the targets: ``average`` averages the defined correlations (paper A's
    summary: 0.53 and 0.71), and ``pooled`` is :func:`pooled_spearman` over every
    target with at least two sources (ours: with few tasks, e.g. the embedded default,
    no target has three sources and the average is NaN). ``sources`` counts the
    (source, target) pairs each row uses.
    """
    from scipy.stats import spearmanr

    means = mean_over_trials(pairs)
    if not include_self:
        means = means[means["source"] != means["target"]]
    groups = dict(list(means.groupby("target", sort=False)))
    rows = []
    for target, group in groups.items():
        row = {"target": target, "sources": len(group)}
        for variant in ("all", "skill"):
            value = float("nan")
            if len(group) >= MIN_SOURCES:
                value = float(spearmanr(group[f"on_{variant}"], group["transfer_accuracy"])[0])
            row[f"spearman_{variant}"] = value
        rows.append(row)
    table = pd.DataFrame(rows, columns=["target", "sources", "spearman_all", "spearman_skill"])
    defined = table.dropna(subset=["spearman_all", "spearman_skill"], how="all")
    average = {
        "target": "average",
        "sources": int(defined["sources"].sum()),
        "spearman_all": float(defined["spearman_all"].mean()) if len(defined) else np.nan,
        "spearman_skill": float(defined["spearman_skill"].mean()) if len(defined) else np.nan,
    }
    pooled = {
        "target": "pooled",
        "sources": int(sum(len(group) for group in groups.values() if len(group) >= 2)),
        **{
            f"spearman_{variant}": pooled_spearman(
                list(groups.values()), f"on_{variant}", "transfer_accuracy"
            )
            for variant in ("all", "skill")
        },
    }
    return pd.concat([table, pd.DataFrame([average, pooled])], ignore_index=True)


def transfer_matrix(pairs: pd.DataFrame) -> pd.DataFrame:
    """Mean transfer accuracy over trials, one row per source and one column per target
    (NaN where the label words differ)."""
    means = mean_over_trials(pairs)
    order = list(dict.fromkeys([*pairs["target"], *pairs["source"]]))
    matrix = means.pivot(index="source", columns="target", values="transfer_accuracy")
    matrix = matrix.reindex(index=order, columns=order)
    matrix.columns.name = None
    return matrix.reset_index()


def scatter_points(pairs: pd.DataFrame, include_self: bool = False) -> pd.DataFrame:
    """Figure A-S6.2's points: one per (source, target) pair, means over trials
    (:func:`mean_over_trials`); self-transfer only when ``include_self``."""
    means = mean_over_trials(pairs)
    if not include_self:
        means = means[means["source"] != means["target"]]
    return means
