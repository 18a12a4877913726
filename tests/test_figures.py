"""The figures' style and intervals (skillneurons.reporting.figures, .intervals, .style)
on small synthetic tables: a band's edges are the findings engine's interval for the
same data, a unit of one level draws no band, a correlation heatmap's diagonal is
masked out of its colour scale, legends sit outside every axis' box, and the shared
colours are the same across figures."""

import copy
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml
from docutils.core import publish_parts
from jinja2 import Environment
from matplotlib.text import Text

from conftest import ROOT
from skillneurons.config import validate_config
from skillneurons.neurons.perturbation.curve_table import trial_curves
from skillneurons.paper_b.continual_report import (
    forgetting_intervals,
    forgetting_table,
    retention_claims,
)
from skillneurons.paper_b.generalization_report import (
    PROPORTION_SERIES,
    proportion_table,
    share_intervals,
)
from skillneurons.paper_b.runs import RUNS, run_means, with_run
from skillneurons.reporting.figures import (
    correlation_heatmap,
    forgetting_figure,
    perturbation_curves_figure,
    predictivity_histograms,
    proportion_figure,
)
from skillneurons.reporting.findings import BootstrapSettings, Units, bootstrap
from skillneurons.reporting.intervals import histogram_intervals, point_intervals
from skillneurons.reporting.style import KEY_COLORS, OKABE_ITO, PALETTE, series_colors

SETTINGS = BootstrapSettings(resamples=200, alpha=0.05, seed=3)
RATES = (0.0, 0.1, 0.2)


def perturbation_rows(trials: int, repeats: int, samples: int, seed: int = 0) -> pd.DataFrame:
    """A perturbation file of task ``t1``: its own order (``t1``), another task's order
    (``t2``) and ``repeats`` layer-matched random orders, each right with a probability
    that falls with the rate (fastest for the own order)."""
    generator = np.random.default_rng(seed)
    orders = [("t1", "task", 1, 2.5), ("t2", "task", 1, 1.0),
              ("random_layer_matched", "layer_matched", repeats, 0.5)]  # fmt: skip
    rows = []
    for order, order_type, count, slope in orders:
        for trial in range(trials):
            for repeat in range(count):
                for rate in RATES:
                    correct = generator.random(samples) < 0.9 - slope * rate
                    rows.append({"eval_task": "t1", "order": order, "order_type": order_type,
                                 "repeat": repeat, "trial": trial, "rate": rate, "perturbed": 0,
                                 "accuracy": correct.mean(), "correct": correct.tolist(),
                                 "kind": "gaussian"})  # fmt: skip
    return pd.DataFrame(rows)


def bands(axis) -> list[np.ndarray]:
    """The vertices of every band (fill_between) of ``axis``."""
    return [c.get_paths()[0].vertices for c in axis.collections if len(c.get_paths())]


def band_edges(vertices: np.ndarray) -> dict[float, tuple[float, float]]:
    """x -> (lowest, highest) y of a band's outline."""
    edges = {}
    for x, y in vertices:
        low, high = edges.get(round(x, 9), (np.inf, -np.inf))
        edges[round(x, 9)] = (min(low, y), max(high, y))
    return edges


def test_a_curve_band_is_the_engine_interval_of_that_point():
    frame = perturbation_rows(trials=3, repeats=2, samples=40)
    points = point_intervals(frame, SETTINGS)
    # the estimates are the curves' means over trials of their means over random repeats
    means = trial_curves(frame).groupby(["order", "rate"])["accuracy"].mean()
    assert points.set_index(["order", "rate"])["estimate"].to_dict() == pytest.approx(
        means.to_dict()
    )
    # the engine on the same data: trials 3 > random orders 2 > test samples 40
    rows = frame[(frame["order"] == "random_layer_matched") & (frame["rate"] == 0.1)]
    cube = np.zeros((3, 2, 40))
    for row in rows.itertuples():
        cube[row.trial, row.repeat] = row.correct

    def statistic(i):
        return float(cube[np.ix_(i["trials"], i["random orders"], i["test samples"])].mean())

    units = Units(runs={"trials": 3}, draws={"random orders": 2}, samples={"test samples": 40})
    test = bootstrap(statistic, units, SETTINGS, "point t1 layer_matched random_layer_matched 0.1")
    low, high = test.interval(SETTINGS.alpha)
    assert test.by_runs and test.levels == 3 and high - low > 0.01
    point = points[(points["order"] == "random_layer_matched") & (points["rate"] == 0.1)]
    assert point[["low", "high"]].iloc[0].tolist() == pytest.approx([low, high])
    assert point[["trials", "random_orders", "samples"]].iloc[0].tolist() == [3, 2, 40]
    # the figure's band at that rate has exactly these edges
    figure = perturbation_curves_figure(points, ["t1"], title="A-F4")
    axis = figure.axes[0]
    colors = [line.get_color() for line in axis.get_lines()]
    random_band = bands(axis)[colors.index(KEY_COLORS["layer_matched"])]
    assert band_edges(random_band)[0.1] == pytest.approx((low, high))


def test_one_trial_one_repeat_and_no_spread_draw_no_band():
    frame = perturbation_rows(trials=1, repeats=1, samples=30)
    frame["correct"] = [[True] * 30] * len(frame)  # every sample right: nothing varies
    points = point_intervals(frame, SETTINGS)
    assert points["low"].isna().all() and points["high"].isna().all()
    figure = perturbation_curves_figure(points, ["t1"])
    assert bands(figure.axes[0]) == []
    # one trial, samples varying: the band is over the test samples (and random orders)
    varied = point_intervals(perturbation_rows(trials=1, repeats=3, samples=30), SETTINGS)
    assert varied["low"].notna().all()
    assert (varied["high"] - varied["low"]).gt(0.05).all()


def legend_outside_every_axis(figure) -> bool:
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    (legend,) = figure.legends
    box = legend.get_window_extent(renderer)
    axes = [axis for axis in figure.axes if axis.get_visible()]
    return bool(axes) and not any(box.overlaps(a.get_window_extent(renderer)) for a in axes)


def test_legends_sit_outside_the_panels_and_colours_are_shared():
    points = point_intervals(perturbation_rows(trials=2, repeats=2, samples=20), SETTINGS)
    figure = perturbation_curves_figure(points, ["t1"])
    assert legend_outside_every_axis(figure)
    # one colour per source task: t1 and t2 take the palette in order, random is black
    lines = {line.get_label(): line.get_color() for line in figure.axes[0].get_lines()}
    assert lines == {"t1": PALETTE[0], "t2": PALETTE[1],
                     "random_layer_matched": KEY_COLORS["layer_matched"]}  # fmt: skip
    # AB-F1's papers keep their colours, random orders of each dashed in the same colour
    ab = points.replace({"order": {"t1": "paper_a", "t2": "paper_b",
                                   "random_layer_matched": "random_paper_a"}})  # fmt: skip
    figure = perturbation_curves_figure(ab, ["t1"])
    lines = {line.get_label(): (line.get_color(), line.get_linestyle())
             for line in figure.axes[0].get_lines()}  # fmt: skip
    assert lines["paper_a"] == (KEY_COLORS["paper_a"], "-")
    assert lines["random_paper_a"] == (KEY_COLORS["paper_a"], "--")
    assert lines["paper_b"][0] == KEY_COLORS["paper_b"] != KEY_COLORS["paper_a"]
    assert series_colors(["x", "paper_a", "y"]) == {
        "x": PALETTE[1], "paper_a": KEY_COLORS["paper_a"], "y": PALETTE[2]
    }  # fmt: skip


def test_the_correlation_heatmap_masks_its_diagonal():
    tasks = ["a", "b", "c"]
    off = {("a", "b"): 0.04, ("a", "c"): 0.17, ("b", "c"): 0.09}
    rows = []
    for layer in (0, 1):
        for x in tasks:
            for y in tasks:
                value = 1.0 if x == y else off.get((x, y), off.get((y, x)))
                rows.append({"layer": layer, "task_a": x, "task_b": y, "spearman": value})
    figure = correlation_heatmap(pd.DataFrame(rows), {"a": "s", "b": "s", "c": "t"}, "A-F5")
    image = figure.axes[0].get_images()[0]
    array = np.ma.filled(image.get_array().astype(float), np.nan)
    assert np.isnan(np.diag(array)).all()
    assert array[0, 2] == pytest.approx(0.17)
    assert (image.norm.vmin, image.norm.vmax) == pytest.approx((0.04, 0.17))
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert texts.count("1") == 3 and "0.17" in texts


def test_histogram_whiskers_are_the_engine_interval_over_trials():
    generator = np.random.default_rng(1)
    trials = [generator.uniform(0.5, 1.0, (2, 50)) for _ in range(3)]
    bins = np.linspace(0.5, 1.0, 6)
    mean, low, high = histogram_intervals(trials, bins, SETTINGS, "A-F3 t")
    fractions = np.stack([np.histogram(v, bins=bins)[0] / v.size for v in trials])
    assert mean == pytest.approx(fractions.mean(axis=0))
    test = bootstrap(lambda i: float(fractions[i["trials"], 2].mean()),
                     Units(runs={"trials": 3}), SETTINGS, "A-F3 t bin 2")  # fmt: skip
    assert (low[2], high[2]) == pytest.approx(test.interval(SETTINGS.alpha))
    # one trial: no whisker (the caption says so), not one of zero width
    one = histogram_intervals(trials[:1], bins, SETTINGS, "A-F3 t")
    assert np.isnan(one[1]).all() and np.isnan(one[2]).all()
    panels = {"t": {"max": trials, "input_avg": trials}}
    series = {"max": "prompt tokens", "input_avg": "Avg."}
    figure = predictivity_histograms(panels, series, "A-F3", {"t": (mean, low, high)}, bins)
    (whiskers,) = [c for c in figure.axes[0].collections if c.get_segments()]
    spans = sorted(tuple(sorted(segment[:, 1])) for segment in whiskers.get_segments())
    np.testing.assert_allclose(spans, sorted(zip(low, high, strict=True)))
    assert legend_outside_every_axis(figure)
    figure = predictivity_histograms({"t": {"max": trials[:1], "input_avg": trials[:1]}},
                                     series, "A-F3", {"t": one}, bins)  # fmt: skip
    assert not any(
        c.get_segments() for c in figure.axes[0].collections if hasattr(c, "get_segments")
    )


def share_rows(seed: int = 0) -> pd.DataFrame:
    """B-F2 results of one group (cls) at two shares: two training tasks (in-domain) and
    one test task (out-of-domain), 25 test samples each."""
    generator = np.random.default_rng(seed)
    rows = []
    for proportion in (0.1, 0.5):
        for task, role in (("a", "id"), ("b", "id"), ("c", "ood")):
            scores = (generator.random(25) < 0.5 + 0.4 * proportion).astype(float)
            rows.append({"group": "cls", "trained": "group", "proportion": proportion,
                         "overlap": float("nan"), "eval_task": task, "eval_group": "cls",
                         "role": role,
                         "score": scores.mean(), "sample_scores": scores.tolist(),
                         "predicted_classes": 2})  # fmt: skip
    return pd.DataFrame(rows)


def test_share_bands_are_the_engine_interval_over_test_samples():
    results = share_rows()
    table = proportion_table(results, {"a": 0.5, "b": 0.5, "c": 0.5})
    named = results.assign(series=np.where(results["role"] == "id", "id_mean", "ood_mean"),
                           panel="cls tasks together")  # fmt: skip
    intervals = share_intervals(named, "panel", SETTINGS)
    estimates = intervals.set_index(["series", "proportion"])["estimate"]
    trained = table[table["proportion"] > 0].set_index("proportion")
    assert estimates["id_mean"].tolist() == pytest.approx(trained["id_mean"].tolist())
    assert estimates["ood_mean"].tolist() == pytest.approx(trained["ood_mean"].tolist())
    chosen = results[(results["role"] == "id") & (results["proportion"] == 0.5)]
    cells = {r.eval_task: np.asarray(r.sample_scores) for r in chosen.itertuples()}
    test = bootstrap(
        lambda i: (
            100 * float(np.mean([v[i[f"{t}: test samples"]].mean() for t, v in cells.items()]))
        ),
        Units(samples={"a: test samples": 25, "b: test samples": 25}),
        SETTINGS,
        "share cls tasks together id_mean 0.5",
    )
    row = intervals[(intervals["series"] == "id_mean") & (intervals["proportion"] == 0.5)]
    assert row[["low", "high"]].iloc[0].tolist() == pytest.approx(test.interval(SETTINGS.alpha))
    figure = proportion_figure({"cls tasks together": table}, "B-F2", intervals, PROPORTION_SERIES)
    axis = figure.axes[0]
    colors = [line.get_color() for line in axis.get_lines()]
    assert colors == [OKABE_ITO["blue"], OKABE_ITO["orange"]]
    id_band = band_edges(bands(axis)[0])
    assert id_band[50.0] == pytest.approx(tuple(row[["low", "high"]].iloc[0]))
    assert 0.0 not in id_band  # the untrained model (zero-shot) has no interval here
    assert legend_outside_every_axis(figure)


def test_share_bands_resample_the_training_runs_above_the_test_samples():
    # three training runs test the same samples; run r gets the first 8 r of each
    # task's 25 samples wrong, so the runs' means differ
    base = share_rows()

    def run(r: int) -> pd.DataFrame:
        scores = [np.where(np.arange(25) < 8 * r, 0.0, v) for v in base["sample_scores"]]
        return with_run(base.assign(sample_scores=scores, score=[v.mean() for v in scores]), r)

    runs = pd.concat([run(0), run(1), run(2)], ignore_index=True)
    named = runs.assign(series=np.where(runs["role"] == "id", "id_mean", "ood_mean"),
                        panel="cls tasks together")  # fmt: skip
    three = share_intervals(named, "panel", SETTINGS)
    one = share_intervals(named[named["run"] == 0], "panel", SETTINGS)
    keys = ["group", "trained", "proportion", "eval_task", "eval_group", "role"]
    averaged = share_intervals(run_means(named, ["panel", "series", *keys]), "panel", SETTINGS)
    assert three["runs"].tolist() == [3] * 4 and one["runs"].tolist() == [1] * 4
    assert averaged["runs"].tolist() == [1] * 4  # the run means: one level, as before
    table = proportion_table(run_means(runs, keys), {"a": 0.5, "b": 0.5, "c": 0.5})
    trained = table[table["proportion"] > 0].set_index("proportion")
    estimates = three.set_index(["series", "proportion"])["estimate"]
    assert estimates["id_mean"].tolist() == pytest.approx(trained["id_mean"].tolist())
    width = {name: frame["high"] - frame["low"] for name, frame in
             (("three", three), ("one", one), ("averaged", averaged))}  # fmt: skip
    # the runs' spread widens every band, also past the bootstrap of the run means
    assert (width["three"] > 1.5 * width["one"]).all()
    assert (width["three"] > 1.5 * width["averaged"]).all()
    # the band is the engine's interval of the claims' statistic, runs > test samples
    chosen = runs[(runs["role"] == "id") & (runs["proportion"] == 0.5)]
    cells = {(r.run, r.eval_task): np.asarray(r.sample_scores) for r in chosen.itertuples()}

    def statistic(i):
        return 100 * float(np.mean([cells[(run, t)][i[f"{t}: test samples"]].mean()
                                    for run in i[RUNS] for t in "ab"]))  # fmt: skip

    units = Units(runs={RUNS: 3}, samples={"a: test samples": 25, "b: test samples": 25})
    test = bootstrap(statistic, units, SETTINGS, "share cls tasks together id_mean 0.5")
    assert test.by_runs and test.levels == 3
    row = three[(three["series"] == "id_mean") & (three["proportion"] == 0.5)]
    assert row[["low", "high"]].iloc[0].tolist() == pytest.approx(test.interval(SETTINGS.alpha))


def continual_results(seed: int = 0):
    """One order of three tasks (x, y, z), SeqFT and NCFT, and per-task FT: 30 test
    samples per task; SeqFT forgets faster."""
    generator = np.random.default_rng(seed)
    order = ["x", "y", "z"]
    rows = []
    for method, keep in (("seqft", 0.5), ("ncft", 0.8)):
        for stage, stage_task in enumerate(order, start=1):
            for task in order[:stage]:
                p = 0.9 if task == stage_task else 0.9 * keep
                correct = generator.random(30) < p
                rows.append({"method": method, "stage": stage, "stage_task": stage_task,
                             "eval_task": task, "accuracy": correct.mean(),
                             "correct": correct.tolist()})  # fmt: skip
    per_task = []
    for task in order:
        correct = generator.random(30) < 0.9
        per_task.append({"eval_task": task, "accuracy": correct.mean(),
                         "correct": correct.tolist()})  # fmt: skip
    return {"order 1": pd.DataFrame(rows)}, pd.DataFrame(per_task)


def test_forgetting_bands_are_the_engine_interval_and_panels_share_axes():
    results, per_task = continual_results()
    results["order 2"] = continual_results(seed=1)[0]["order 1"]
    table = forgetting_table(results, per_task).dropna()
    intervals = forgetting_intervals(results, per_task, SETTINGS)
    merged = table.merge(intervals, on=["order", "method", "stage"])
    assert len(merged) == len(table) == 2 * 2 * 2  # orders x methods x stages 2, 3
    assert merged["estimate"].tolist() == pytest.approx(merged["fg"].tolist())
    frame = results["order 1"]
    ncft = {(r.stage, r.eval_task): np.asarray(r.correct) for r in
            frame[frame["method"] == "ncft"].itertuples()}  # fmt: skip
    own = {r.eval_task: np.asarray(r.correct) for r in per_task.itertuples()}

    def statistic(i):
        drawn = {t: i[f"{t}: test samples"] for t in "xy"}
        return 100 * float(np.mean([ncft[(3, t)][drawn[t]].mean() / own[t][drawn[t]].mean()
                                    for t in "xy"]))  # fmt: skip

    units = Units(samples={"x: test samples": 30, "y: test samples": 30})
    test = bootstrap(statistic, units, SETTINGS, "forgetting order 1 ncft 3")
    row = intervals[(intervals["order"] == "order 1") & (intervals["method"] == "NCFT")
                    & (intervals["stage"] == 3)]  # fmt: skip
    assert row[["low", "high"]].iloc[0].tolist() == pytest.approx(test.interval(SETTINGS.alpha))
    figure = forgetting_figure(table, "B-F4: a long title " * 6, intervals)
    first, second = figure.axes[:2]
    assert first.get_shared_y_axes().joined(first, second)
    assert [line.get_color() for line in first.get_lines()] == [
        line.get_color() for line in second.get_lines()
    ]
    colors = [line.get_color() for line in first.get_lines()]
    band = band_edges(bands(first)[colors.index(colors[1])])  # NCFT, the second line
    assert band[3.0] == pytest.approx(tuple(row[["low", "high"]].iloc[0]))
    assert legend_outside_every_axis(figure)
    # the title wraps to the figure instead of widening it past the panels
    (text,) = [t for t in figure.findobj(Text) if t.get_text() == figure.get_suptitle()]
    assert text.get_window_extent(figure.canvas.get_renderer()).width <= figure.bbox.width


def test_forgetting_bands_resample_the_training_runs_and_match_the_claims():
    # two training runs of the orders, each against its own per-task FT
    results, per_task = continual_results()
    other, other_own = continual_results(seed=7)
    runs = {"order 1": pd.concat([with_run(results["order 1"], 0),
                                  with_run(other["order 1"], 1)], ignore_index=True)}  # fmt: skip
    own = pd.concat([with_run(per_task, 0), with_run(other_own, 1)], ignore_index=True)
    table = forgetting_table(runs, own).dropna()  # SeqFT and NCFT: 2 x stages 2, 3
    each = [forgetting_table(results, per_task).dropna(),
            forgetting_table(other, other_own).dropna()]  # fmt: skip
    # the mean over the runs of each run's FG_j (Eq. 5), not FG_j of the mean accuracies
    assert len(table) == 4
    assert table["fg"].tolist() == pytest.approx(((each[0]["fg"] + each[1]["fg"]) / 2).tolist())
    intervals = forgetting_intervals(runs, own, SETTINGS)
    assert intervals["estimate"].tolist() == pytest.approx(table["fg"].tolist())
    assert intervals["runs"].tolist() == [2] * 4
    frames = [results["order 1"], other["order 1"]]
    ncft = [{(r.stage, r.eval_task): np.asarray(r.correct) for r in
             frame[frame["method"] == "ncft"].itertuples()} for frame in frames]  # fmt: skip
    alone = [{r.eval_task: np.asarray(r.correct) for r in f.itertuples()}
             for f in (per_task, other_own)]  # fmt: skip

    def statistic(i):
        return 100 * float(np.mean([
            np.mean([ncft[run][(3, t)][i[f"{t}: test samples"]].mean()
                     / alone[run][t][i[f"{t}: test samples"]].mean() for t in "xy"])
            for run in i[RUNS]
        ]))  # fmt: skip

    units = Units(runs={RUNS: 2}, samples={"x: test samples": 30, "y: test samples": 30})
    test = bootstrap(statistic, units, SETTINGS, "forgetting order 1 ncft 3")
    row = intervals[(intervals["method"] == "NCFT") & (intervals["stage"] == 3)]
    assert row[["low", "high"]].iloc[0].tolist() == pytest.approx(test.interval(SETTINGS.alpha))
    # B-F4's claims read the same FG_j: NCFT's least gap over SeqFT, at full samples
    fg = table.pivot(index="stage", columns="method", values="fg")
    claims = retention_claims(runs, own, BootstrapSettings(resamples=50, seed=0, min_runs=1))
    gap = (fg["NCFT"] - fg["SeqFT"]).min() / 100
    assert claims[0]["estimate"] == pytest.approx(gap)


def caption(name: str, config: dict) -> str:
    """The caption ``workflow/report/<name>.rst`` as Snakemake's report renders it (Jinja
    with trim_blocks and lstrip_blocks, then docutils' HTML writer), as text."""
    source = (ROOT / f"workflow/report/{name}.rst").read_text()
    snakemake = SimpleNamespace(config=config, wildcards=SimpleNamespace(model="m"))
    rst = Environment(trim_blocks=True, lstrip_blocks=True).from_string(source)
    settings = {"report_level": 2, "halt_level": 5, "warning_stream": False}
    body = publish_parts(rst.render(snakemake=snakemake), writer="html",
                         settings_overrides=settings)["body"]  # fmt: skip
    assert "system-message" not in body, name
    return " ".join(re.sub(r"<[^>]+>", "", body).split())


def one_run(config: dict) -> dict:
    """``config`` with one prompt-tuning and tuning-method trial and one paper-B training
    run (the default has 3 of each)."""
    one = copy.deepcopy(config)
    one["prompt_tuning"]["trials"] = one["prompt_tuning"]["trials_per_pass"] = 1
    one["tuning_methods"]["trials"] = one["controls"]["trials"] = one["paper_b"]["runs"] = 1
    return one


def test_captions_name_the_units_resampled_and_a_unit_of_one_level():
    default = validate_config(yaml.safe_load((ROOT / "config.yaml").read_text()))
    for path in sorted((ROOT / "workflow/report").glob("*.rst")):
        if path.stem != "workflow":
            caption(path.stem, default)  # every caption renders cleanly
    config = one_run(default)
    one = caption("A-F4", config)
    assert "prompt-tuning trials (1, prompt_tuning.trials)" in one
    assert "1 layer-matched, 1 uniform" in one and "test samples (40 per task" in one
    assert "With one trial the variance across training runs is not measured" in one
    assert "95.0% interval" in one
    several = copy.deepcopy(config)
    several["prompt_tuning"]["trials"] = 5
    assert "With one trial" not in caption("A-F4", several)
    assert "No whiskers: one prompt-tuning trial" in caption("A-F3_F9", config)
    assert "over the 5 prompt-tuning trials" in caption("A-F3_F9", several)
    assert "1 per side: one, so their spread is not measured" in caption("AB-F1", config)
    # paper B's bands say whether they hold the runs' spread (config paper_b.runs)
    for name in ("B-F2", "B-F6", "B-F4"):
        assert "One training run (paper_b.runs: 1): the variance across training runs" in (
            caption(name, config)
        )
    for name in ("B-F2", "B-F6", "B-F4"):  # the default: 3 runs
        text = caption(name, default)
        assert "the 3 training runs (paper_b.runs;" in text and "One training run" not in text
