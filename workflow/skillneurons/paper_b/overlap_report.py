"""What paper B's overlap analysis reports (A.6, B-T8): how much the training tasks'
and the test tasks' neurons overlap at each share of task neurons, as a table and as
two claims (above random sets of the same sizes; rising with the share), for every
pair of groups. No training stands behind it: the sets are the base model's task
neurons (:mod:`skillneurons.paper_b.task_neuron_sets`), so the training and test tasks
are the units that replicate, and with fewer than :data:`MIN_TASKS` training tasks the
claims are not decidable here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product

import numpy as np
import pandas as pd

from skillneurons.neurons.relevance_table import layer_width
from skillneurons.paper_b.generalization_report import claim_key
from skillneurons.paper_b.task_neuron_sets import (
    overlap_rate,
    random_overlap,
    share_in,
    union_ids,
)
from skillneurons.reporting.findings import (
    NO_TRAINING,
    NOT_DECIDABLE,
    BootstrapSettings,
    Claim,
    Units,
    decide,
    every,
    refuse,
    unavailable,
)

#: A group of tasks: its training tasks' and its test tasks' task-neuron tables.
Group = tuple[Mapping[str, pd.DataFrame], Mapping[str, pd.DataFrame]]


def group_pairs(groups: Mapping[str, Group]):
    """Every pair of groups ``a-b``, training group first: ``(pair name, the training
    tasks' tables of a, the test tasks' tables of b)``, in the order of ``groups``."""
    for (first, (trained, _)), (second, (_, tested)) in product(groups.items(), repeat=2):
        yield f"{first}-{second}", trained, tested


def overlap_table(groups: Mapping[str, Group], proportions: Sequence[float]) -> pd.DataFrame:
    """B-T8: for every pair of groups ``a-b`` (the training tasks of group ``a``, the test
    tasks of group ``b``; paper B: cls-cls, cls-gen, gen-cls, gen-gen), per proportion,
    the sizes of the two unions, their overlap rate (``overlap``: Eq. 13, the Jaccard
    index) and that of random sets of the same sizes (``random_overlap``), and the share
    of the training tasks' neurons that are test-task neurons (``test_share``:
    :func:`~skillneurons.paper_b.task_neuron_sets.share_in`) and that of a random set
    (``random_test_share``: ``|N_y| / total``), all in %. Every table must cover the
    same neurons (one model)."""
    shapes = {
        (int(table["layer"].max()) + 1, layer_width(table), len(table))
        for train, test in groups.values()
        for table in (*train.values(), *test.values())
    }
    if len(shapes) != 1:
        raise ValueError(
            f"the groups' task neurons cover different neurons (layers, width, rows) "
            f"{sorted(shapes)}; B-T8 compares the neurons of one model"
        )
    _, width, total = shapes.pop()
    rows = []
    for pair, trained, tested in group_pairs(groups):
        for proportion in proportions:
            x_ids = union_ids(trained, proportion, width)
            y_ids = union_ids(tested, proportion, width)
            rows.append(
                {
                    "pair": pair,
                    "proportion": float(proportion),
                    "train_neurons": len(x_ids),
                    "test_neurons": len(y_ids),
                    "overlap": 100 * overlap_rate(x_ids, y_ids),
                    "random_overlap": 100 * random_overlap(len(x_ids), len(y_ids), total),
                    "test_share": 100 * share_in(x_ids, y_ids),
                    "random_test_share": 100 * len(y_ids) / total,
                }
            )
    return pd.DataFrame(rows)


#: B-T8 is decided on at least this many training tasks (its units that replicate).
MIN_TASKS = 3


#: B-T8's overlap rates (%) at 10% and 70% for each pair of groups (training-test).
PAPER_OVERLAP = {
    "cls-cls": (20.8, 96.2),
    "cls-gen": (12.9, 83.5),
    "gen-cls": (11.8, 81.8),
    "gen-gen": (21.6, 94.3),
}


OVERLAP_BASIS = "smallest effect of interest: 5 points of overlap rate (Eq. 13)"


def overlap_claim_pair(pair: str) -> tuple[Claim, Claim]:
    """The two B-T8 claims for one pair of groups (``"cls-gen"``: the classification
    training tasks and the generation test tasks); the cls-cls claims name no pair."""
    named = "" if pair == "cls-cls" else f" ({pair})"
    start, end = PAPER_OVERLAP.get(pair, (None, None))
    above = Claim(
        f"the training and test tasks' neurons overlap more than random sets of their "
        f"sizes{named}",
        "A.6, B-T8",
        "overlap rate (Eq. 13) - random sets' overlap rate at each share below 100%, "
        "each share decided (intersection-union)",
        "training tasks, test tasks (their unions recomputed per draw), neurons",
        f"{start}% at 10% ({pair})" if start is not None else "",
        margin=0.05,
        margin_basis=OVERLAP_BASIS,
        key=claim_key("overlap_above_random", pair, "cls-cls"),
    )
    rises = Claim(
        f"the overlap of the training and test tasks' neurons rises with the share{named}",
        "A.6, B-T8",
        "excess of the overlap rate over random sets' at the largest share below 100% - "
        "at the smallest (random sets' overlap rises with the share on its own)",
        "training tasks, test tasks (their unions recomputed per draw), neurons",
        f"{start} -> {end}% from 10% to 70% ({pair})" if start is not None else "",
        margin=0.05,
        margin_basis=OVERLAP_BASIS,
        key=claim_key("overlap_rises", pair, "cls-cls"),
    )
    return above, rises


OVERLAP_ABOVE_RANDOM, OVERLAP_RISES = overlap_claim_pair("cls-cls")


def overlap_claims(
    train_tables: Mapping[str, pd.DataFrame],
    test_tables: Mapping[str, pd.DataFrame],
    proportions: Sequence[float],
    settings: BootstrapSettings,
    pair: str = "cls-cls",
) -> list[dict]:
    """B-T8's two claims (:func:`overlap_claim_pair`; :data:`OVERLAP_ABOVE_RANDOM` and
    :data:`OVERLAP_RISES` for cls-cls) for one pair of groups, on the shares below 100%
    (at 100% every set is every neuron). Each share's effect is the **excess** of Eq.
    13's overlap rate over random sets' of the same sizes (:func:`random_overlap`): the
    union of several top-``p`` sets covers about ``1 - (1 - p)^n`` of the neurons, so
    the raw rate rises with the share for any data. The training and the test tasks are
    resampled (crossed; the units that replicate, whose few levels set the t interval),
    their unions recomputed per draw, and the neurons with them (the chance of the one
    draw of sets the run made)."""
    above_random, rises_claim = overlap_claim_pair(pair)
    first = next(iter(train_tables.values()))
    width = layer_width(first)
    total = len(first)
    below = [p for p in sorted(proportions) if p < 1.0]
    if not below:
        return [unavailable(c, "no share below 100%") for c in (above_random, rises_claim)]
    if len(train_tables) < MIN_TASKS or len(test_tables) < 2:
        why = (
            f"{len(train_tables)} training and {len(test_tables)} test task(s): the tasks are "
            f"the units that replicate (no training stands behind B-T8), and fewer than "
            f"{MIN_TASKS} training tasks leave a t interval with at most 1 degree of freedom"
        )
        claims = (above_random, rises_claim)
        return [refuse(unavailable(c, ""), why, NOT_DECIDABLE) for c in claims]

    def members(tables) -> np.ndarray:
        """bool ``[shares, tasks, neurons]``: each task's top set at each share."""
        masks = np.zeros((len(below), len(tables), total), bool)
        for s, share in enumerate(below):
            for t, name in enumerate(tables):
                masks[s, t, union_ids({name: tables[name]}, share, width)] = True
        return masks

    train, test = members(train_tables), members(test_tables)

    def excess(indices: Mapping[str, np.ndarray]) -> np.ndarray:
        neurons = indices["neurons"]
        x = train[:, indices["training tasks"]][..., neurons].any(axis=1)  # [shares, n]
        y = test[:, indices["test tasks"]][..., neurons].any(axis=1)
        joint = (x | y).sum(axis=1)
        rate = (x & y).sum(axis=1) / np.maximum(joint, 1)
        sizes = zip(x.sum(axis=1), y.sum(axis=1), strict=True)
        chance = [random_overlap(int(a), int(b), len(neurons)) for a, b in sizes]
        return rate - np.asarray(chance)

    units = Units(
        training_runs=NO_TRAINING,
        samples={
            "training tasks": len(train_tables),
            "test tasks": len(test_tables),
            "neurons": total,
        },
    )
    parts = [
        (f"share {share:g}", lambda i, s=s: float(excess(i)[s]), units)
        for s, share in enumerate(below)
    ]
    rows = [every(above_random, parts, settings, unit="share", mean_row=False)]
    if len(below) < 2:
        return [*rows, unavailable(rises_claim, "fewer than two shares below 100%")]

    def change(indices: Mapping[str, np.ndarray]) -> float:
        values = excess(indices)  # once per draw: each call recomputes the unions
        return float(values[-1] - values[0])

    return [*rows, decide(rises_claim, change, units, settings)]


def overlap_claims_per_pair(
    groups: Mapping[str, Group], proportions: Sequence[float], settings: BootstrapSettings
) -> list[dict]:
    """B-T8's claims (:func:`overlap_claims`) for every pair of ``groups``
    (:func:`group_pairs`: the training tasks' and the test tasks' task-neuron tables of
    each group), on the shares ``proportions``."""
    return [
        row
        for pair, train, test in group_pairs(groups)
        for row in overlap_claims(train, test, proportions, settings, pair)
    ]
