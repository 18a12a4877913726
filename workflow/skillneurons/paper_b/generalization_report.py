"""What paper B's generalization experiment reports (§5.1, A.5-A.7): the tables and claims
of B-F2, B-F6, B-T8 and B-T9..B-T11.

Named for the experiment it reports: :mod:`skillneurons.paper_b.generalization` runs its
trainings (and imports torch); this module turns their results into the tables, the
bands of B-F2/B-F6 (:func:`share_intervals`) and the claims, free of torch so that the
table and findings scripts start fast, and measures B-T8 (:func:`overlap_table`: no
training, the sets of :mod:`skillneurons.paper_b.task_neuron_sets`). One idea, one
experiment: what training a share of the task neurons does in and out of domain. Scores
are shown in percent (accuracy, or ROUGE-L x 100); B-F2's and B-F6's lines are the
series :data:`ID_MEAN`, :data:`OOD_MEAN` and :data:`OOD_CROSS_MEAN`.

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
=============================================  ============================================

The B-F2, B-F6 and B-T9..B-T11 rows resample the training runs of their results (config
``paper_b.runs``: the ``run`` column; every compared model trained once per run, run
``r`` with seed + r) as their top unit, the test samples (the same under every run)
within them (:mod:`skillneurons.paper_b.share_scores`, as B-F2's and B-F6's bands do).
B-T8's rows compare the base model's task neurons, no training (``NO_TRAINING``:
``min_runs`` does not apply); the training and test tasks are their units that
replicate, and with fewer than :data:`MIN_TASKS` training tasks they are not decidable
here. Rows on fewer runs than ``findings.min_runs`` stay inconclusive (the note says
so), their intervals shown.

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
from itertools import product

import numpy as np
import pandas as pd

from skillneurons.neurons.relevance_table import layer_width
from skillneurons.paper_b.share_scores import mean_score, sample_units, score_cells
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
from skillneurons.reporting.intervals import interval

#: B-F2's and B-F6's series, the columns of :func:`proportion_table` (B-T9's table has the
#: first two): the mean in-domain score, the mean out-of-domain score on the trained
#: group's own test tasks and, where scored, on the other group's.
ID_MEAN, OOD_MEAN, OOD_CROSS_MEAN = "id_mean", "ood_mean", "ood_cross_mean"

#: B-F2 / B-F6's lines: table column -> legend label.
PROPORTION_SERIES = {
    ID_MEAN: "in-domain (specialization)",
    OOD_MEAN: "out-of-domain, same group",
    OOD_CROSS_MEAN: "out-of-domain, other group",
}


def role_series(rows: pd.DataFrame, group: str) -> pd.Series:
    """Which B-F2 / B-F6 line each result row of a model trained on ``group`` belongs
    to: :data:`ID_MEAN` (in-domain), :data:`OOD_MEAN` (out-of-domain, the group's own
    test tasks) or :data:`OOD_CROSS_MEAN` (the other group's)."""
    own = rows["eval_group"] == group
    series = np.where(own, OOD_MEAN, OOD_CROSS_MEAN)
    return pd.Series(np.where(rows["role"] == "id", ID_MEAN, series), index=rows.index)


def _role_means(rows: pd.DataFrame, group: str) -> dict[str, float]:
    """Mean in-domain score, out-of-domain score on the trained group's own test tasks
    and, where scored, on the other group's (:data:`OOD_CROSS_MEAN`), in %
    (:func:`role_series`)."""
    means = rows.groupby(role_series(rows, group))["score"].mean()
    means = means.reindex([ID_MEAN, OOD_MEAN, *means.index.intersection([OOD_CROSS_MEAN])])
    return {name: 100 * float(value) for name, value in means.items()}


#: Columns of :func:`share_intervals`.
SHARE_COLUMNS = ["panel", "series", "proportion", "estimate", "low", "high", "runs"]


def share_intervals(
    frame: pd.DataFrame, panel: str, settings: BootstrapSettings, scale: float = 100.0
) -> pd.DataFrame:
    """B-F2's and B-F6's bands: per (``panel`` column's value, ``series``,
    ``proportion``) of trained models' result rows of every training run (``frame``:
    those columns, ``run``, ``group``, ``trained``, ``overlap``, ``eval_task`` and
    ``sample_scores``; ``series`` as :func:`role_series` names the lines), the mean over
    the runs and the evaluated tasks of the mean score over their test samples, times
    ``scale`` (points: B-F2's y axis; :func:`proportion_table`'s value of the run
    means), with its interval over the training runs > every evaluated task's test
    samples: the statistic and the units of the share claims
    (:mod:`skillneurons.paper_b.share_scores`). ``runs``: the training runs behind a
    point (1: the spread across runs is not measured). Columns :data:`SHARE_COLUMNS`."""
    rows = []
    keys = [panel, "series", "proportion"]
    for (name, series, proportion), chosen in frame.groupby(keys, sort=False):
        cells = score_cells(chosen)
        models = list(dict.fromkeys(key[1:] for key in cells))
        units = sample_units(chosen)

        def statistic(indices: Mapping[str, np.ndarray], cells=cells, models=models) -> float:
            return scale * mean_score(cells, models, indices)

        stream = f"share {name} {series} {proportion:g}"
        rows.append([name, series, float(proportion),
                     *interval(statistic, units, settings, stream), units.run_count])  # fmt: skip
    return pd.DataFrame(rows, columns=SHARE_COLUMNS)


def _single_class(rows: pd.DataFrame) -> float:
    """How many evaluated tasks the model predicted one class for (a collapsed
    training); NaN where the results do not say (the zero-shot row)."""
    if "predicted_classes" not in rows:
        return float("nan")
    return float((rows["predicted_classes"] == 1).sum())


def proportion_table(results: pd.DataFrame, zero_shot: Mapping[str, float]) -> pd.DataFrame:
    """B-F2 / B-F6: per trained group, trained task (``group`` for B-F2) and
    proportion, the mean in-domain and out-of-domain score (%: accuracy, ROUGE-L x
    100; :func:`_role_means`), every evaluated task's, and how many tasks the model
    predicted one class for; a first row per trained task at proportion 0 is the
    untrained model (``zero_shot``: task -> its score)."""
    tasks = list(dict.fromkeys(results["eval_task"]))
    rows = []
    for (group, trained), chosen in results.groupby(["group", "trained"], sort=False):
        evaluated = chosen.drop_duplicates("eval_task")
        untrained = evaluated.drop(columns=["predicted_classes"]).assign(
            score=[zero_shot[task] for task in evaluated["eval_task"]]
        )
        points = [(0.0, untrained), *chosen.groupby("proportion", sort=True)]
        for proportion, rows_at in points:
            score = dict(zip(rows_at["eval_task"], rows_at["score"], strict=True))
            rows.append(
                {
                    "group": group,
                    "trained": trained,
                    "proportion": float(proportion),
                    **_role_means(rows_at, group),
                    **{task: 100 * score[task] for task in tasks if task in score},
                    "single_class_tasks": _single_class(rows_at),
                }
            )
    return pd.DataFrame(rows)


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


def controlled_table(results: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """B-T9..B-T11: per pair of groups (``results``' keys, training-test group: T9
    cls-cls, T10 gen-gen, T11 gen-cls; each pair's results its own frame, since two
    pairs of one training group draw sets of the same sizes and shares), trained
    proportion ``q`` and set (the natural one first, then the drawn ones by share), the
    share of test-task neurons in the trained set (``overlap``, A.7's ``o``, %), Eq. 13's
    Jaccard value of the trained set and the test tasks' neurons (``jaccard``, %: the
    natural row's is paper B's italic overlap rate, 20.8% at q = 10% for cls-cls), the
    mean out-of-domain and in-domain score (%) and how many tasks the model predicted
    one class for."""
    rows = []
    keys = ["proportion", "trained", "overlap"]
    for pair, frame in results.items():
        for (proportion, trained, overlap), chosen in frame.groupby(keys, sort=False):
            rows.append(
                {
                    "pair": pair,
                    "proportion": float(proportion),
                    "trained": trained,
                    "overlap": 100 * float(overlap),
                    "jaccard": 100 * float(chosen["jaccard"].iloc[0]),
                    OOD_MEAN: 100 * float(chosen.loc[chosen["role"] == "ood", "score"].mean()),
                    ID_MEAN: 100 * float(chosen.loc[chosen["role"] == "id", "score"].mean()),
                    "single_class_tasks": _single_class(chosen),
                }
            )
    frame = pd.DataFrame(rows)
    order = frame["trained"].map({"natural": 0, "drawn": 1})
    return (
        frame.assign(_order=order)
        .sort_values(["pair", "proportion", "_order", "overlap"], kind="stable")
        .drop(columns="_order")
        .reset_index(drop=True)
    )


#: The margin of a rise with the share, where paper B's figures give no number.
RISE_BASIS = "smallest effect of interest: 5 points from the smallest to the largest share"

#: B-T8 is decided on at least this many training tasks (its units that replicate).
MIN_TASKS = 3

#: Where paper B's multi-task specialization peaks, per group (§5.1, Figure 2).
PAPER_PEAK = {"cls": 70, "gen": 50}


def claim_suffix(pair: str, default: str) -> str:
    """`` (pair)`` after a claim's statement, nothing for the ``default`` one."""
    return "" if pair == default else f" ({pair})"


def claim_key(stem: str, pair: str, default: str) -> str:
    """A claim's key: ``stem``, and ``_<pair>`` (``cls-gen``: ``cls_gen``) unless
    ``pair`` is the ``default`` one."""
    return stem if pair == default else f"{stem}_{pair.replace('-', '_')}"


def specialization_claims(group: str) -> tuple[Claim, Claim]:
    """B-F2's and B-F6's specialization claims for a group (``cls``: named as before,
    ``gen``: the generation group, scored by ROUGE-L)."""
    named = claim_suffix(group, "cls")
    peak = Claim(
        "trained together, the tasks' specialization is lower with 100% of their neurons "
        f"than with the next smaller share{named}",
        "§5.1, B-F2",
        "in-domain score at the second-largest share - at the largest, training tasks' mean",
        "test samples of each task",
        f"peak at {PAPER_PEAK[group]}% of the neurons",
        margin=0.02,
        margin_basis="smallest effect of interest: 2 points (Figure 2 gives no number)",
        key=claim_key("specialization_peak", group, "cls"),
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
        key=claim_key("specialization_single", group, "cls"),
    )
    return peak, single


def generalization_claim(pair: str) -> Claim:
    """B-F2's generalization claim for a pair of groups (training-test: ``cls-cls``,
    ``gen-cls``, ``gen-gen``; cls-gen has :data:`CLS_GEN_FLAT` instead)."""
    return Claim(
        "generalization rises with the share of task neurons trained"
        + claim_suffix(pair, "cls-cls"),
        "§5.1, B-F2",
        "out-of-domain score at the largest share - at the smallest, test tasks' mean",
        "test samples of each task",
        f"rises steadily ({pair.replace('-', ' -> ')})",
        margin=0.05,
        margin_basis=RISE_BASIS,
        key=claim_key("generalization_rises", pair, "cls-cls"),
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


def controlled_claim_for(pair: str) -> Claim:
    """B-T9..B-T11's claim for a pair of groups (T9 cls-cls, T10 gen-gen, T11 gen-cls)."""
    table, gain = PAPER_CONTROLLED.get(pair, ("B-T9", None))
    return Claim(
        "at a fixed trained share, more test-task neurons among them generalize better"
        + claim_suffix(pair, "cls-cls"),
        f"A.7, {table}",
        "out-of-domain score at the largest share of test-task neurons - at the smallest, "
        "mean over trained shares",
        "test samples of each task",
        f"+{gain} points from 10% to 100% (q = 10%)" if gain is not None else "",
        margin=(gain or 2.0) / 200,
        margin_basis=f"half the paper's effect ({table}: +{gain or 2.0} points)",
        key=claim_key("controlled_rises", pair, "cls-cls"),
    )


#: B-T9..B-T11 (paper B, A.7): each pair's table and gain from o = 10% to 100% at q = 10%.
PAPER_CONTROLLED = {"cls-cls": ("B-T9", 2.0), "gen-gen": ("B-T10", 1.5), "gen-cls": ("B-T11", 1.3)}

CONTROLLED_RISES = controlled_claim_for("cls-cls")


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


def controlled_claims(results: pd.DataFrame, settings: BootstrapSettings) -> list[dict]:
    """B-T9..B-T11's claims (:func:`controlled_claim`), one per pair of groups of the
    controlled-overlap results among ``results`` (``experiment`` ``controlled``);
    :data:`CONTROLLED_RISES` unavailable where there are none."""
    controlled = results[results["experiment"] == "controlled"]
    if controlled.empty:
        return [unavailable(CONTROLLED_RISES, "no controlled-overlap results")]
    return [
        controlled_claim(rows, settings, f"{group}-{tested}")
        for (group, tested), rows in controlled[controlled["role"] == "ood"].groupby(
            ["group", "eval_group"], sort=False
        )
    ]
