"""What paper B's controlled-overlap experiment reports (A.7, B-T9..B-T11): at a fixed
trained share ``q``, sets of trained neurons that hold more or fewer of the test tasks'
neurons (``o``), their out-of-domain and in-domain scores as a table, and the claim
that more test-task neurons among them generalize better, for every pair of groups
(T9 cls-cls, T10 gen-gen, T11 gen-cls). The rows resample the training runs, and the
test samples within them (:mod:`skillneurons.paper_b.share_scores`); a contrast that
compares a model collapsed to one class is not measured
(:func:`skillneurons.paper_b.generalization_report.refuse_collapsed`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from skillneurons.paper_b.generalization_report import (
    ID_MEAN,
    OOD_MEAN,
    claim_key,
    claim_suffix,
    refuse_collapsed,
    single_class_tasks,
)
from skillneurons.paper_b.share_scores import mean_score, sample_units, score_cells
from skillneurons.reporting.findings import BootstrapSettings, Claim, decide, unavailable


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
                    "single_class_tasks": single_class_tasks(chosen),
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
