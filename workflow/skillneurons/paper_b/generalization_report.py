"""What paper B's generalization experiment reports (§5.1, A.5): the tables and claims
of B-F2 and B-F6.

Named for the experiment it reports: :mod:`skillneurons.paper_b.generalization` runs its
trainings (and imports torch); this module turns their results into the tables, the
bands of B-F2/B-F6 (:func:`share_intervals`) and the claims, free of torch so that the
table and findings scripts start fast. One idea, one experiment: what training a share
of the task neurons does in and out of domain. Its two appendix analyses report apart:
the overlap of the groups' neurons (A.6, B-T8: :mod:`skillneurons.paper_b.overlap_report`)
and the controlled overlap (A.7, B-T9..B-T11:
:mod:`skillneurons.paper_b.controlled_overlap_report`), which read this module's series,
claim keys and collapse check. Scores
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
=============================================  ============================================

The rows resample the training runs of their results (config ``paper_b.runs``: the
``run`` column; every compared model trained once per run, run ``r`` with seed + r) as
their top unit, the test samples (the same under every run) within them
(:mod:`skillneurons.paper_b.share_scores`, as B-F2's and B-F6's bands do). Rows on
fewer runs than ``findings.min_runs`` stay inconclusive (the note says so), their
intervals shown.

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

from collections.abc import Mapping

import numpy as np
import pandas as pd

from skillneurons.paper_b.share_scores import mean_score, sample_units, score_cells
from skillneurons.reporting.findings import (
    BootstrapSettings,
    Claim,
    decide,
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


def single_class_tasks(rows: pd.DataFrame) -> float:
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
                    "single_class_tasks": single_class_tasks(rows_at),
                }
            )
    return pd.DataFrame(rows)


#: The margin of a rise with the share, where paper B's figures give no number.
RISE_BASIS = "smallest effect of interest: 5 points from the smallest to the largest share"


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
