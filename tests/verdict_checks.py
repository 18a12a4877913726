"""A findings table's verdicts checked against its own columns (the workflow tests)."""

import pandas as pd

from skillneurons.reporting.findings import NO_TRAINING, NOT_DECIDABLE


def assert_verdicts_follow_the_intervals(table: pd.DataFrame, min_runs: int = 3) -> None:
    """Every verdict agrees with the row's unadjusted interval, margin and runs: the
    Holm-adjusted interval is wider than the nominal one, so holds needs ``ci_low > 0``,
    fails ``ci_high < 0``, negligible the interval inside ``+-margin``; below
    ``min_runs`` training runs nothing is decided and the note says why (runs 0: no
    training stands behind the claim, ``skillneurons.reporting.findings.NO_TRAINING``,
    and min_runs does not apply)."""
    verdict = table["verdict"]
    # "holds, below margin" and "fails, within margin" are decided by the same sign
    assert (table.loc[verdict.str.startswith("holds"), "ci_low"] > 0).all()
    assert (table.loc[verdict.str.startswith("fails"), "ci_high"] < 0).all()
    negligible = table[verdict == "negligible"]
    assert (negligible["ci_low"] > -negligible["margin"]).all()
    assert (negligible["ci_high"] < negligible["margin"]).all()
    trained = table["runs"] != NO_TRAINING
    # a claim whose unit has one level says so first (not decidable here, no Holm slot)
    undecidable = table[verdict == NOT_DECIDABLE]
    assert (undecidable["note"].str.len() > 0).all()
    few = table[
        trained & (table["runs"] < min_runs) & ~verdict.isin(["not measured", NOT_DECIDABLE])
    ]
    assert (few["verdict"] == "inconclusive").all()
    assert few["note"].str.contains("variance across runs not measured").all()
    # a claim not decidable here may still have an interval (B-F5c's diagonal, which
    # cannot fail by construction) or none (one order: nothing varied)
    decided = table[(verdict != "not measured") & table["ci_low"].notna()]
    assert table.loc[~verdict.isin(["not measured", NOT_DECIDABLE]), "ci_low"].notna().all()
    assert (decided["ci_low"] <= decided["estimate"]).all()
    assert (decided["estimate"] <= decided["ci_high"]).all()
    tested = table[verdict.isin(["holds", "fails", "negligible"])]
    assert (tested["alpha"] <= 0.05).all()
