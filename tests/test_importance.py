"""Neuronal importance (paper A §4.3, Figure 6) and task correlation (Figures 5, 14)."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr
from scipy.stats import zscore as scipy_zscore

from skillneurons.neurons.ranking import Ranking, ranking_table
from skillneurons.paper_a.importance import (
    IMPORTANCE_COLUMNS,
    correlation_table,
    curve_areas,
    importance_summary,
    mean_correlation,
    neuronal_importance,
)
from skillneurons.reporting.stats import curve_area, spearman_per_layer, task_correlation, zscore

RATES = [0.0, 0.1, 0.2]


def curves_frame(eval_task, trials):
    """trials: list of {order: (order_type, accuracies)} with accuracies over RATES."""
    rows = []
    for trial, curves in enumerate(trials):
        for order, (order_type, values) in curves.items():
            name, repeat = (
                (order.split("#")[0], int(order.split("#")[1]))
                if "#" in order
                else (
                    order,
                    0,
                )
            )
            for rate, value in zip(RATES, values, strict=True):
                rows.append((eval_task, name, order_type, repeat, trial, rate, value))
    return pd.DataFrame(
        rows, columns=["eval_task", "order", "order_type", "repeat", "trial", "rate", "accuracy"]
    )


def test_area_by_trapezoid():
    assert curve_area([0.0, 0.1, 0.2], [1.0, 1.0, 0.0]) == pytest.approx(0.15)
    assert curve_area([0.2, 0.0, 0.1], [0.0, 1.0, 1.0]) == pytest.approx(0.15)  # unsorted


def test_importance_areas_on_hand_made_curves():
    trials = [
        {
            "a": ("task", [0.9, 0.5, 0.3]),
            "b": ("task", [0.9, 0.8, 0.7]),
            "c": ("task", [0.9, 0.9, 0.9]),
            "random#0": ("random", [0.9, 0.9, 0.8]),
            "random#1": ("random", [0.9, 0.7, 0.8]),  # mean random: 0.9, 0.8, 0.8
            "selectivity": ("selectivity", [0.9, 0.8, 0.8]),
        },
        {
            "a": ("task", [0.8, 0.4, 0.4]),
            "b": ("task", [0.8, 0.8, 0.8]),
            "c": ("task", [0.8, 0.8, 0.8]),
            "random#0": ("random", [0.8, 0.8, 0.8]),
        },
    ]
    curves = curves_frame("a", trials)
    areas = curve_areas(curves)
    trial0 = areas[areas["trial"] == 0].set_index("order")["area"]
    # a, trial 0: gaps 0, 0.3, 0.5 -> 0.1 * (0 + 0.3) / 2 + 0.1 * (0.3 + 0.5) / 2 = 0.055
    assert trial0["a"] == pytest.approx(0.055)
    assert trial0["b"] == pytest.approx(0.1 * 0 / 2 + 0.1 * 0.1 / 2)  # gaps 0, 0, 0.1
    assert trial0["c"] == pytest.approx(0.1 * -0.1 / 2 + 0.1 * -0.2 / 2)
    assert trial0["selectivity"] == pytest.approx(0.0)
    importance = neuronal_importance(curves)
    assert list(importance.columns) == list(IMPORTANCE_COLUMNS)
    a1 = 0.1 * 0.4 / 2 + 0.1 * 0.8 / 2  # trial 1 of a: gaps 0, 0.4, 0.4
    row = importance.set_index("source_task").loc["a"]
    assert row["area"] == pytest.approx((0.055 + a1) / 2)
    assert row["area_sem"] == pytest.approx(np.std([0.055, a1], ddof=1) / np.sqrt(2))
    means = importance.set_index("source_task")["area"]
    assert importance["importance"].to_numpy() == pytest.approx(scipy_zscore(means.to_numpy()))
    summary = importance_summary(importance, curves, {"a": "s", "b": "s", "c": "t"})
    first = summary.iloc[0]
    assert first["own_area"] == pytest.approx(row["area"])
    assert first["same_type_importance"] == pytest.approx(importance["importance"].iloc[1])
    assert first["cross_type_area"] == pytest.approx(means["c"])
    assert first["unperturbed"] == pytest.approx(0.85)
    assert first["random_accuracy"] == pytest.approx(0.8)
    assert first["own_accuracy"] == pytest.approx(0.35)
    assert first["selectivity_area"] == pytest.approx(0.0)


def test_missing_random_curve_is_an_error():
    curves = curves_frame("a", [{"a": ("task", [0.9, 0.5, 0.3])}])
    with pytest.raises(ValueError, match="no random-order curve"):
        curve_areas(curves)


def test_zscore_matches_scipy():
    values = np.array([0.3, -0.1, 0.05, 0.2, 0.0])
    assert zscore(values) == pytest.approx(scipy_zscore(values))
    assert zscore(np.ones(3)).tolist() == [0.0, 0.0, 0.0]


def test_spearman_matches_scipy_per_layer_with_ties():
    generator = np.random.default_rng(0)
    a = np.round(generator.random((3, 50)), 1)  # many ties
    b = np.round(a + generator.normal(0, 0.3, a.shape), 1)
    rho = spearman_per_layer(a, b)
    for layer in range(3):
        assert rho[layer] == pytest.approx(spearmanr(a[layer], b[layer]).statistic)
    per_layer, mean = task_correlation(a, b)
    assert mean == pytest.approx(per_layer.mean())
    constant = np.vstack([a[:2], np.full(50, 0.5)])
    per_layer, mean = task_correlation(constant, b)
    assert np.isnan(per_layer[2]) and mean == pytest.approx(rho[:2].mean())
    with pytest.raises(ValueError, match="one shape"):
        task_correlation(a, b[:2])


def test_task_scores_take_the_best_subtask_and_fill_the_tables():
    pos = np.array([[0.6, 0.9], [0.5, 0.7]])
    neu = np.array([[0.8, 0.55], [0.5, 0.9]])
    zeros = np.zeros((2, 2))
    three_way = ranking_table(
        {"pn": pos, "neutral": neu},
        {"pn": zeros, "neutral": zeros},
        {"pn": zeros, "neutral": zeros},
    )
    assert Ranking(three_way).scores().tolist() == [[0.8, 0.9], [0.5, 0.9]]
    binary = ranking_table({None: pos}, {None: zeros}, {None: zeros})
    scores = {
        "x": Ranking(binary).scores(),
        "y": Ranking(three_way).scores(),
        "z": pos[::-1].copy(),
    }
    table = correlation_table(scores)
    assert list(table.columns) == ["layer", "task_a", "task_b", "spearman"]
    assert len(table) == 2 * 9
    diagonal = table[table["task_a"] == table["task_b"]]
    assert (diagonal["spearman"] == 1.0).all()
    pair = table[(table["task_a"] == "x") & (table["task_b"] == "z")]
    assert pair["spearman"].tolist() == pytest.approx(
        [spearmanr(pos[0], pos[1]).statistic, spearmanr(pos[1], pos[0]).statistic]
    )
    matrix = mean_correlation(table)
    assert list(matrix.columns) == ["task", "x", "y", "z"]
    assert matrix["task"].tolist() == ["x", "y", "z"]
    assert matrix.set_index("task").loc["x", "z"] == pytest.approx(pair["spearman"].mean())
