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
generalization rises with the share (§5.1,     out-of-domain score at the largest share
B-F2; cls -> cls, gen -> cls, gen -> gen)      minus at the smallest, test tasks' mean;
                                               test samples
trained on classification, generation          the generation test tasks' rise from the
generalizes less than trained on generation    smallest to the largest share, gen -> gen
(§5.1, B-F2: cls -> gen flat)                  minus cls -> gen; test samples
the groups' neurons overlap more than random   overlap rate minus random sets', at
sets (A.6, B-T8; every pair of groups)         every share below 100% (intersection-
                                               union); training tasks, test tasks, neurons
the overlap rises with the share (A.6, B-T8;   that excess at the largest share below
every pair of groups)                          100% minus at the smallest; training
                                               tasks, test tasks, neurons
a larger share of test-task neurons            out-of-domain score at the largest share
generalizes better (A.7, B-T9..B-T11; every    o minus at the smallest, mean over q; test
controlled pair)                               samples
similarity correlates with generalization      Pearson's r of similarity above chance and
(§5.2, B-T4)                                   out-of-domain accuracy, centred within each
                                               test task; (model, test task) pairs
similarity is low in the shallow layers and    similarity above chance over the deep half
rises after some depth (§5.2, B-F3; per test   of the layers minus over the shallow half,
group: Figure 3a, 3c)                          mean over models and test tasks; models x
                                               test tasks
=============================================  ============================================

Both similarity claims read the configured ``paper_b.generalization.similarity``
(default ``centroid``, paper B's cosine: :mod:`skillneurons.paper_b.similarity`) and name
it in their effect. Both decide the similarity above its chance level (``chance``: the
same definition on random sets of the same sizes in the layer), since the cosine of two
large sets' means is high by arithmetic and the sets' sizes vary with the layer and the
model. The profile is claimed where paper B finds it (Figure 3): the
classification tests against every model (a) and the generation tests against the
generation-trained models (c; every model where there is no classification group);
paper B's panel b, the generation tests against every model, has "no trend", which a
verdict of this engine cannot state, so it is not claimed.

The B-F2, B-F6 and B-T9..B-T11 rows resample the training runs of their results (config
``paper_b.runs``: the ``run`` column; every compared model trained once per run, run
``r`` with seed + r) as their top unit, the test samples (the same under every run)
within them, and so do the similarity rows (the models M_i trained once per run). B-T8's
rows compare the base model's task neurons, no training (``NO_TRAINING``: ``min_runs``
does not apply); the training and test tasks are their units that replicate, and
with fewer than :data:`MIN_TASKS` training tasks they are not decidable here.
Rows on fewer runs than ``findings.min_runs`` stay inconclusive (the note says so),
their intervals shown.

The specialization rows are decided per trained group (the generation group's name
``(gen)``); scores are accuracy for classification and ROUGE-L F1 for generation, per
test sample. A fixed contrast stands for "peaks below 100%": the maximum over shares
would be biased upwards by its own noise and could hold with no peak at all.

A share contrast (B-F2, B-F6) is decided at one learning rate: its effect names the
rate every compared training used, and where the compared trainings used different
rates (config ``paper_b.generalization.learning_rate_share`` scales the rate with the
share) the share and the rate are confounded, so the row keeps its estimate and
interval but gets the verdict ``not measured``, the ``note`` naming the rates.

An accuracy contrast that compares a model which predicted a single class for an
evaluated task (``predicted_classes`` 1: its training collapsed) measures that
optimisation failure, not specialization or generalization: such a row keeps its
estimate and interval but gets the verdict ``not measured``, and the ``note`` names the
collapsed models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.neurons.relevance_table import layer_width
from skillneurons.paper_b.generalization import Group, group_pairs, random_overlap, union_ids
from skillneurons.paper_b.runs import RUNS, with_runs
from skillneurons.paper_b.share_scores import mean_score, sample_units, score_cells
from skillneurons.paper_b.similarity import MIN_POINTS, PAPER_DEFINITION
from skillneurons.paper_b.tables import depth_halves
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

#: The margin of a rise with the share, where paper B's figures give no number.
RISE_BASIS = "smallest effect of interest: 5 points from the smallest to the largest share"
#: B-T8 is decided on at least this many training tasks (its units that replicate).
MIN_TASKS = 3
#: Where paper B's multi-task specialization peaks, per group (§5.1, Figure 2).
PAPER_PEAK = {"cls": 70, "gen": 50}


def _named(pair: str, default: str) -> str:
    """`` (pair)`` after a claim's statement, nothing for the ``default`` one."""
    return "" if pair == default else f" ({pair})"


def _keyed(stem: str, pair: str, default: str) -> str:
    """A claim's key: ``stem``, and ``_<pair>`` (``cls-gen``: ``cls_gen``) unless
    ``pair`` is the ``default`` one."""
    return stem if pair == default else f"{stem}_{pair.replace('-', '_')}"


def specialization_claims(group: str) -> tuple[Claim, Claim]:
    """B-F2's and B-F6's specialization claims for a group (``cls``: named as before,
    ``gen``: the generation group, scored by ROUGE-L)."""
    named = _named(group, "cls")
    peak = Claim(
        "trained together, the tasks' specialization is lower with 100% of their neurons "
        f"than with the next smaller share{named}",
        "§5.1, B-F2",
        "in-domain score at the second-largest share - at the largest, training tasks' mean",
        "test samples of each task",
        f"peak at {PAPER_PEAK[group]}% of the neurons",
        margin=0.02,
        margin_basis="smallest effect of interest: 2 points (Figure 2 gives no number)",
        key=_keyed("specialization_peak", group, "cls"),
    )
    single = Claim(
        "trained alone, a task's specialization rises with the share of its neurons "
        f"trained{named}",
        "A.5, B-F6",
        "in-domain score at the largest share - at the smallest, mean over the models",
        "test samples of each task",
        "rises steadily (Figure 6)",
        margin=0.05,
        margin_basis=RISE_BASIS,
        key=_keyed("specialization_single", group, "cls"),
    )
    return peak, single


def generalization_claim(pair: str) -> Claim:
    """B-F2's generalization claim for a pair of groups (training-test: ``cls-cls``,
    ``gen-cls``, ``gen-gen``; cls-gen has :data:`CLS_GEN_FLAT` instead)."""
    return Claim(
        f"generalization rises with the share of task neurons trained{_named(pair, 'cls-cls')}",
        "§5.1, B-F2",
        "out-of-domain score at the largest share - at the smallest, test tasks' mean",
        "test samples of each task",
        f"rises steadily ({pair.replace('-', ' -> ')})",
        margin=0.05,
        margin_basis=RISE_BASIS,
        key=_keyed("generalization_rises", pair, "cls-cls"),
    )


CLS_GEN_FLAT = Claim(
    "trained on classification, generation generalizes less with the share than "
    "trained on generation",
    "§5.1, B-F2",
    "rise of the generation test tasks' score from the smallest to the largest share: "
    "gen -> gen - cls -> gen",
    "test samples of each task",
    "cls -> gen stays at about zero-shot; gen -> gen rises",
    margin=0.05,
    margin_basis=RISE_BASIS,
    key="cls_gen_flat",
)
SPECIALIZATION_PEAK, SPECIALIZATION_SINGLE = specialization_claims("cls")
GENERALIZATION_RISES = generalization_claim("cls-cls")
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
        key=_keyed("overlap_above_random", pair, "cls-cls"),
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
        key=_keyed("overlap_rises", pair, "cls-cls"),
    )
    return above, rises


OVERLAP_ABOVE_RANDOM, OVERLAP_RISES = overlap_claim_pair("cls-cls")


def controlled_claim_for(pair: str) -> Claim:
    """B-T9..B-T11's claim for a pair of groups (T9 cls-cls, T10 gen-gen, T11 gen-cls)."""
    table, gain = PAPER_CONTROLLED.get(pair, ("B-T9", None))
    return Claim(
        "at a fixed trained share, more test-task neurons among them generalize better"
        + _named(pair, "cls-cls"),
        f"A.7, {table}",
        "out-of-domain score at the largest share of test-task neurons - at the smallest, "
        "mean over trained shares",
        "test samples of each task",
        f"+{gain} points from 10% to 100% (q = 10%)" if gain is not None else "",
        margin=(gain or 2.0) / 200,
        margin_basis=f"half the paper's effect ({table}: +{gain or 2.0} points)",
        key=_keyed("controlled_rises", pair, "cls-cls"),
    )


#: B-T9..B-T11 (paper B, A.7): each pair's table and gain from o = 10% to 100% at q = 10%.
PAPER_CONTROLLED = {"cls-cls": ("B-T9", 2.0), "gen-gen": ("B-T10", 1.5), "gen-cls": ("B-T11", 1.3)}
CONTROLLED_RISES = controlled_claim_for("cls-cls")


def correlation_claim_for(definition: str) -> Claim:
    """B-T4's claim on the similarity ``definition`` (:mod:`skillneurons.paper_b.similarity`)."""
    return Claim(
        "parameter similarity correlates positively with generalization",
        "§5.2, B-T4",
        f"Pearson's r of similarity ({definition}, mean over layers) minus its chance "
        "level and out-of-domain score, centred within each test task",
        "model x test task pairs",
        "Pearson >= 0.79 per test task",
        margin=0.395,
        margin_basis="half the paper's effect (B-T4: Pearson 0.79)",
        key="similarity_correlates",
    )


SIMILARITY_CORRELATES = correlation_claim_for(PAPER_DEFINITION)
#: B-F3's profile claims: per test group, the models whose mean profile paper B finds
#: rising (Figure 3a: the classification tests, every model; 3c: the generation tests,
#: the generation-trained models), with the panel's name.
PROFILE_PANELS = {"cls": ("all", "Figure 3a"), "gen": ("gen", "Figure 3c")}


def profile_claim_for(group: str, definition: str) -> Claim:
    """B-F3's profile claim for a test group (``cls``: named as before, ``gen``)."""
    models, figure = PROFILE_PANELS.get(group, ("all", "Figure 3"))
    trained = "every model" if models == "all" else f"the {models}-trained models"
    return Claim(
        "parameter similarity is low in the shallow layers and rises after some depth"
        + _named(group, "cls"),
        "§5.2, B-F3",
        f"similarity ({definition}) minus its chance level, over the deep half of the "
        f"layers - over the shallow half, mean over {trained} and the {group} test tasks",
        "models M_i x test tasks",
        f"{figure}: low at the bottom, rising after some depth, back to about the bottom "
        "level at the top",
        margin=0.05,
        margin_basis="smallest effect of interest: 0.05 of similarity above chance",
        key=_keyed("similarity_profile", group, "cls"),
    )


def refuse_collapsed(row: dict, compared: pd.DataFrame) -> dict:
    """``row`` with the verdict ``not measured`` when a model of ``compared`` (the
    result rows the contrast reads) predicted one class for its task; the ``note``
    then names those models."""
    collapsed = compared[compared["predicted_classes"] == 1]
    if collapsed.empty:
        return row
    named = sorted(
        {f"{r.trained} at {r.proportion:g} on {r.eval_task}" for r in collapsed.itertuples()}
    )
    return refuse(row, f"collapsed to one class: {', '.join(named)}")


def at_one_rate(row: dict, compared: pd.DataFrame) -> dict:
    """``row`` with the learning rate of ``compared`` (the result rows a share contrast
    reads) in its effect; with the verdict ``not measured`` when those trainings used
    different rates (the module docstring), the ``note`` naming each share's."""
    rates = compared[["proportion", "learning_rate"]].dropna().drop_duplicates()
    if rates.empty:
        return row
    if rates["learning_rate"].nunique() == 1:
        rate = rates["learning_rate"].iloc[0]
        return {**row, "effect": f"{row['effect']}; every share at learning rate {rate:g}"}
    named = ", ".join(
        f"{r.learning_rate:g} at {r.proportion:g}"
        for r in rates.sort_values("proportion").itertuples()
    )
    return refuse(
        row,
        f"learning rate changes with the share ({named}): "
        "set paper_b.generalization.learning_rate_share to null",
    )


def _share_gap(frame: pd.DataFrame, role: str, high: float, low: float):
    """The statistic ``role`` score at share ``high`` minus at ``low``, averaged over
    the trained models and their ``role`` tasks of ``frame`` (one trained group), with
    the result rows it compares."""
    cells = score_cells(frame)
    rows = frame[frame["role"] == role]
    keys = list(rows[["group", "trained", "eval_task"]].drop_duplicates().itertuples(index=False))

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        upper = mean_score(cells, [(g, t, high, -1.0, e) for g, t, e in keys], indices)
        lower = mean_score(cells, [(g, t, low, -1.0, e) for g, t, e in keys], indices)
        return upper - lower

    return statistic, rows[rows["proportion"].isin([high, low])]


def share_contrast(
    claim: Claim, frame: pd.DataFrame, role: str, high: float, low: float, settings
) -> dict:
    """``role`` score at share ``high`` minus at ``low``, averaged over the trained
    models and their ``role`` tasks (B-F2, B-F6; ``frame``: one trained group's rows,
    the out-of-domain ones of one test group); refused where a compared model
    collapsed (:func:`refuse_collapsed`) or the compared trainings' learning rates
    differ (:func:`at_one_rate`)."""
    if frame.empty:
        return unavailable(claim, "no results")
    statistic, compared = _share_gap(frame, role, high, low)
    units = sample_units(frame[frame["role"] == role])
    row = refuse_collapsed(decide(claim, statistic, units, settings), compared)
    return at_one_rate(row, compared)


def cls_gen_claim(from_cls: pd.DataFrame, from_gen: pd.DataFrame, settings) -> dict:
    """:data:`CLS_GEN_FLAT`: the generation test tasks' rise with the share after the
    generation group's training minus after the classification group's (both B-F2
    rows on the generation test tasks; their test samples resampled together)."""
    ends = [sorted(rows["proportion"].unique()) for rows in (from_cls, from_gen)]
    if ends[0] != ends[1]:
        raise ValueError(f"the groups' B-F2 shares differ: {ends[0]} and {ends[1]}")
    gen_gap, from_gen_compared = _share_gap(from_gen, "ood", ends[0][-1], ends[0][0])
    cls_gap, from_cls_compared = _share_gap(from_cls, "ood", ends[0][-1], ends[0][0])
    units = sample_units(from_gen[from_gen["role"] == "ood"])
    row = decide(CLS_GEN_FLAT, lambda i: gen_gap(i) - cls_gap(i), units, settings)
    return at_one_rate(row, pd.concat([from_gen_compared, from_cls_compared]))


def controlled_claim(frame: pd.DataFrame, settings: BootstrapSettings, pair="cls-cls") -> dict:
    """B-T9..B-T11's claim (:func:`controlled_claim_for`) on one pair's drawn sets
    (``frame``: that pair's results)."""
    claim = controlled_claim_for(pair)
    drawn = frame[(frame["trained"] == "drawn") & (frame["role"] == "ood")]
    if drawn.empty:
        return unavailable(claim, "no controlled-overlap results")
    cells = score_cells(drawn)
    group = drawn["group"].iloc[0]
    tasks = list(dict.fromkeys(drawn["eval_task"]))
    ends = {
        q: (rows["overlap"].min(), rows["overlap"].max())
        for q, rows in drawn.groupby("proportion")
    }

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        gaps = []
        for q, (low, high) in ends.items():
            upper = mean_score(cells, [(group, "drawn", q, high, t) for t in tasks], indices)
            lower = mean_score(cells, [(group, "drawn", q, low, t) for t in tasks], indices)
            gaps.append(upper - lower)
        return float(np.mean(gaps))

    compared = drawn[
        [ends[row.proportion][0] == row.overlap or ends[row.proportion][1] == row.overlap
         for row in drawn.itertuples()]
    ]  # fmt: skip
    row = decide(claim, statistic, sample_units(drawn), settings)
    return refuse_collapsed(row, compared)


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


def similarity_claim(points: pd.DataFrame, settings: BootstrapSettings) -> dict:
    """B-T4's claim (:func:`correlation_claim_for` the points' ``definition``, paper B's
    cosine where the points do not name one) on B-T4's points
    (:func:`skillneurons.paper_b.tables.similarity_points`), the similarity above its
    ``chance`` level; per training run (the points' ``run``) the correlation over the
    (model, test task) pairs every run has, the mean over the drawn runs; runs > pairs
    resampled."""
    names = points["definition"].dropna().unique() if "definition" in points else []
    claim = correlation_claim_for(names[0] if len(names) else PAPER_DEFINITION)
    points = with_runs(points)
    excess = _above_chance(points, "B-T4's points")
    within = [points["run"], points["test_task"]]
    centred = points.assign(
        similarity=excess - excess.groupby(within).transform("mean"),
        score=points["score"] - points.groupby(within)["score"].transform("mean"),
    ).dropna(subset=["similarity", "score"])
    table = centred.pivot_table(
        index=["trained", "test_task"], columns="run", values=["similarity", "score"]
    ).dropna()
    if len(table) < 4:
        return unavailable(claim, f"{len(table)} points; at least 4 needed")
    x = table["similarity"].to_numpy(np.float64).T  # [runs, pairs]
    y = table["score"].to_numpy(np.float64).T

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        chosen = indices["model x test task pairs"]
        found = []
        for run in indices[RUNS]:
            a, b = x[run, chosen], y[run, chosen]
            if np.ptp(a) == 0 or np.ptp(b) == 0:
                return float("nan")
            found.append(np.corrcoef(a, b)[0, 1])
        return float(np.mean(found))

    units = Units(runs={RUNS: x.shape[0]}, samples={"model x test task pairs": x.shape[1]})
    return decide(claim, statistic, units, settings)


def _above_chance(frame: pd.DataFrame, what: str) -> pd.Series:
    """``similarity - chance`` of ``frame``'s rows."""
    if "chance" not in frame:
        raise ValueError(
            f"{what} have no 'chance' column (files written before the chance level was "
            "measured): rerun rule similarity_model"
        )
    return frame["similarity"] - frame["chance"]


def profile_claim(
    claim: Claim, similarities: pd.DataFrame, layers: int, settings: BootstrapSettings
) -> dict:
    """``claim`` (:func:`profile_claim_for`) on one panel's similarities (``trained``,
    ``test_task``, ``layer``, ``similarity`` and ``chance`` of one definition,
    ``layers`` layers; ``run``: the training run): per run, model and test task, the
    mean similarity above chance over the deep half of the layers minus over the
    shallow half (:func:`~skillneurons.paper_b.tables.depth_halves`; layers without a
    value skipped), averaged over the runs, models and test tasks, all resampled. Not
    measured below :data:`~skillneurons.paper_b.similarity.MIN_POINTS` profiles or two
    models (an interval from one model would only show its test tasks' spread)."""
    shallow, deep = depth_halves(layers)
    if similarities.empty:
        return unavailable(claim, "no similarities")
    if not len(shallow):
        return unavailable(claim, f"{layers} layer(s); two halves need at least 2")
    half = np.select(
        [similarities["layer"].isin(shallow), similarities["layer"].isin(deep)],
        ["shallow", "deep"],
        "middle",
    )
    means = (
        with_runs(similarities)
        .assign(half=half, similarity=_above_chance(similarities, "similarities"))
        .query("half != 'middle'")
        .groupby(["run", "trained", "test_task", "half"], sort=False)["similarity"]
        .mean()
        .unstack("half")
        .reindex(columns=["shallow", "deep"])
    )
    gaps = (means["deep"] - means["shallow"]).unstack("test_task")  # [runs x models, tasks]
    runs = gaps.index.get_level_values("run").unique()
    models_of = gaps.index.get_level_values("trained").unique()
    full = pd.MultiIndex.from_product([runs, models_of], names=["run", "trained"])
    matrix = gaps.reindex(full).to_numpy(np.float64)
    matrix = matrix.reshape(len(runs), len(models_of), -1)  # [runs, models, test tasks]
    profiles = int(np.isfinite(matrix[0]).sum())
    models = int(np.isfinite(matrix[0]).any(axis=1).sum())
    if profiles < MIN_POINTS or models < 2:
        return unavailable(
            claim,
            f"{profiles} (model, test task) profiles over {models} model(s); at least "
            f"{MIN_POINTS} over 2 models needed",
        )

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        chosen = matrix[np.ix_(indices[RUNS], indices["models M_i"], indices["test tasks"])]
        finite = chosen[np.isfinite(chosen)]
        return float(finite.mean()) if finite.size else float("nan")

    units = Units(
        runs={RUNS: matrix.shape[0]},
        samples={"models M_i": matrix.shape[1], "test tasks": matrix.shape[2]},
    )
    return decide(claim, statistic, units, settings)


def profile_claims(
    similarities: pd.DataFrame,
    groups: Mapping[str, tuple[Sequence[str], Sequence[str]]],
    definition: str,
    settings: BootstrapSettings,
) -> list[dict]:
    """B-F3's profile claims (:func:`profile_claim_for`), one per test group of
    ``groups`` (name -> (training tasks, test tasks)), on every model ``M_i``'s
    similarities (column ``trained``) under ``definition``: the models of
    :data:`PROFILE_PANELS` (every model where it names a group that is absent)."""
    chosen = similarities[similarities["definition"] == definition]
    layers = int(similarities["layer"].max()) + 1
    rows = []
    for group, (_, test_tasks) in groups.items():
        panel = chosen[chosen["test_task"].isin(test_tasks)]
        models = PROFILE_PANELS.get(group, ("all", ""))[0]
        if models in groups:
            panel = panel[panel["trained"].isin(groups[models][0])]
        rows.append(profile_claim(profile_claim_for(group, definition), panel, layers, settings))
    return rows


def proportion_claims(results: pd.DataFrame, settings: BootstrapSettings) -> list[dict]:
    """B-F2's and B-F6's claims for every trained group of ``results`` (the group's
    specialization peak, single-task rise, and generalization rise for each test group;
    cls -> gen: :data:`CLS_GEN_FLAT`)."""
    rows = []
    multitask = results[results["experiment"] == "multitask"]
    single = results[results["experiment"] == "single"]
    for group in dict.fromkeys(multitask["group"]):
        together = multitask[multitask["group"] == group]
        alone = single[single["group"] == group]
        shares = sorted(together["proportion"].unique())
        peak, rises = specialization_claims(group)
        rows.append(share_contrast(peak, together, "id", shares[-2], shares[-1], settings))
        rows.append(
            share_contrast(
                rises,
                alone,
                "id",
                alone["proportion"].max(),
                alone["proportion"].min(),
                settings,
            )  # fmt: skip
        )
        for tested in dict.fromkeys(together["eval_group"]):
            pair = f"{group}-{tested}"
            if pair == "cls-gen":
                continue
            chosen = together[(together["eval_group"] == tested) | (together["role"] != "ood")]
            rows.append(
                share_contrast(
                    generalization_claim(pair), chosen, "ood", shares[-1], shares[0], settings
                )
            )
    on_gen = multitask[multitask["eval_group"] == "gen"]
    if {"cls", "gen"} <= set(on_gen["group"]):
        rows.append(
            cls_gen_claim(
                on_gen[on_gen["group"] == "cls"], on_gen[on_gen["group"] == "gen"], settings
            )
        )
    return rows


def generalization_claims(
    results: pd.DataFrame,
    groups: Mapping[str, Group],
    overlap_proportions: Sequence[float],
    points: pd.DataFrame,
    settings: BootstrapSettings,
) -> list[dict]:
    """The rows of the module docstring's table, in its order. ``results`` holds every
    generalization result file (:mod:`skillneurons.paper_b.generalization`), told apart
    by their ``experiment`` and ``group`` columns; ``groups`` the groups' training and
    test tasks' task-neuron tables (``"cls"``, and ``"gen"`` where the model runs the
    generation tasks: claims for every pair), ``points`` B-T4's (model, test task)
    points."""
    overlap_rows = [
        row
        for pair, train, test in group_pairs(groups)
        for row in overlap_claims(train, test, overlap_proportions, settings, pair)
    ]
    controlled = results[results["experiment"] == "controlled"]
    controlled_rows = [
        controlled_claim(rows, settings, f"{group}-{tested}")
        for (group, tested), rows in controlled[controlled["role"] == "ood"].groupby(
            ["group", "eval_group"], sort=False
        )
    ]
    if controlled.empty:
        controlled_rows = [unavailable(CONTROLLED_RISES, "no controlled-overlap results")]
    return [
        *proportion_claims(results, settings),
        *overlap_rows,
        *controlled_rows,
        similarity_claim(points, settings),
    ]
