"""The findings table decides each claim from hand-made tables as the paper's numbers say."""

import numpy as np
import pandas as pd
import pytest

from skillneurons.paper_a.findings import COLUMNS, findings_table, type_pair_correlations

TYPES = {"a": "sentiment", "b": "sentiment", "c": "topic"}


@pytest.fixture
def tables():
    importance = pd.DataFrame(
        {
            "eval_task": ["a", "b", "c"],
            "own_area": [0.02, 0.04, -0.03],
            "selectivity_area": [0.01, 0.0, 0.02],
            "same_type_importance": [1.0, 0.5, np.nan],
            "cross_type_importance": [-1.0, -0.5, 0.2],
        }
    )
    correlation = pd.DataFrame(
        [[1.0, 0.6, 0.1], [0.6, 1.0, 0.3], [0.1, 0.3, 1.0]],
        index=pd.Index(list("abc"), name="task"),
        columns=list("abc"),
    )
    controls = pd.DataFrame(
        {
            "task": list("abc"),
            "random_prompt_mean": [0.8, 0.7, 0.9],
            "random_model_mean": [0.6] * 3,
        }
    )
    agreement = pd.DataFrame({"task": ["a"], "spearman_mean": [0.4]})
    methods = {"adapter": pd.DataFrame({"own_area": [0.01, -0.05]})}
    return importance, correlation, controls, agreement, methods


def test_type_pair_correlations_average_off_diagonal_pairs(tables):
    _, correlation, *_ = tables
    assert type_pair_correlations(correlation, TYPES) == pytest.approx((0.6, 0.2))


def test_findings_compare_the_numbers_behind_each_claim(tables):
    table = findings_table(*tables, task_types=TYPES)
    assert list(table.columns) == COLUMNS
    rows = table.set_index("paper")
    own = rows.loc["§4.2, A-F4/A-F11"]
    assert own["value"] == pytest.approx(0.01) and own["holds"] == "yes"
    assert rows.loc["§4.3, A-F5", "holds"] == "yes"
    same = rows.loc["§4.3, A-F6"]
    assert same["value"] == pytest.approx(0.75)  # the NaN of task c is skipped
    assert same["reference_value"] == pytest.approx(-1.3 / 3)
    selectivity = rows.loc["App. F, A-F15"]
    assert selectivity["reference_value"] == pytest.approx(0.01) and selectivity["holds"] == "no"
    assert rows.loc["§4.4", "holds"] == "no"  # 0.4 < 0.5
    assert rows.loc["§5, A-T3", "value"] == pytest.approx(0.8)
    adapter = rows.loc["§5, A-F7/A-F8/A-F12/A-F13"]
    assert adapter["value"] == pytest.approx(-0.02) and adapter["holds"] == "no"


def test_a_stage_that_did_not_run_is_undecided(tables):
    importance, correlation, controls, _, _ = tables
    empty = pd.DataFrame({"spearman_mean": []})
    table = findings_table(importance, correlation, controls, empty, {}, task_types=TYPES)
    assert table.set_index("paper").loc["§4.4", "holds"] == "n/a"
    assert len(table) == 6
