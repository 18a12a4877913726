"""Random label words (paper A, §4.4 and appendix B): do skill neurons depend on them?

If skill neurons only served to decode the label words, their predictivity order
would change with the words. Paper A prompt-tunes each task with label words sampled
uniformly from the vocabulary, ranks the neurons with each draw, and reports the
average Spearman correlation between the draws' predictivity orders (0.87).

Sampling (:func:`sample_label_words`): the pool is the vocabulary's **whole-word
tokens** (:func:`skillneurons.models.vocabulary.whole_word_ids`). The original code
sampled any vocabulary id; a subword piece as a "word" makes the verbalizer of
:mod:`skillneurons.models.verbalizer` ill-defined, hence the restriction. Draw ``d``
uses a generator seeded with ``(seed, d)`` and takes the first ``num_labels`` tokens
of a permutation of the pool, so every task of a draw shares its first words and a
draw is reproducible.

Agreement (:func:`agreement_row`): the Spearman rank correlation of two rankings'
neuron predictivities as for Figure 5 of paper A
(:func:`skillneurons.reporting.stats.task_correlation`: per layer, averaged over layers;
a multi-class task scores a neuron by its best subtask predictivity). Each draw has its
own prompt initialisation and data order (seed); a control ranking with the configured
label words and the draw's seed tells how much of the agreement the seeds leave.

Noise floor (:func:`split_half_agreement`): how far two rankings of the **same**
prompts agree when each sees only half of the dev split (two disjoint, label-stratified
halves). With 100 dev samples Eq. 4's accuracies step by 0.01 and most of a layer's
neurons lie within sampling noise of each other, so two rankings can disagree without
any change of label words: the agreement of random-label-word draws can only be
compared with the paper's 0.87 where this floor lies above it (the findings).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from skillneurons.models.vocabulary import whole_word_ids
from skillneurons.neurons.predictivity import neuron_predictivity
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.skill_neurons import SampleGroup, trial_accuracies
from skillneurons.reporting.stats import task_correlation

#: Paper A's average Spearman correlation between the orders of 5 random label words.
PAPER_AGREEMENT = 0.87


def sample_label_words(tokenizer, num_labels: int, seed: int, draw: int) -> list[str]:
    """``num_labels`` distinct whole-word label words for draw ``draw`` (module docstring)."""
    pool = whole_word_ids(tokenizer)
    if len(pool) < num_labels:
        raise ValueError(
            f"the vocabulary has {len(pool)} whole-word tokens; {num_labels} label words needed"
        )
    order = np.random.default_rng([seed, draw]).permutation(len(pool))
    chosen = pool[order[:num_labels]].tolist()
    return [
        tokenizer.convert_tokens_to_string([token]).strip()
        for token in tokenizer.convert_ids_to_tokens(chosen)
    ]


def agreement_row(
    task: str,
    draws: Sequence[Ranking],
    controls: Sequence[Ranking],
    words: Sequence[Sequence[str]],
    reference: Ranking,
    test_accuracies: Sequence[float],
) -> dict:
    """One row of the §4.4 table for a task.

    ``draws`` are the rankings found with each draw's random label words, ``controls``
    those found with the configured label words and each draw's seeds, ``words`` the
    draws' label words, ``reference`` the ranking of the main prompt tuning and
    ``test_accuracies`` the draws' prompt-tuning test accuracies (mean over trials).
    ``spearman_*`` summarise the layer-mean Spearman correlation (Figure 5's) over
    every pair of draws; ``control_spearman_mean`` is the same over the controls (the
    agreement that seeds alone leave: random label words agree about as much when
    the orders do not depend on them); ``spearman_vs_label_words`` is the mean between
    each draw and ``reference``.
    """
    scores = [ranking.scores() for ranking in draws]
    pairs = [task_correlation(a, b)[1] for a, b in itertools.combinations(scores, 2)]
    if not pairs:
        raise ValueError(f"task {task!r}: at least two draws are needed, got {len(draws)}")
    control = [ranking.scores() for ranking in controls]
    control_pairs = [task_correlation(a, b)[1] for a, b in itertools.combinations(control, 2)]
    base = reference.scores()
    return {
        "task": task,
        "draws": len(draws),
        "label_words": " | ".join("/".join(w) for w in words),
        "spearman_mean": float(np.mean(pairs)),
        "spearman_min": float(np.min(pairs)),
        "spearman_max": float(np.max(pairs)),
        "control_spearman_mean": float(np.mean(control_pairs)) if control_pairs else np.nan,
        "spearman_vs_label_words": float(
            np.mean([task_correlation(score, base)[1] for score in scores])
        ),
        "test_accuracy_mean": float(np.mean(test_accuracies)),
        "paper": PAPER_AGREEMENT,
    }


def split_halves(group: SampleGroup, seed: int) -> tuple[SampleGroup, SampleGroup]:
    """Two disjoint halves of a group's dev samples, label-stratified: each label's
    samples in a random order seeded with ``seed``, the first half of them (rounded
    down) to the first half, the rest to the second; each half keeps split order."""
    generator = np.random.default_rng(seed)
    first = np.zeros(len(group.idx), dtype=bool)
    for label in np.unique(group.labels):
        members = np.flatnonzero(group.labels == label)
        first[generator.permutation(members)[: len(members) // 2]] = True
    return tuple(SampleGroup(group.idx[part], group.labels[part]) for part in (first, ~first))


def split_half_agreement(
    dump_path: str, baseline: np.ndarray, groups: dict[str, SampleGroup], seed: int
) -> float:
    """The noise floor of §4.4's agreement for one trial (module docstring): the
    layer-mean Spearman (Figure 5's) between the neuron scores ranked on the two halves
    of the dev split (:func:`split_halves`), each half's score being Eq. 5's
    predictivity at the best prompt token, the maximum over the subtasks of a
    multi-class task (as :meth:`Ranking.scores`). ``baseline`` is the trial's
    ``a_bsl`` ``[layers, tokens, neurons]``, ``groups`` the task's dev groups."""
    halves = {}
    for name, group in groups.items():
        halves[f"{name}/0"], halves[f"{name}/1"] = split_halves(group, seed)
    accuracy = trial_accuracies(dump_path, baseline, halves)
    scores = [
        np.max([neuron_predictivity(accuracy[f"{name}/{half}"])[0] for name in groups], axis=0)
        for half in (0, 1)
    ]
    return task_correlation(*scores)[1]
