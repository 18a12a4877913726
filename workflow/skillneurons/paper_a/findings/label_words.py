"""§4.4's claims: the neuron orders found with random label words agree as the paper's
0.87 (decided only above the dev split's noise floor), and random label words move the
orders no more than the prompt seed alone (the seed-only controls, ours)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from skillneurons.paper_a.findings.task_relations import layer_mean_spearman
from skillneurons.reporting.findings import (
    EQUIVALENCE,
    NOT_DECIDABLE,
    BootstrapSettings,
    Claim,
    Units,
    decide,
    refuse,
    unavailable,
)
from skillneurons.reporting.resampling import ResampledRanks, distinct_pairs

#: §4.4: "the average Spearman's correlation between the neuron predictivity orders of
#: 5 random label words is 0.87".
PAPER_AGREEMENT = 0.87
LABEL_WORDS = Claim(
    "orders found with random label words agree as much as the paper's 0.87",
    "§4.4, A-S4.4",
    "mean pairwise Spearman (layer mean) of the random-label-word draws' orders - 0.87 "
    "(negligible: agrees with the paper's value; fails: below it)",
    "label-word draws (pairs of distinct drawn draws)",
    "0.87",
    margin=0.1,
    margin_basis="smallest effect of interest: 0.1 Spearman around the paper's 0.87",
    key="label_words_paper",
)
LABEL_WORDS_CONTROL = Claim(
    "random label words move the orders no more than the prompt seed alone",
    "§4.4, A-S4.4 (control; ours)",
    "mean pairwise Spearman of the random-label-word draws' orders - of the seed-only "
    "controls' (the configured label words, each draw's seeds); comparable supports the "
    "paper, not comparable contradicts it",
    "label-word draws with their controls (pairs of distinct drawn draws)",
    "(the paper has no control; its draws agree at 0.87)",
    margin=0.1,
    margin_basis="smallest effect of interest: 0.1 Spearman",
    key="label_words_control",
    kind=EQUIVALENCE,
)
LABEL_CLAIMS = (LABEL_WORDS, LABEL_WORDS_CONTROL)


def agreement_matrix(scores: Sequence[np.ndarray]) -> np.ndarray:
    """Layer-mean Spearman of every two of several orders' neuron scores
    ``[layers, neurons]``."""
    ranks = [ResampledRanks(values)(np.arange(values.shape[1])) for values in scores]
    return np.array([[layer_mean_spearman(a, b) for b in ranks] for a in ranks])


def pair_mean(matrix: np.ndarray, chosen: np.ndarray) -> float:
    """Mean of ``matrix[a, b]`` over the pairs of distinct drawn members (``chosen``,
    repeats allowed); NaN without a pair."""
    values = matrix[distinct_pairs(chosen)]
    return float(values.mean()) if values.size else float("nan")


def label_words_claims(
    draws: Mapping[str, Sequence[np.ndarray]],
    controls: Mapping[str, Sequence[np.ndarray]],
    settings: BootstrapSettings,
    noise_floor: Mapping[str, float] | None = None,
) -> list[dict]:
    """§4.4's two rows, averaged over tasks; ``draws`` and ``controls`` map a task to
    its random-label-word draws' and its seed-only controls' neuron scores ``[layers,
    neurons]`` (control ``d``: the configured label words with draw ``d``'s seeds).

    The draws are the training runs and the unit resampled (draw ``d`` together with
    its control ``d``): a draw's statistic averages the Spearman of its pairs of distinct
    drawn draws (:func:`pair_mean`), whereas resampling neurons would make any
    agreement above 0 hold. :data:`LABEL_WORDS` is that agreement minus the paper's
    0.87; :data:`LABEL_WORDS_CONTROL` the agreement minus the controls' (the seed alone
    moves the orders too), the row that decides.

    ``noise_floor`` maps a task to the agreement of the same prompts' orders on two
    halves of its dev split
    (:func:`skillneurons.paper_a.label_word_sampling.split_half_agreement`, mean over
    trials). The comparison with 0.87 is decided only where every task's floor lies
    above 0.87: below it, dev sampling alone keeps two rankings of the same prompts
    further apart than the paper's value, and the row would measure the dev size, not
    the label words (``not decidable here``, the floor in its note)."""
    tasks = [task for task, scores in draws.items() if len(scores) >= 2]
    if not tasks:
        return [unavailable(c, "needs two draws of random label words") for c in LABEL_CLAIMS]
    count = min(len(draws[task]) for task in tasks)
    words = [agreement_matrix(draws[task][:count]) for task in tasks]
    units = Units(runs={"label-word draws": count})
    row = decide(
        LABEL_WORDS,
        lambda i: (
            float(np.mean([pair_mean(m, i["label-word draws"]) for m in words])) - PAPER_AGREEMENT
        ),
        units,
        settings,
    )
    floors = [(noise_floor or {}).get(task, float("nan")) for task in tasks]
    if not all(floor >= PAPER_AGREEMENT for floor in floors):
        shown = ", ".join(f"{task} {floor:.2f}" for task, floor in zip(tasks, floors, strict=True))
        row = refuse(
            row,
            f"noise floor below the paper's {PAPER_AGREEMENT}: the same prompts' orders "
            f"ranked on two halves of the dev split agree at only {shown}, so the draws' "
            "agreement measures the dev size, not the label words (reported, not decided)",
            NOT_DECIDABLE,
        )
    rows = [row]
    if not all(len(controls.get(task, ())) >= count for task in tasks):
        return [*rows, unavailable(LABEL_WORDS_CONTROL, "no seed-only control rankings")]
    seeds = [agreement_matrix(controls[task][:count]) for task in tasks]

    def excess(indices: Mapping[str, np.ndarray]) -> float:
        chosen = indices["label-word draws"]
        gaps = [
            pair_mean(w, chosen) - pair_mean(c, chosen) for w, c in zip(words, seeds, strict=True)
        ]
        return float(np.mean(gaps))

    return [*rows, decide(LABEL_WORDS_CONTROL, excess, units, settings)]
