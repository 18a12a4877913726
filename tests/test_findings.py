"""The findings engine (paired bootstrap, verdicts) and paper A's claims on constructed
inputs: a clear effect holds, no effect is inconclusive, a reversed effect fails."""

import numpy as np
import pandas as pd
import pytest

from skillneurons.paper_a.findings import (
    control_correct,
    correlation_claim,
    gap_claim,
    importance_claim,
    label_words_claim,
    pretraining_claim,
)
from skillneurons.reporting.curves import TaskCurves, task_curves
from skillneurons.reporting.findings import (
    COLUMNS,
    BootstrapSettings,
    Claim,
    bootstrap_interval,
    decide,
    findings_frame,
    verdict,
)

SETTINGS = BootstrapSettings(resamples=400, alpha=0.05, seed=3)
CLAIM = Claim("x is positive", "§0", "mean of x", "samples")


def mean_of(values):
    return lambda indices: float(values[indices["samples"]].mean())


@pytest.mark.parametrize(
    ("shift", "expected"), [(1.0, "holds"), (0.0, "inconclusive"), (-1.0, "fails")]
)
def test_the_verdict_follows_the_interval(shift, expected):
    noise = np.random.default_rng(0).normal(0.0, 1.0, 100)
    values = np.concatenate([noise, -noise]) + shift  # exactly mean `shift`
    row = decide(CLAIM, mean_of(values), {"samples": len(values)}, SETTINGS)
    assert row["verdict"] == expected
    assert row["estimate"] == pytest.approx(shift)
    assert row["ci_low"] < row["estimate"] < row["ci_high"]
    assert list(row) == COLUMNS and '"samples": 200' in row["counts"]


def test_the_bootstrap_is_reproducible_from_its_seed_and_paired():
    values = np.random.default_rng(1).normal(0.2, 1.0, 60)
    units = {"samples": 60}
    first = bootstrap_interval(mean_of(values), units, SETTINGS, "a")
    assert first == bootstrap_interval(mean_of(values), units, SETTINGS, "a")
    assert first != bootstrap_interval(mean_of(values), units, SETTINGS, "b")
    other = BootstrapSettings(resamples=400, alpha=0.05, seed=4)
    assert first != bootstrap_interval(mean_of(values), units, other, "a")
    # Paired: a difference of two noisy quantities sharing their noise has no spread.
    shared = values + 5.0
    paired = bootstrap_interval(
        lambda i: float(shared[i["samples"]].mean() - values[i["samples"]].mean()),
        units,
        SETTINGS,
    )
    assert paired[1] == pytest.approx(5.0) and paired[2] == pytest.approx(5.0)


def test_units_of_one_are_not_resampled_and_nan_is_no_verdict():
    seen = []
    bootstrap_interval(lambda i: seen.append(i["trials"].tolist()) or 1.0, {"trials": 1}, SETTINGS)
    assert all(drawn == [0] for drawn in seen)
    assert verdict(float("nan"), 1.0) == "not measured"
    row = decide(CLAIM, lambda i: float("nan"), {"samples": 3}, SETTINGS)
    assert row["verdict"] == "not measured"
    assert list(findings_frame([row]).columns) == COLUMNS


def curves(own_drop: float, matched_drop: float, samples: int = 80, seed: int = 0):
    """One evaluation task, one trial, rates 0/0.5/1: per-sample correctness whose
    accuracy falls by ``own_drop`` (own order) and ``matched_drop`` (layer-matched)."""
    generator = np.random.default_rng(seed)
    rates = np.array([0.0, 0.5, 1.0])

    def cube(drop: float, repeats: int = 1) -> np.ndarray:
        accuracy = 0.9 - drop * rates  # [rates]
        draws = generator.random((1, repeats, len(rates), samples))
        return draws < accuracy[None, None, :, None]

    return TaskCurves(
        rates,
        {
            ("task", "t"): cube(own_drop),
            ("layer_matched", "random_layer_matched"): cube(matched_drop, 3),
            ("random", "random"): cube(matched_drop, 3),
            ("selectivity", "selectivity"): cube(own_drop),
        },
    )


@pytest.mark.parametrize(
    ("own", "matched", "expected"),
    [(0.6, 0.0, "holds"), (0.0, 0.6, "fails"), (0.3, 0.3, "inconclusive")],
)
def test_the_central_claim_compares_the_own_order_with_the_layer_matched_control(
    own, matched, expected
):
    if expected == "inconclusive":  # the very same curves: every draw gives 0
        data = curves(0.3, 0.3)
        data = TaskCurves(
            data.rates,
            {**data.correct, ("layer_matched", "random_layer_matched"): np.repeat(
                data.correct[("task", "t")], 3, axis=1)},
        )  # fmt: skip
    else:
        data = curves(own, matched)
    row = gap_claim(CLAIM, {"t": data}, "layer_matched", SETTINGS)
    assert row["verdict"] == expected, row
    assert '"t: test samples": 80' in row["counts"] and '"random orders": 3' in row["counts"]


def test_task_curves_read_a_perturbation_file_frame():
    rows = []
    for order, order_type, repeat in [
        ("t", "task", 0),
        ("random", "random", 0),
        ("random", "random", 1),
    ]:
        for rate, right in [(0.0, [1, 1, 0, 1]), (0.2, [1, 0, 0, int(repeat)])]:
            rows.append(
                {"order": order, "order_type": order_type, "repeat": repeat, "trial": 0,
                 "rate": rate, "correct": np.array(right, dtype=bool)}
            )  # fmt: skip
    data = task_curves(pd.DataFrame(rows))
    assert data.correct[("random", "random")].shape == (1, 2, 2, 4)
    assert data.correct[("task", "t")][0, 0, 1].tolist() == [True, False, False, False]
    assert data.samples == 4 and data.trials == 1 and data.repeats == 2


def test_importance_contrasts_same_and_cross_type_sources():
    rates = np.array([0.0, 1.0])
    generator = np.random.default_rng(2)

    def cube(accuracy_at_one: float) -> np.ndarray:
        accuracy = np.array([0.9, accuracy_at_one])
        return generator.random((1, 1, 2, 200)) < accuracy[None, None, :, None]

    # Evaluating on "a": the same-type source "b" destroys much more than "c", "d".
    correct = {("task", name): cube(value) for name, value in [("a", 0.1), ("b", 0.2),
               ("c", 0.85), ("d", 0.8)]}  # fmt: skip
    correct[("random", "random")] = cube(0.85)
    types = {"a": "sentiment", "b": "sentiment", "c": "topic", "d": "topic"}
    row = importance_claim({"a": TaskCurves(rates, correct)}, types, SETTINGS)
    assert row["verdict"] == "holds" and row["estimate"] > 1.0


def test_correlation_claim_on_constructed_scores():
    generator = np.random.default_rng(5)
    shared = generator.random((2, 300))
    scores = {
        "a": shared + 0.05 * generator.random((2, 300)),
        "b": shared + 0.05 * generator.random((2, 300)),
        "c": generator.random((2, 300)),
    }
    types = {"a": "sentiment", "b": "sentiment", "c": "topic"}
    assert correlation_claim(scores, types, SETTINGS)["verdict"] == "holds"
    flipped = {"a": "sentiment", "b": "topic", "c": "topic"}  # the similar pair is cross-type
    assert correlation_claim(scores, flipped, SETTINGS)["verdict"] == "fails"
    assert (
        correlation_claim(scores, dict.fromkeys(scores, "topic"), SETTINGS)["verdict"]
        == "not measured"
    )


def test_label_word_agreement_and_pretraining_claims():
    generator = np.random.default_rng(6)
    base = generator.random((2, 200))
    draws = {"t": [base + 0.1 * generator.random((2, 200)) for _ in range(3)]}
    assert label_words_claim(draws, SETTINGS)["verdict"] == "holds"
    independent = {"t": [generator.random((2, 200)) for _ in range(3)]}
    assert label_words_claim(independent, SETTINGS)["verdict"] == "inconclusive"
    results = [
        {"task": "t", "trial": trial, "test_idx": [0, 1, 2, 3], "test_correct": right}
        for trial, right in [(0, [1, 1, 1, 0]), (1, [1, 1, 0, 1])]
    ]
    correct = control_correct(results)
    assert correct["t"].shape == (2, 4) and correct["t"].dtype == bool
    pretrained = {"t": generator.random((2, 300)) < 0.85}
    random_model = {"t": generator.random((2, 300)) < 0.55}
    assert pretraining_claim(pretrained, random_model, SETTINGS)["verdict"] == "holds"
    assert pretraining_claim(random_model, pretrained, SETTINGS)["verdict"] == "fails"
