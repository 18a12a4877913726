"""Table A-ablation (skillneurons.paper_a.ablation): settings, orders and verdicts on
constructed curves."""

import numpy as np
import pandas as pd
import pytest

from skillneurons.neurons.perturbation.curve_table import LAYER_MATCHED
from skillneurons.neurons.ranking import Ranking, ranking_table
from skillneurons.paper_a.ablation import ablation_orders, ablation_table
from skillneurons.paper_a.ablation_settings import resolve_settings
from skillneurons.reporting.findings import BootstrapSettings

BASE = {"kind": "gaussian", "sigma": 1.0, "mean": 0.0, "unit": "neuron_std",
        "positions": "all", "draw": "sample"}  # fmt: skip


def test_settings_take_what_they_do_not_set_from_the_config():
    grid = {"paper": {"sigma": 0.1, "unit": "absolute"}, "zero": {"kind": "zero"},
            "layers": {"scope": "per_layer"}}  # fmt: skip
    resolved = resolve_settings(grid, BASE, "global")
    assert resolved["paper"] == {
        "kind": "gaussian", "sigma": 0.1, "unit": "absolute", "positions": "all",
        "scope": "global",
    }  # fmt: skip
    assert resolved["zero"]["kind"] == "zero" and resolved["zero"]["sigma"] == 1.0
    assert resolved["layers"]["scope"] == "per_layer" and resolved["layers"]["sigma"] == 1.0


def test_orders_are_the_own_order_and_layer_matched_ones():
    scores = np.array([[0.9, 0.1, 0.8, 0.2], [0.3, 0.95, 0.4, 0.5]])
    zeros = np.zeros_like(scores)
    ranking = Ranking(ranking_table({None: scores}, {None: zeros}, {None: zeros}))
    orders = ablation_orders(ranking, "task", "global", count=3, seed=5)
    assert [o.name for o in orders] == ["task"] + ["random_layer_matched"] * 3
    assert [o.repeat for o in orders[1:]] == [0, 1, 2]
    own = orders[0].order
    for matched in orders[1:]:
        assert matched.order_type == LAYER_MATCHED
        # every prefix perturbs as many neurons of each layer as the own order's
        np.testing.assert_array_equal(matched.order // 4, own // 4)
        assert sorted(matched.order) == list(range(8))


def curve_rows(setting: str, own: list[float], random: list[float]) -> list[dict]:
    """Rows of a perturbation file: 40 samples, 2 trials, 2 random orders, rates 0/.1/.2;
    ``own`` and ``random`` give the share of correct samples at each rate."""
    rows = []
    for trial in range(2):
        for order, order_type, repeats, shares in (
            ("task", "task", 1, own),
            ("random_layer_matched", LAYER_MATCHED, 2, random),
        ):
            for repeat in range(repeats):
                for rate, share in zip((0.0, 0.1, 0.2), shares, strict=True):
                    correct = np.arange(40) < round(40 * share)
                    rows.append(
                        {"eval_task": "task", "order": order, "order_type": order_type,
                         "repeat": repeat, "trial": trial, "rate": rate,
                         "perturbed": int(rate * 8), "accuracy": correct.mean(),
                         "correct": correct, "kind": "gaussian", "setting": setting}
                    )  # fmt: skip
    return rows


def test_each_setting_gets_its_verdict_from_the_interval():
    curves = pd.DataFrame(
        curve_rows("hurts", [0.9, 0.3, 0.2], [0.9, 0.8, 0.8])
        + curve_rows("same", [0.9, 0.7, 0.6], [0.9, 0.7, 0.6])
        + curve_rows("reversed", [0.9, 0.9, 0.85], [0.9, 0.5, 0.4])
    )
    grid = resolve_settings(
        {"hurts": {}, "same": {"kind": "zero"}, "reversed": {"scope": "per_layer"}},
        BASE,
        "global",
    )
    table = ablation_table(curves, grid, BootstrapSettings(resamples=200, seed=1, min_runs=1))
    # "same": the very same curves, so no draw varies and nothing is measured
    assert table["verdict"].tolist() == ["holds", "not measured", "fails"]
    assert table["alpha"].tolist()[::2] == pytest.approx([0.05 / 2, 0.05])  # Holm over 2
    assert table["resampled"][0].endswith("trials 2 > random orders 2 > task: test samples 40")
    one_run = ablation_table(curves, grid, BootstrapSettings(resamples=50, seed=1))
    assert one_run["verdict"].tolist() == ["inconclusive", "not measured", "inconclusive"]
    assert "2 training runs: variance across runs not measured" in one_run["note"][0]
    # Trapezoid areas over rates 0, .1, .2, random minus own, for "hurts":
    # 0.1 * ((0.9 + 0.8) / 2 + (0.8 + 0.8) / 2) - 0.1 * ((0.9 + 0.3) / 2 + (0.3 + 0.2) / 2)
    assert np.isclose(table.loc[0, "estimate"], 0.165 - 0.085, atol=1e-12)
    assert table.loc[0, "unperturbed_accuracy"] == 0.9
    assert np.isnan(table.loc[1, "sigma"]) and table.loc[1, "kind"] == "zero"
    assert table.loc[2, "scope"] == "per_layer"
