"""The intervals of the heatmaps (A-F6, A-F8, B-F5) and of B-F3's per-layer lines: the
findings engine's bootstrap per cell over the units of the claim about that matrix,
checked against hand-computed intervals, and what the figures show of them."""

import copy
import html

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats
from test_figures import caption, one_run

from conftest import ROOT
from skillneurons.config import validate_config
from skillneurons.paper_a.importance import neuronal_importance
from skillneurons.paper_a.tuning_methods import average_importance
from skillneurons.paper_b.neuron_effects import effect_intervals, effect_matrix, reference_scores
from skillneurons.paper_b.similarity_definitions import DEFINITIONS
from skillneurons.paper_b.similarity_report import (
    layer_similarity_intervals,
    layer_similarity_table,
)
from skillneurons.reporting.figures import (
    effect_heatmaps,
    importance_heatmap,
    similarity_layers_figure,
)
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.intervals import importance_intervals, interval_note

SETTINGS = BootstrapSettings(resamples=1000, alpha=0.05, seed=5)


def result(condition, source, eval_task, scores, run=0, draw=0) -> dict:
    scores = np.asarray(scores, np.float64)
    return {"run": run, "condition": condition, "source": source, "draw": draw,
            "eval_task": eval_task, "metric": "accuracy", "score": scores.mean(),
            "sample_scores": scores}  # fmt: skip


def dots(axis) -> list[float]:
    """The x, y of every dot (a one-point marker line) of ``axis``, flattened."""
    return [float(v) for line in axis.get_lines() if line.get_marker() == "o"
            for v in line.get_xydata()[0]]  # fmt: skip


def two_by_two(samples: int = 400) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A 2x2 training matrix on one run against zero-shot scores of 0.5 on every sample:
    cell (a, a) is right on the first 70% of the samples (+20 points, every sample's
    change 0.5 or -0.5: spread 0.458 per sample), (a, b) right on every sample (+50
    points, spread 0.5), (b, a) scores 0.5 everywhere (no change, no spread), (b, b)
    right on the first 52% (+2 points, spread 0.4996: within its sampling noise)."""
    right = {("a", "a"): 0.7, ("a", "b"): 1.0, ("b", "b"): 0.52}
    rows = []
    for source in "ab":
        for task in "ab":
            if (source, task) == ("b", "a"):
                scores = np.full(samples, 0.5)
            else:
                scores = (np.arange(samples) < right[(source, task)] * samples).astype(float)
            rows.append(result("task", source, task, scores))
    zero_shot = pd.DataFrame([result("zero_shot", "", t, np.full(samples, 0.5)) for t in "ab"])
    return pd.DataFrame(rows), zero_shot.drop(columns="run")


def test_a_cell_interval_is_its_change_plus_minus_the_samples_standard_error():
    training, zero_shot = two_by_two()
    cells = effect_intervals(training, zero_shot, SETTINGS).set_index(["row", "column"])
    # the estimates are B-F5c's matrix
    matrix = effect_matrix(training, reference_scores(zero_shot, "zero_shot"))
    assert matrix.set_index("neurons_of").to_numpy().ravel().tolist() == pytest.approx(
        cells["estimate"].tolist()
    )
    assert cells.loc[("a", "a"), "estimate"] == pytest.approx(20.0)
    # one run, 400 test samples: the percentile interval of a mean, est +- 1.96 * SE with
    # SE = 100 * (per-sample std of the change) / sqrt(400)
    for cell, (estimate, std) in {("a", "a"): (20.0, np.sqrt(0.7 * 0.3)),
                                  ("b", "b"): (2.0, np.sqrt(0.52 * 0.48))}.items():  # fmt: skip
        half = 1.96 * 100 * std / np.sqrt(400)
        assert cells.loc[cell, "low"] == pytest.approx(estimate - half, abs=0.6)
        assert cells.loc[cell, "high"] == pytest.approx(estimate + half, abs=0.6)
    # every sample right: no spread, no interval; no change anywhere: none either
    assert cells.loc[[("a", "b"), ("b", "a")], ["low", "high"]].isna().all().all()
    assert set(cells["resampled"]) == {"training runs 1 (not resampled) > test samples 400"}


def test_few_runs_get_the_t_interval_of_the_runs():
    """Three runs whose cell changes are 10, 20 and 30 points on every sample: the
    interval is 20 +- t(2) * s / sqrt(3), s the runs' std (10): 20 +- 24.8."""
    rows, zero = [], []
    for run, right in ((0, 0.6), (1, 0.7), (2, 0.8)):
        for task in "ab":
            rows += [result("task", s, task, np.full(50, right), run) for s in "ab"]
            zero.append(result("zero_shot", "", task, np.full(50, 0.5), run))
    cells = effect_intervals(pd.DataFrame(rows), pd.DataFrame(zero), SETTINGS)
    half = stats.t.ppf(0.975, 2) * 10.0 / np.sqrt(3)
    assert cells["estimate"].tolist() == pytest.approx([20.0] * 4)
    assert cells["low"].tolist() == pytest.approx([20.0 - half] * 4, rel=0.12)
    assert cells["high"].tolist() == pytest.approx([20.0 + half] * 4, rel=0.12)
    assert cells["resampled"].iloc[0] == "training runs 3 > test samples 50"


def test_random_draws_are_resampled_within_the_runs():
    training, zero_shot = two_by_two(samples=100)
    random = training.assign(condition="random")
    shifted = pd.DataFrame(
        [result("random", r.source, r.eval_task, np.clip(r.sample_scores + 0.5, 0, 1), draw=1)
         for r in random.itertuples()]
    )  # fmt: skip
    frame = pd.concat([training, random, shifted], ignore_index=True)
    cells = effect_intervals(frame, zero_shot, SETTINGS, condition="random")
    expected = effect_matrix(frame, reference_scores(zero_shot, "zero_shot"), condition="random")
    assert cells["estimate"].tolist() == pytest.approx(
        expected.set_index("neurons_of").to_numpy().ravel().tolist()
    )
    assert cells["resampled"].iloc[0] == (
        "training runs 1 (not resampled) > random draws 2 > test samples 100"
    )
    # cell (b, a): draw 0 changes nothing, draw 1 +50 on every sample; two draws are the
    # top level: 25 +- t(1) * s / sqrt(2), s the draws' std (35.4): 25 +- 318
    cell = cells.set_index(["row", "column"]).loc[("b", "a")]
    estimate, low, high = cell[["estimate", "low", "high"]]
    half = stats.t.ppf(0.975, 1) * np.std([0.0, 50.0], ddof=1) / np.sqrt(2)
    assert estimate == pytest.approx(25.0)
    assert (low, high) == pytest.approx((25.0 - half, 25.0 + half), rel=0.15)


def test_the_heatmap_reads_each_cell_with_its_interval_and_dots_those_excluding_zero():
    training, zero_shot = two_by_two()
    cells = effect_intervals(training, zero_shot, SETTINGS)
    matrix = effect_matrix(training, reference_scores(zero_shot, "zero_shot"))
    note = interval_note(cells, SETTINGS, marked="interval excludes 0")
    assert note == (
        "[low, high]: 95% bootstrap interval (1000 resamples) over training runs 1 (not "
        "resampled) > test samples 400. \u2022: interval excludes 0."
    )
    figure = effect_heatmaps({"(c) gain": matrix}, {"a": "s", "b": "s"}, "B-F5",
                             {"(c) gain": cells}, note)  # fmt: skip
    axis = figure.axes[0]
    texts = [text.get_text() for text in axis.texts]
    low, high = cells.set_index(["row", "column"]).loc[("a", "a"), ["low", "high"]]
    assert f"20.0\n[{low:.1f}, {high:.1f}]" in texts
    assert "50.0" in texts and "0.0" in texts  # no interval: the value alone
    # (a, a) excludes 0: a dot in its upper right corner; (b, b)'s +2 points is within
    # its +-4.9 of sampling noise: no dot
    assert dots(axis) == pytest.approx([0.36, -0.36])
    low, high = cells.set_index(["row", "column"]).loc[("b", "b"), ["low", "high"]]
    assert low < 0 < high
    assert "training runs 1 (not resampled) > test samples 400" in figure.get_supxlabel().replace(
        "\n", " "
    )


def importance_rows(
    trials: int, samples: int, seed: int = 0, slopes=None, eval_task: str = "t1"
) -> pd.DataFrame:
    """Perturbation rows of ``eval_task``: three source orders (t1, t2, t3), and one
    uniform random order, right with a probability that falls with the rate (the
    faster, the steeper the order's slope)."""
    generator = np.random.default_rng(seed)
    slopes = slopes or {"t1": 3.0, "t2": 1.5, "t3": 0.8, "random": 0.5}
    rows = []
    for order, slope in slopes.items():
        kind = "random" if order == "random" else "task"
        for trial in range(trials):
            for rate in (0.0, 0.1, 0.2):
                correct = generator.random(samples) < 0.9 - slope * rate
                rows.append({"eval_task": eval_task, "order": order, "order_type": kind,
                             "repeat": 0, "trial": trial, "rate": rate, "perturbed": 0,
                             "accuracy": correct.mean(), "correct": correct.tolist(),
                             "kind": "gaussian"})  # fmt: skip
    return pd.DataFrame(rows)


def test_importance_cells_are_the_tables_z_scores_with_their_intervals():
    curves = importance_rows(trials=2, samples=60)
    cells = importance_intervals([curves], SETTINGS).set_index("column")
    table = neuronal_importance(curves).set_index("source_task")
    assert cells["estimate"].to_dict() == pytest.approx(table["importance"].to_dict())
    assert (cells["low"] < cells["estimate"]).all() and (cells["estimate"] < cells["high"]).all()
    assert set(cells["resampled"]) == {
        "trials 2 > random orders 1 (not resampled) > test samples 60"
    }
    # over two methods (A-F8): the mean of their z-scores, resampled together
    slopes = {"t1": 1.0, "t2": 2.5, "t3": 0.8, "random": 0.5}
    other = importance_rows(trials=2, samples=60, seed=1, slopes=slopes)
    both = importance_intervals([curves, other], SETTINGS).set_index("column")
    mean = average_importance({"x": neuronal_importance(curves), "y": neuronal_importance(other)})
    assert both["estimate"].to_dict() == pytest.approx(
        mean.set_index("source_task")["importance"].to_dict()
    )
    with pytest.raises(ValueError, match="differ in trials"):
        importance_intervals([curves, importance_rows(trials=3, samples=60)], SETTINGS)


def test_three_sources_with_a_clear_order_exclude_zero_and_the_figure_says_so():
    """Three evaluation tasks, each hurt most by t1's order and least by t3's."""
    slopes = {"t1": 3.5, "t2": 1.5, "t3": 0.0, "random": 0.5}
    curves = pd.concat(
        [
            importance_rows(1, 300, seed, slopes, task)
            for seed, task in enumerate(["t1", "t2", "t3"])
        ]
    )
    cells = importance_intervals([curves], SETTINGS)
    by_source = cells.groupby("column")
    assert (by_source.get_group("t1")["low"] > 0).all()
    assert (by_source.get_group("t3")["high"] < 0).all()
    note = interval_note(cells, SETTINGS, marked="interval excludes 0")
    assert "trials 1 (not resampled) > random orders 1 (not resampled) > test samples 300" in note
    table = neuronal_importance(curves)
    figure = importance_heatmap(table, {"t1": "s", "t2": "s", "t3": "t"}, "A-F6", cells, note)
    axis = figure.axes[0]
    excluding = int(((cells["low"] > 0) | (cells["high"] < 0)).sum())
    assert excluding >= 6 and len(dots(axis)) == 2 * excluding
    first = cells.iloc[0]
    assert f"{first['estimate']:.2f}\n[{first['low']:.2f}, {first['high']:.2f}]" in [
        text.get_text() for text in axis.texts
    ]


def test_similarity_bands_are_the_t_interval_over_the_models():
    """One run, three models at 0.1, 0.2 and 0.3 in layer 0: 0.2 +- t(2) * 0.1 /
    sqrt(3); layer 1 has one model's value: no band there."""
    rows = [
        {"layer": layer, "test_task": "t", "definition": "centroid", "similarity": value,
         "chance": 0.0, "trained": model}
        for model, profile in {"m1": [0.1, 0.5], "m2": [0.2, np.nan], "m3": [0.3, np.nan]}.items()
        for layer, value in enumerate(profile)
    ]  # fmt: skip
    similarities = pd.DataFrame(rows)
    groups = {"cls": (["m1", "m2", "m3"], ["t"])}
    bands = layer_similarity_intervals(similarities, groups, SETTINGS).set_index("layer")
    half = stats.t.ppf(0.975, 2) * 0.1 / np.sqrt(3)
    assert bands.loc[0, "estimate"] == pytest.approx(0.2)
    assert bands.loc[0, ["low", "high"]].tolist() == pytest.approx([0.2 - half, 0.2 + half],
                                                                   rel=0.1)  # fmt: skip
    assert bands.loc[1, "estimate"] == pytest.approx(0.5) and np.isnan(bands.loc[1, "low"])
    assert bands.loc[0, "resampled"] == "training runs 1 (not resampled) > models M_i 3"
    layers = layer_similarity_table(similarities, groups)
    assert layers["similarity"].tolist() == pytest.approx(bands["estimate"].tolist())
    note = interval_note(bands.reset_index(), SETTINGS, "bands")
    shown = {"centroid": DEFINITIONS["centroid"]}
    figure = similarity_layers_figure(layers, shown, "B-F3", bands.reset_index(), note)
    (band,) = [c for c in figure.axes[0].collections if len(c.get_paths())]
    ys = band.get_paths()[0].vertices[:, 1]
    assert (ys.min(), ys.max()) == pytest.approx(tuple(bands.loc[0, ["low", "high"]]))
    (legend,) = figure.legends  # the note heads the legend below the panels
    title = legend.get_title().get_text().replace("\n", " ")
    assert title.startswith("bands: 95% bootstrap interval (1000 resamples) over training runs")


def test_captions_name_the_heatmaps_units_and_those_of_one_level():
    default = validate_config(yaml.safe_load((ROOT / "config.yaml").read_text()))
    config = one_run(default)  # the default has 3 trials and runs
    one = caption("A-F6", config)
    assert "the prompt-tuning trials (prompt_tuning.trials) (1)" in one
    assert "uniform random orders the areas are measured against (1," in one
    assert "test samples (40, perturbation.test_samples)" in one
    assert "95.0% interval [low, high]" in one and "1000 resamples" in one
    assert "With one trial the variance across training runs is not measured, nor" in one
    several = copy.deepcopy(config)
    several["prompt_tuning"]["trials"] = several["paper_b"]["runs"] = 3
    assert "With one trial" not in caption("A-F6", several)
    assert "the same draws for every method" in caption("A-F8", config)
    assert "tuning-method trials (tuning_methods.trials) (1)" in caption("A-F8_method", config)
    for name in ("B-F5", "B-F5_generation"):
        text = html.unescape(caption(name, config))
        assert "training runs (1, paper_b.runs) > for the controls, the random draws (1," in text
        assert "With one training run the variance across training runs is not measured" in text
        assert "not measured" not in caption(name, several)
    assert "the panel's models M_i" in caption("B-F3", config)
    assert "bands hold the models' spread only" in caption("B-F3", config)
