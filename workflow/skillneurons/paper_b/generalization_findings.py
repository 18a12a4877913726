"""Paper B's claims of §5 and appendices A.5-A.7, decided by the findings engine.

=============================================  ============================================
claim                                          effect; resampled
=============================================  ============================================
multi-task specialization declines at 100%     in-domain accuracy at the second-largest
(§5.1, B-F2: peak at 70%)                      share minus at the largest, training tasks'
                                               mean; test samples
single-task specialization rises (A.5, B-F6)   in-domain accuracy at the largest share
                                               minus at the smallest, mean over the
                                               models; test samples
generalization rises with the share (§5.1,     out-of-domain accuracy at the largest share
B-F2)                                          minus at the smallest, test tasks' mean;
                                               test samples
the groups' neurons overlap more than random   overlap rate minus random sets' at the
sets (A.6, B-T8; every pair of groups)         smallest share; neurons
the overlap rises with the share (A.6, B-T8;   overlap rate at the largest share below
every pair of groups)                          100% minus at the smallest; neurons
a larger share of test-task neurons            out-of-domain accuracy at the largest share
generalizes better (A.7, B-T9)                 o minus at the smallest, mean over q; test
                                               samples
similarity correlates with generalization      Pearson's r of similarity and
(§5.2, B-T4)                                   out-of-domain accuracy, centred within each
                                               test task; (model, test task) pairs
=============================================  ============================================

A fixed contrast stands for "peaks below 100%": the maximum over shares would be biased
upwards by its own noise and could hold with no peak at all.

An accuracy contrast that compares a model which predicted a single class for an
evaluated task (``predicted_classes`` 1: its training collapsed) measures that
optimisation failure, not specialization or generalization: such a row keeps its
estimate and interval but gets the verdict ``not measured``, and ``counts`` names the
collapsed models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.paper_b.generalization import Group, group_pairs, random_overlap, union_ids
from skillneurons.paper_b.relevance import layer_width
from skillneurons.reporting.findings import BootstrapSettings, Claim, decide, unavailable

SPECIALIZATION_PEAK = Claim(
    "trained together, the tasks' specialization is lower with 100% of their neurons "
    "than with the next smaller share",
    "§5.1, B-F2",
    "in-domain accuracy at the second-largest share - at the largest, training tasks' mean",
    "test samples of each task",
    "peak at 70% of the neurons (classification)",
)
SPECIALIZATION_SINGLE = Claim(
    "trained alone, a task's specialization rises with the share of its neurons trained",
    "A.5, B-F6",
    "in-domain accuracy at the largest share - at the smallest, mean over the models",
    "test samples of each task",
    "rises steadily (Figure 6)",
)
GENERALIZATION_RISES = Claim(
    "generalization rises with the share of task neurons trained",
    "§5.1, B-F2",
    "out-of-domain accuracy at the largest share - at the smallest, test tasks' mean",
    "test samples of each task",
    "rises steadily (cls -> cls)",
)
#: B-T8's overlap rates (%) at 10% and 70% for each pair of groups (training-test).
PAPER_OVERLAP = {
    "cls-cls": (20.8, 96.2),
    "cls-gen": (12.9, 83.5),
    "gen-cls": (11.8, 81.8),
    "gen-gen": (21.6, 94.3),
}


def overlap_claim_pair(pair: str) -> tuple[Claim, Claim]:
    """The two B-T8 claims for one pair of groups (``"cls-gen"``: the classification
    training tasks and the generation test tasks); the cls-cls claims name no pair."""
    named = "" if pair == "cls-cls" else f" ({pair})"
    start, end = PAPER_OVERLAP.get(pair, (None, None))
    above = Claim(
        f"the training and test tasks' neurons overlap more than random sets of their "
        f"sizes{named}",
        "A.6, B-T8",
        "overlap rate (Eq. 13) - random sets' overlap rate, at the smallest share",
        "neurons",
        f"{start}% at 10% ({pair})" if start is not None else "",
    )
    rises = Claim(
        f"the overlap of the training and test tasks' neurons rises with the share{named}",
        "A.6, B-T8",
        "overlap rate at the largest share below 100% - at the smallest",
        "neurons",
        f"{start} -> {end}% from 10% to 70% ({pair})" if start is not None else "",
    )
    return above, rises


OVERLAP_ABOVE_RANDOM, OVERLAP_RISES = overlap_claim_pair("cls-cls")
CONTROLLED_RISES = Claim(
    "at a fixed trained share, more test-task neurons among them generalize better",
    "A.7, B-T9",
    "out-of-domain accuracy at the largest share of test-task neurons - at the smallest, "
    "mean over trained shares",
    "test samples of each task",
    "+2.0 points from 10% to 100% (q = 10%)",
)
SIMILARITY_CORRELATES = Claim(
    "parameter similarity correlates positively with generalization",
    "§5.2, B-T4",
    "Pearson's r of similarity and out-of-domain accuracy, centred within each test task",
    "model x test task pairs",
    "Pearson >= 0.79 per test task",
)


def _correct(frame: pd.DataFrame) -> dict[tuple, np.ndarray]:
    """(trained, proportion, overlap, eval_task) -> bool per test sample."""
    return {
        (row.trained, float(row.proportion), float(row.overlap), row.eval_task): np.asarray(
            row.correct, bool
        )
        for row in frame.itertuples()
    }


def _sample_units(frame: pd.DataFrame) -> dict[str, int]:
    first = frame.drop_duplicates("eval_task")
    return {f"{row.eval_task}: test samples": len(row.correct) for row in first.itertuples()}


def _mean_accuracy(cells, keys, indices) -> float:
    return float(np.mean([cells[key][indices[f"{key[-1]}: test samples"]].mean() for key in keys]))


def refuse_collapsed(row: dict, compared: pd.DataFrame) -> dict:
    """``row`` with the verdict ``not measured`` when a model of ``compared`` (the
    result rows the contrast reads) predicted one class for its task; ``counts`` then
    names those models."""
    collapsed = compared[compared["predicted_classes"] == 1]
    if collapsed.empty:
        return row
    named = sorted(
        {f"{r.trained} at {r.proportion:g} on {r.eval_task}" for r in collapsed.itertuples()}
    )
    return {
        **row,
        "verdict": "not measured",
        "counts": f"{row['counts']}; collapsed to one class: {', '.join(named)}",
    }


def share_contrast(
    claim: Claim, frame: pd.DataFrame, role: str, high: float, low: float, settings
) -> dict:
    """``role`` accuracy at share ``high`` minus at ``low``, averaged over the trained
    models and their ``role`` tasks (B-F2, B-F6); refused where a compared model
    collapsed (:func:`refuse_collapsed`)."""
    cells = _correct(frame.fillna({"overlap": -1.0}))
    rows = frame[frame["role"] == role]
    pairs = rows[["trained", "eval_task"]].drop_duplicates().itertuples(index=False)
    keys = [(trained, task) for trained, task in pairs]

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        upper = _mean_accuracy(cells, [(t, high, -1.0, e) for t, e in keys], indices)
        lower = _mean_accuracy(cells, [(t, low, -1.0, e) for t, e in keys], indices)
        return upper - lower

    compared = rows[rows["proportion"].isin([high, low])]
    return refuse_collapsed(decide(claim, statistic, _sample_units(rows), settings), compared)


def controlled_claim(frame: pd.DataFrame, settings: BootstrapSettings) -> dict:
    """:data:`CONTROLLED_RISES` on B-T9's drawn sets."""
    drawn = frame[(frame["trained"] == "drawn") & (frame["role"] == "ood")]
    if drawn.empty:
        return unavailable(CONTROLLED_RISES, "no controlled-overlap results")
    cells = _correct(drawn)
    tasks = list(dict.fromkeys(drawn["eval_task"]))
    ends = {
        q: (group["overlap"].min(), group["overlap"].max())
        for q, group in drawn.groupby("proportion")
    }

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        gaps = []
        for q, (low, high) in ends.items():
            upper = _mean_accuracy(cells, [("drawn", q, high, t) for t in tasks], indices)
            lower = _mean_accuracy(cells, [("drawn", q, low, t) for t in tasks], indices)
            gaps.append(upper - lower)
        return float(np.mean(gaps))

    compared = drawn[
        [ends[row.proportion][0] == row.overlap or ends[row.proportion][1] == row.overlap
         for row in drawn.itertuples()]
    ]  # fmt: skip
    row = decide(CONTROLLED_RISES, statistic, _sample_units(drawn), settings)
    return refuse_collapsed(row, compared)


def overlap_claims(
    train_tables: Mapping[str, pd.DataFrame],
    test_tables: Mapping[str, pd.DataFrame],
    proportions: Sequence[float],
    settings: BootstrapSettings,
    pair: str = "cls-cls",
) -> list[dict]:
    """B-T8's two claims (:func:`overlap_claim_pair`; :data:`OVERLAP_ABOVE_RANDOM` and
    :data:`OVERLAP_RISES` for cls-cls) for one pair of groups, neurons resampled."""
    above_random, rises_claim = overlap_claim_pair(pair)
    first = next(iter(train_tables.values()))
    width = layer_width(first)
    total = len(first)

    def membership(tables, proportion) -> np.ndarray:
        mask = np.zeros(total, bool)
        mask[union_ids(tables, proportion, width)] = True
        return mask

    shares = sorted(proportions)
    below = [p for p in shares if p < 1.0]
    masks = {p: (membership(train_tables, p), membership(test_tables, p)) for p in shares}

    def overlap(p: float, chosen: np.ndarray) -> tuple[float, float]:
        x, y = masks[p][0][chosen], masks[p][1][chosen]
        joint = (x | y).sum()
        rate = (x & y).sum() / joint if joint else float("nan")
        return rate, random_overlap(int(x.sum()), int(y.sum()), len(chosen))

    units = {"neurons": total}
    rows = [
        decide(
            above_random,
            lambda i: float(np.subtract(*overlap(shares[0], i["neurons"]))),
            units,
            settings,
        )
    ]
    if len(below) < 2:
        rows.append(unavailable(rises_claim, "fewer than two shares below 100%"))
    else:
        rows.append(
            decide(
                rises_claim,
                lambda i: overlap(below[-1], i["neurons"])[0] - overlap(below[0], i["neurons"])[0],
                units,
                settings,
            )
        )
    return rows


def similarity_claim(points: pd.DataFrame, settings: BootstrapSettings) -> dict:
    """:data:`SIMILARITY_CORRELATES` on B-T4's points, pairs resampled."""
    centred = points.assign(
        similarity=points["similarity"]
        - points.groupby("test_task")["similarity"].transform("mean"),
        accuracy=points["accuracy"] - points.groupby("test_task")["accuracy"].transform("mean"),
    ).dropna(subset=["similarity", "accuracy"])
    if len(centred) < 4:
        return unavailable(SIMILARITY_CORRELATES, f"{len(centred)} points; at least 4 needed")
    x, y = centred["similarity"].to_numpy(), centred["accuracy"].to_numpy()

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        chosen = indices["model x test task pairs"]
        a, b = x[chosen], y[chosen]
        if np.ptp(a) == 0 or np.ptp(b) == 0:
            return float("nan")
        return float(np.corrcoef(a, b)[0, 1])

    return decide(SIMILARITY_CORRELATES, statistic, {"model x test task pairs": len(x)}, settings)


def generalization_claims(
    results: pd.DataFrame,
    groups: Mapping[str, Group],
    overlap_proportions: Sequence[float],
    points: pd.DataFrame,
    settings: BootstrapSettings,
) -> list[dict]:
    """The rows of the module docstring's table, in its order. ``results`` holds every
    generalization result file (:mod:`skillneurons.paper_b.generalization`), told apart
    by their ``experiment`` column; ``groups`` the groups' training and test tasks'
    task-neuron tables (``"cls"``, and ``"gen"`` where the model runs the generation
    tasks: B-T8's claims for every pair), ``points`` B-T4's (model, test task) points."""
    overlap_rows = [
        row
        for pair, train, test in group_pairs(groups)
        for row in overlap_claims(train, test, overlap_proportions, settings, pair)
    ]
    group = results[results["experiment"] == "multitask"]
    single = results[results["experiment"] == "single"]
    shares = sorted(group["proportion"].unique())
    rows = [
        share_contrast(SPECIALIZATION_PEAK, group, "id", shares[-2], shares[-1], settings),
        share_contrast(
            SPECIALIZATION_SINGLE,
            single,
            "id",
            single["proportion"].max(),
            single["proportion"].min(),
            settings,
        ),  # fmt: skip
        share_contrast(GENERALIZATION_RISES, group, "ood", shares[-1], shares[0], settings),
        *overlap_rows,
        controlled_claim(results[results["experiment"] == "controlled"], settings),
        similarity_claim(points, settings),
    ]
    return rows
