"""A findings table's verdicts checked against its own columns (the workflow tests)."""

import pandas as pd

from skillneurons.reporting.findings import NO_TRAINING


def assert_verdicts_follow_the_intervals(table: pd.DataFrame, min_runs: int = 3) -> None:
    """Every verdict agrees with the row's unadjusted interval, margin and runs: the
    Holm-adjusted interval is wider than the nominal one, so holds needs ``ci_low > 0``,
    fails ``ci_high < 0``, negligible the interval inside ``+-margin``; below
    ``min_runs`` training runs nothing is decided and the note says why (runs 0: no
    training stands behind the claim, ``skillneurons.reporting.findings.NO_TRAINING``,
    and min_runs does not apply)."""
    verdict = table["verdict"]
    assert (table.loc[verdict == "holds", "ci_low"] > 0).all()
    assert (table.loc[verdict == "fails", "ci_high"] < 0).all()
    negligible = table[verdict == "negligible"]
    assert (negligible["ci_low"] > -negligible["margin"]).all()
    assert (negligible["ci_high"] < negligible["margin"]).all()
    trained = table["runs"] != NO_TRAINING
    few = table[trained & (table["runs"] < min_runs) & (table["verdict"] != "not measured")]
    assert (few["verdict"] == "inconclusive").all()
    assert few["note"].str.contains("variance across runs not measured").all()
    decided = table[verdict != "not measured"]
    assert (decided["ci_low"] <= decided["estimate"]).all()
    assert (decided["estimate"] <= decided["ci_high"]).all()
    tested = table[verdict.isin(["holds", "fails", "negligible"])]
    assert (tested["alpha"] <= 0.05).all()
