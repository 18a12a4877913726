"""Paper B's claims and the A-vs-B claims on constructed results: a clear effect holds,
no effect is inconclusive, a reversed effect fails (skillneurons.paper_b.findings and the
reports it assembles)."""

import numpy as np
import pandas as pd
import pytest

from skillneurons.neurons.perturbation.curve_table import LAYER_MATCHED
from skillneurons.paper_b.comparison_report import comparison_claims, curve_claims
from skillneurons.paper_b.deactivation_report import (
    DEACTIVATION_SPECIFIC,
    DEACTIVATION_VS_LAYER_MATCHED,
    DEACTIVATION_VS_RANDOM,
)
from skillneurons.paper_b.evaluation import KEYS, result_row, results_frame
from skillneurons.paper_b.findings import generation_claims
from skillneurons.paper_b.neuron_effects import (
    diagonal_control,
    diagonal_dominance,
    effect_matrix,
    random_vs_task,
)
from skillneurons.paper_b.neuron_training_report import (
    TRAINING,
    TRAINING_CONTROL,
    TRAINING_CONTROL_LAYER_MATCHED,
    TRAINING_SPECIFIC,
    TRAINING_VS_LAYER_MATCHED,
)
from skillneurons.paper_b.random_neurons import RANDOM_LAYER_MATCHED
from skillneurons.paper_b.runs import run_means, with_run
from skillneurons.reporting.curves import TaskCurves
from skillneurons.reporting.findings import BootstrapSettings

# min_runs=1: these claims are checked for their effects on one constructed run each.
SETTINGS = BootstrapSettings(resamples=200, alpha=0.05, seed=3, min_runs=1)
TASKS = ["a", "b", "c"]
SAMPLES = 200


def correct_at(accuracy: float, seed: int) -> np.ndarray:
    """``SAMPLES`` booleans, exactly ``accuracy`` of them True, in a seeded order."""
    values = np.arange(SAMPLES) < round(accuracy * SAMPLES)
    return np.random.default_rng(seed).permutation(values)


def deactivation_results(
    own: float, cross: float, random: float, layer_matched: float | None = None
) -> pd.DataFrame:
    """Every task at 0.9 as trained; ``own`` with its own neurons off, ``cross`` with
    another task's, ``random`` with paper B's random neurons (two draws over all layers)
    and ``layer_matched`` (default: ``random``) with two layer-matched draws."""
    layer_matched = random if layer_matched is None else layer_matched
    rows = []
    for index, task in enumerate(TASKS):
        rows.append(result_row("original", "", 0, task, "accuracy", correct_at(0.9, index)))
        for source in TASKS:
            value = own if source == task else cross
            rows.append(
                result_row("task", source, 0, task, "accuracy", correct_at(value, 10 + index))
            )
        for condition, value in (("random", random), (RANDOM_LAYER_MATCHED, layer_matched)):
            for draw in range(2):
                score = correct_at(value, 20 + draw)
                rows.append(result_row(condition, task, draw, task, "accuracy", score))
    return results_frame(rows)


@pytest.mark.parametrize(
    "own, random, verdict",
    [(0.6, 0.85, "holds"), (0.85, 0.85, "negligible"), (0.9, 0.6, "fails")],
)
def test_deactivation_claim_follows_the_random_minus_task_gap(own, random, verdict):
    row = random_vs_task(
        DEACTIVATION_VS_RANDOM, deactivation_results(own, 0.88, random), "random", SETTINGS
    )
    assert row["verdict"] == verdict
    assert row["estimate"] == pytest.approx(random - own, abs=1e-9)
    assert row["ci_low"] <= row["estimate"] <= row["ci_high"]


def test_training_claim_reads_the_task_minus_random_gap():
    # the training results have the same layout: task neurons trained (0.6) beat random
    # ones (0.5) by 0.1 on every task
    row = random_vs_task(TRAINING, deactivation_results(0.6, 0.5, 0.5), "task", SETTINGS)
    assert row["estimate"] == pytest.approx(0.1, abs=1e-9) and row["verdict"] == "holds"


def test_the_papers_rows_read_its_random_sets_and_ours_the_layer_matched_ones():
    # deactivation: own 0.6; paper B's random sets (over all layers) 0.85, the
    # layer-matched ones 0.7: the paper's row 0.25, ours 0.1
    off = deactivation_results(own=0.6, cross=0.88, random=0.85, layer_matched=0.7)
    paper = random_vs_task(DEACTIVATION_VS_RANDOM, off, "random", SETTINGS)
    ours = random_vs_task(
        DEACTIVATION_VS_LAYER_MATCHED, off, "random", SETTINGS, random=RANDOM_LAYER_MATCHED
    )
    assert paper["estimate"] == pytest.approx(0.25, abs=1e-9)
    assert ours["estimate"] == pytest.approx(0.1, abs=1e-9)
    assert (paper["paper"], ours["paper"]) == (
        "§4.1, B-T1",
        "§4.1, B-T1 (ours: layer-matched random neurons)",
    )
    assert ours["claim"].endswith("layer-matched random neurons (ours)")
    assert "ours" not in paper["claim"] + paper["paper"]
    # training: own 0.6; paper B's random sets 0.3, the layer-matched ones 0.6 as well
    trained = deactivation_results(own=0.6, cross=0.5, random=0.3, layer_matched=0.6)
    paper = random_vs_task(TRAINING, trained, "task", SETTINGS)
    ours = random_vs_task(
        TRAINING_VS_LAYER_MATCHED, trained, "task", SETTINGS, random=RANDOM_LAYER_MATCHED
    )
    assert paper["estimate"] == pytest.approx(0.3, abs=1e-9) and paper["verdict"] == "holds"
    assert ours["estimate"] == pytest.approx(0.0, abs=1e-9) and ours["verdict"] == "negligible"
    assert "random draws 2" in ours["resampled"]
    # results written before both kinds were drawn: the layer-matched row is not measured
    old = trained[trained["condition"] != RANDOM_LAYER_MATCHED]
    row = random_vs_task(
        TRAINING_VS_LAYER_MATCHED, old, "task", SETTINGS, random=RANDOM_LAYER_MATCHED
    )
    assert row["verdict"] == "not measured" and "no 'random_layer_matched'" in row["note"]


def test_diagonal_dominance_of_the_drops():
    original = {(0, task): correct_at(0.9, index) for index, task in enumerate(TASKS)}
    specific = deactivation_results(own=0.5, cross=0.88, random=0.85)
    row = diagonal_dominance(DEACTIVATION_SPECIFIC, specific, original, -1.0, SETTINGS)
    # own drop 0.4, other cells of the row and column 0.02: margin 0.38
    assert row["estimate"] == pytest.approx(0.38, abs=1e-9) and row["verdict"] == "holds"
    uniform = deactivation_results(own=0.7, cross=0.7, random=0.85)
    row = diagonal_dominance(DEACTIVATION_SPECIFIC, uniform, original, -1.0, SETTINGS)
    # every cell drops by the same samples: no draw varies, nothing was measured
    assert row["estimate"] == pytest.approx(0.0, abs=1e-9) and row["verdict"] == "not measured"
    assert "never varied" in row["note"]
    one_task = specific[specific["eval_task"] == "a"]
    one_task = one_task[one_task["source"].isin(["", "a"])]
    assert (
        diagonal_dominance(DEACTIVATION_SPECIFIC, one_task, original, -1.0, SETTINGS)["verdict"]
        == "not measured"
    )


def per_run_training(gaps: list[float]) -> pd.DataFrame:
    """B-T2's results of one training run per gap: run ``r``'s task neurons score 0.5 +
    ``gaps[r]`` on their task, its random draws 0.5 (the layout of
    :func:`deactivation_results`, with a ``run`` column)."""
    return pd.concat(
        [with_run(deactivation_results(0.5 + gap, 0.5, 0.5), run) for run, gap in enumerate(gaps)],
        ignore_index=True,
    )


def test_training_runs_are_the_top_unit_and_their_spread_widens_the_interval():
    settings = BootstrapSettings(resamples=400, alpha=0.05, seed=3, min_runs=3)
    runs = per_run_training([0.05, 0.15, 0.25])
    three = random_vs_task(TRAINING, runs, "task", settings)
    one = random_vs_task(TRAINING, runs[runs["run"] == 1], "task", settings)
    # the gap is the mean over the runs; run 1 alone has the same gap
    assert three["estimate"] == pytest.approx(0.15) and one["estimate"] == pytest.approx(0.15)
    assert three["runs"] == 3 and one["runs"] == 1
    assert three["resampled"].endswith(
        "training runs 3 > random draws 2 > a: test samples 200, b: test samples 200, "
        "c: test samples 200"
    )
    assert "training runs 1 (not resampled)" in one["resampled"]
    # the runs' spread (sd 0.1 over 3 runs, t on about 2 degrees of freedom) makes the
    # interval several times as wide as one run's, which sees the test samples only
    width = {n: row["ci_high"] - row["ci_low"] for n, row in (("three", three), ("one", one))}
    assert width["three"] > 3 * width["one"]
    assert width["three"] == pytest.approx(2 * 4.30 * 0.1 / np.sqrt(3), rel=0.25)
    # one run: an interval, but no verdict (findings.min_runs 3)
    assert one["ci_low"] > 0 and one["verdict"] == "inconclusive"
    assert "1 training run: variance across runs not measured" in one["note"]
    assert three["verdict"] == "inconclusive" and "training run" not in three["note"]
    # the same runs, closer together (gaps 0.14-0.16): three runs decide
    close = random_vs_task(TRAINING, per_run_training([0.14, 0.15, 0.16]), "task", settings)
    assert close["verdict"] == "holds" and close["ci_low"] > 0.05


def test_per_run_matrices_against_one_zero_shot_and_the_runs_mean():
    # run 0 as training_matrices below, run 1 with a stronger diagonal (own 0.9): the
    # zero-shot rows (no run column) are the reference of both runs
    frames = [
        with_run(training_matrices(own, 0.5, (0.65, 0.75), 0.4), run)
        for run, own in enumerate((0.8, 0.9))
    ]
    zero_shot = training_matrices(0.8, 0.5, (0.65, 0.75), 0.4)
    zero_shot = zero_shot[zero_shot["condition"] == "zero_shot"]
    runs = pd.concat([*(f[f["condition"] != "zero_shot"] for f in frames)], ignore_index=True)
    untrained = {(run, t): correct_at(0.5, 1) for run in (0, 1) for t in TASKS}
    row = diagonal_dominance(TRAINING_SPECIFIC, runs, untrained, 1.0, SETTINGS)
    # margins 0.3 and 0.4 (own gain over the other cells' 0.0)
    assert row["estimate"] == pytest.approx(0.35) and row["runs"] == 2
    generation = generation_claims(
        deactivation_results(0.6, 0.88, 0.85), pd.concat([runs, zero_shot]), SETTINGS
    )
    assert generation[5]["paper"] == "A.4, B-F5d"
    assert generation[5]["estimate"] == pytest.approx(0.35)
    # tables show the mean over the runs: every cell of run 0 and run 1 averaged
    mean = run_means(runs, KEYS)
    assert len(mean) == len(runs) // 2 and "run" not in mean
    own = mean[(mean["condition"] == "task") & (mean["source"] == mean["eval_task"])]
    assert own["score"].tolist() == pytest.approx([0.85] * 3)
    assert [np.mean(c) for c in own["sample_scores"]] == pytest.approx([0.85] * 3)


def training_matrices(
    own: float,
    cross: float,
    random_own: tuple[float, float],
    random_cross: float,
    layer_matched_own: tuple[float, float] | None = None,
) -> pd.DataFrame:
    """B-T2's results with every training tested on every task (zero-shot 0.5
    everywhere): task ``i``'s neurons trained on ``i`` score ``own`` on ``i`` and
    ``cross`` on the others; paper B's random draw ``d`` trained on ``i`` scores
    ``random_own[d]`` on ``i`` and ``random_cross`` on the others, the layer-matched
    draw ``d`` ``layer_matched_own[d]`` (default: ``random_own``) and ``random_cross``."""
    kinds = {"random": random_own, RANDOM_LAYER_MATCHED: layer_matched_own or random_own}
    rows = [result_row("zero_shot", "", 0, t, "accuracy", correct_at(0.5, 1)) for t in TASKS]
    for index, source in enumerate(TASKS):
        for task in TASKS:
            value = own if task == source else cross
            rows.append(
                result_row("task", source, 0, task, "accuracy", correct_at(value, 10 + index))
            )
            for condition, values in kinds.items():
                for draw, random_value in enumerate(values):
                    value = random_value if task == source else random_cross
                    score = correct_at(value, 20 + draw)
                    rows.append(result_row(condition, source, draw, task, "accuracy", score))
    return results_frame(rows)


def test_diagonal_control_needs_the_task_neurons_to_dominate_more_than_random_ones():
    # random neurons trained on the row's data dominate as much: task margin 0.8 - 0.5,
    # random margins 0.65 - 0.4 and 0.75 - 0.4 (mean 0.3): no effect, not "holds"
    as_much = training_matrices(own=0.8, cross=0.5, random_own=(0.65, 0.75), random_cross=0.4)
    untrained = {(0, task): correct_at(0.5, 1) for task in TASKS}
    # B-F5c's own claim holds there: the diagonal dominates by construction
    plain = diagonal_dominance(TRAINING_CONTROL, as_much, untrained, 1.0, SETTINGS)
    assert plain["estimate"] == pytest.approx(0.3) and plain["verdict"] == "holds"
    row = diagonal_control(TRAINING_CONTROL, as_much, SETTINGS)
    assert row["estimate"] == pytest.approx(0.0, abs=1e-9)
    assert row["verdict"] in ("negligible", "inconclusive")
    assert "random draws 2 > a: test samples 200" in row["resampled"]
    # random neurons barely favour their task: margins 0.64 - 0.5 and 0.66 - 0.5 (0.15)
    more = training_matrices(own=0.8, cross=0.5, random_own=(0.64, 0.66), random_cross=0.5)
    row = diagonal_control(TRAINING_CONTROL, more, SETTINGS)
    assert row["estimate"] == pytest.approx(0.3 - 0.15) and row["verdict"] == "holds"
    # two random draws as far apart as 0.6 and 0.7: a t interval on 1 degree of freedom
    apart = training_matrices(own=0.8, cross=0.5, random_own=(0.6, 0.7), random_cross=0.5)
    assert diagonal_control(TRAINING_CONTROL, apart, SETTINGS)["verdict"] == "inconclusive"
    # the random matrix B-F5c_random shows: mean over draws minus zero-shot, in points
    matrix = effect_matrix(more, {t: 0.5 for t in TASKS}, condition="random")
    np.testing.assert_allclose(
        matrix.set_index("neurons_of").loc[TASKS, TASKS], np.where(np.eye(3), 15.0, 0.0)
    )
    # the layer-matched control (ours) reads the layer-matched matrix: its draws favour
    # their task by 0.25 and 0.35 (mean 0.3), as much as the task's neurons
    both = training_matrices(0.8, 0.5, (0.64, 0.66), 0.5, layer_matched_own=(0.75, 0.85))
    paper = diagonal_control(TRAINING_CONTROL, both, SETTINGS)
    ours = diagonal_control(
        TRAINING_CONTROL_LAYER_MATCHED, both, SETTINGS, random=RANDOM_LAYER_MATCHED
    )
    assert paper["estimate"] == pytest.approx(0.15) and ours["estimate"] == pytest.approx(0.0)
    assert ours["paper"] == "A.4, B-F5c (ours: the control with layer-matched random neurons)"
    matrix = effect_matrix(both, {t: 0.5 for t in TASKS}, condition=RANDOM_LAYER_MATCHED)
    np.testing.assert_allclose(
        matrix.set_index("neurons_of").loc[TASKS, TASKS], np.where(np.eye(3), 30.0, 0.0)
    )
    # results whose random trainings were tested on their own task only
    own_only = more[(more["condition"] != "random") | (more["source"] == more["eval_task"])]
    row = diagonal_control(TRAINING_CONTROL, own_only, SETTINGS)
    assert row["verdict"] == "not measured" and "was not tested on" in row["note"]
    with pytest.raises(ValueError, match="no 'random' result of a's neurons on b"):
        effect_matrix(own_only, {t: 0.5 for t in TASKS}, condition="random")


def generation_results(
    reference: str,
    own: float,
    cross: float,
    random: float,
    random_cross: float = 0.2,
    layer_matched: float | None = None,
) -> pd.DataFrame:
    """Generation results of tasks ``a`` and ``b``, every per-sample ROUGE-L 0.2 in the
    ``reference`` rows (``zero_shot`` or ``original``); ``own`` with the task's neurons
    trained or deactivated, ``cross`` on the other task, ``random`` with paper B's
    random neurons (two draws), ``layer_matched`` (default: ``random``) with two
    layer-matched draws, ``random_cross`` with either on the other task."""
    layer_matched = random if layer_matched is None else layer_matched
    kinds = {"random": random, RANDOM_LAYER_MATCHED: layer_matched}
    rows = []
    for task in ("a", "b"):
        other = "ab".replace(task, "")
        rows.append((reference, "", 0, task, 0.2))
        rows += [("task", task, 0, task, own), ("task", task, 0, other, cross)]
        for condition, value in kinds.items():
            rows += [(condition, task, draw, task, value) for draw in range(2)]
            rows += [(condition, task, draw, other, random_cross) for draw in range(2)]
    frame = pd.DataFrame(rows, columns=["condition", "source", "draw", "eval_task", "score"])
    noise = np.random.default_rng(7).normal(0.0, 0.05, (len(frame), SAMPLES))
    noise -= noise.mean(axis=1, keepdims=True)  # every row's mean stays its score
    frame["sample_scores"] = list(frame["score"].to_numpy()[:, None] + noise)
    return frame.assign(metric="rouge_l")


def test_generation_claims_read_per_sample_rouge():
    # deactivation: own 0.05, random 0.15, cross 0.18 (from 0.2 as trained); training:
    # own 0.5, random 0.3, cross 0.25 (from 0.2 zero-shot)
    # layer-matched random sets: 0.1 when deactivated, 0.4 when trained
    off = generation_results("original", own=0.05, cross=0.18, random=0.15, layer_matched=0.1)
    trained = generation_results("zero_shot", own=0.5, cross=0.25, random=0.3, layer_matched=0.4)
    rows = generation_claims(off, trained, SETTINGS)
    assert [row["paper"] for row in rows] == [
        "§4.1, B-T1 (generation)", "§4.1, B-T1 (generation; ours: layer-matched random neurons)",
        "§4.2, B-T2 (generation)", "§4.2, B-T2 (generation; ours: layer-matched random neurons)",
        "A.4, B-F5b", "A.4, B-F5d", "A.4, B-F5d (control; ours)",
        "A.4, B-F5d (ours: the control with layer-matched random neurons)",
    ]  # fmt: skip
    # random - own 0.1 (layer-matched 0.05); task - random 0.2 (layer-matched 0.1); own
    # drop 0.15 - other drops 0.02; own gain 0.3 - other gains 0.05; that margin 0.25 -
    # random's (gain 0.1, others 0) 0.15, - the layer-matched sets' (gain 0.2) 0.05
    expected = [0.1, 0.05, 0.2, 0.1, 0.13, 0.25, 0.15, 0.05]
    assert [row["estimate"] for row in rows] == pytest.approx(expected)
    # B-F5d's raw diagonal dominates by construction: described, not decided
    assert [row["verdict"] for row in rows] == ["holds"] * 5 + ["not decidable here"] + [
        "holds"
    ] * 2
    assert "by construction" in rows[5]["note"]
    trained = generation_results("zero_shot", own=0.3, cross=0.5, random=0.3)
    rows = generation_claims(off, trained, SETTINGS)
    assert rows[2]["estimate"] == pytest.approx(0.0) and rows[2]["verdict"] == "negligible"
    assert rows[5]["estimate"] == pytest.approx(-0.2)
    assert rows[5]["verdict"] == "not decidable here"
    assert rows[6]["estimate"] == pytest.approx(-0.3) and rows[6]["verdict"] == "fails"
    assert rows[7]["estimate"] == pytest.approx(-0.3) and rows[7]["verdict"] == "fails"


def agreement_of(rho: float, jaccard: float) -> dict:
    return {"spearman": rho, "jaccard": jaccard, "jaccard_chance": 0.1 / 1.9}


def test_rank_agreement_claims_resample_the_trials_and_the_tasks():
    # one value in every trial and task: nothing varied
    same = {task: [agreement_of(0.5, 0.3)] * 3 for task in TASKS}
    rows = comparison_claims(same, SETTINGS)
    assert [row["estimate"] for row in rows] == pytest.approx([0.5, 0.3 - 0.1 / 1.9])
    assert [row["verdict"] for row in rows] == ["not measured"] * 2
    rng = np.random.default_rng(0)
    varied = {
        task: [agreement_of(0.5 + 0.05 * rng.standard_normal(), 0.3) for _ in range(3)]
        for task in TASKS
    }
    rows = comparison_claims(varied, SETTINGS)
    rhos = [[trial["spearman"] for trial in varied[task]] for task in TASKS]
    assert rows[0]["estimate"] == pytest.approx(np.mean(rhos))
    assert rows[0]["verdict"] == "holds" and rows[0]["runs"] == 3
    assert rows[0]["resampled"].endswith(": trials 3; fixed: tasks 3")
    assert rows[0]["ci_low"] < rows[0]["estimate"] < rows[0]["ci_high"]
    # the trials are the top unit: a spread across trials widens the interval
    spread = {task: [agreement_of(rho, 0.3) for rho in (0.1, 0.5, 0.9)] for task in TASKS}
    wide = comparison_claims(spread, SETTINGS)[0]
    assert wide["ci_high"] - wide["ci_low"] > rows[0]["ci_high"] - rows[0]["ci_low"]
    # one trial: the min_runs rule keeps the claim from deciding
    strict = BootstrapSettings(resamples=200, alpha=0.05, seed=3, min_runs=3)
    one = comparison_claims({task: values[:1] for task, values in varied.items()}, strict)
    assert one[0]["verdict"] == "inconclusive" and one[0]["runs"] == 1
    assert comparison_claims(varied, strict)[0]["verdict"] == "holds"
    with pytest.raises(ValueError, match="numbers of trials"):
        comparison_claims({"a": [agreement_of(0.5, 0.3)], "b": []}, SETTINGS)


def test_curve_claims_compare_each_order_with_its_random_control_and_each_other():
    rates = np.array([0.0, 0.1])

    def curve(end: float, seed: int, repeats: int = 1) -> np.ndarray:
        start = correct_at(0.9, 0)
        return np.stack(
            [[[start, correct_at(end, seed + r)] for r in range(repeats)]]
        )  # [trials 1, repeats, rates, samples]

    curves = {
        task: TaskCurves(
            rates,
            {
                ("task", "paper_a"): curve(0.8, 1),
                ("task", "paper_b"): curve(0.4, 2),
                (LAYER_MATCHED, "random_paper_a"): curve(0.8, 3, repeats=2),
                (LAYER_MATCHED, "random_paper_b"): curve(0.8, 5, repeats=2),
            },
        )
        for task in TASKS
    }
    a_order, b_order, a_over_b = curve_claims(curves, SETTINGS)
    # areas: trapezoids over [0, 0.1]: (0.9 + end) / 2 * 0.1
    assert a_order["estimate"] == pytest.approx(0.0, abs=1e-9)
    assert a_order["verdict"] == "negligible"  # well inside the margin of 0.02
    assert b_order["estimate"] == pytest.approx(0.02) and b_order["verdict"] == "holds"
    assert a_over_b["estimate"] == pytest.approx(-0.02) and a_over_b["verdict"] == "fails"
