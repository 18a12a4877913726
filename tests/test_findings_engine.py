"""The findings engine's statistics: each source of variance counted once, fixed units,
intersection-union claims, t p-values that reach Holm's levels, verdict words by the
claim's kind, primary and exploratory families, and the design report."""

import numpy as np
import pytest
from scipy import stats

from skillneurons.reporting.findings import (
    COLUMNS,
    DESIGN,
    TEST,
    BootstrapSettings,
    Claim,
    Design,
    Units,
    bootstrap,
    decide,
    design_columns,
    every,
    findings_frame,
    holm,
)
from skillneurons.reporting.findings import Test as Bootstrapped
from skillneurons.reporting.findings import (
    Tested as Decision,
)

SETTINGS = BootstrapSettings(resamples=400, alpha=0.05, seed=3, min_runs=1)
CLAIM = Claim("x is positive", "§0", "mean of x", "samples", margin=0.2, margin_basis="test")
SAMPLES = Units(samples={"samples": 200}, training_runs=3)


def mean_of(values, unit="samples"):
    return lambda indices: float(values[indices[unit]].mean())


def test_the_bootstrap_is_reproducible_from_its_seed_and_paired():
    values = np.random.default_rng(1).normal(0.2, 1.0, 60)
    units = Units(samples={"samples": 60})
    first = bootstrap(mean_of(values), units, SETTINGS, "a")
    assert first == bootstrap(mean_of(values), units, SETTINGS, "a")
    assert first.runs != bootstrap(mean_of(values), units, SETTINGS, "b").runs
    other = BootstrapSettings(resamples=400, alpha=0.05, seed=4)
    assert first.runs != bootstrap(mean_of(values), units, other, "a").runs
    # Paired: a difference of two noisy quantities sharing their noise has no spread,
    # so nothing varied and the claim is not measured.
    shared = values + 5.0
    row = decide(
        CLAIM,
        lambda i: float(shared[i["samples"]].mean() - values[i["samples"]].mean()),
        units,
        SETTINGS,
    )
    assert row["verdict"] == "not measured" and "never varied" in row["note"]
    assert row["estimate"] == pytest.approx(5.0)


def test_a_few_runs_get_the_textbook_t_interval():
    per_run = np.array([1.0, 2.0, 3.0])
    units = Units(runs={"runs": 3})
    settings = BootstrapSettings(resamples=4000, seed=0, min_runs=3)
    test = bootstrap(mean_of(per_run, "runs"), units, settings)
    assert test.levels == 3 and test.df == 2 and test.shared == 0
    # The textbook t interval of three values: 2 +- t_{2, 0.975} * 1 / sqrt(3) = 2 +- 2.48.
    half = stats.t.ppf(0.975, 2) / np.sqrt(3)
    low, high = test.interval(0.05)
    assert (high + low) / 2 == pytest.approx(2.0)
    assert (high - low) / 2 == pytest.approx(half, rel=0.05)


def crossed(generator, runs, samples, run_sd, sample_sd, noise_sd, shift=0.0):
    """``x[r, s] = shift + a_r + b_s + e_rs``: runs crossed with samples (the same
    samples under every run), each source with its own spread; the statistic is the mean
    over the drawn runs and samples (weights, so that repeats count)."""
    x = (
        shift
        + run_sd * generator.standard_normal((runs, 1))
        + sample_sd * generator.standard_normal((1, samples))
        + noise_sd * generator.standard_normal((runs, samples))
    )

    def statistic(i):
        r = np.bincount(i["runs"], minlength=runs) / len(i["runs"])
        n = np.bincount(i["samples"], minlength=samples) / len(i["samples"])
        return float(r @ x @ n)

    return statistic, Units(runs={"runs": runs}, samples={"samples": samples})


@pytest.mark.parametrize(
    ("run_sd", "sample_sd", "noise_sd"),
    [(0.0, 0.0, 1.0), (0.0, 1.0, 0.3), (1.0, 0.0, 0.3)],
    ids=["within-run noise", "shared samples", "runs"],
)
def test_each_source_of_variance_is_counted_once(run_sd, sample_sd, noise_sd):
    """The estimate's variance is run_sd^2 / R + sample_sd^2 / S + noise_sd^2 / (R S).
    The spread of the runs holds each run's own sample noise (the third term) already;
    the engine's SE^2 must not add it again (resampling every unit at once counts it
    about three times), and must add the samples' common effect that the runs' spread
    cannot show. Averaged over 150 simulated data sets, SE^2 is the true variance
    within 15%."""
    runs, samples = 5, 40
    truth = run_sd**2 / runs + sample_sd**2 / samples + noise_sd**2 / (runs * samples)
    generator = np.random.default_rng(11)
    settings = BootstrapSettings(resamples=200, seed=1)
    squared = []
    for _ in range(150):
        statistic, units = crossed(generator, runs, samples, run_sd, sample_sd, noise_sd)
        squared.append(bootstrap(statistic, units, settings).se ** 2)
    assert np.mean(squared) == pytest.approx(truth, rel=0.15), (np.mean(squared), truth)


def test_tasks_that_define_the_estimand_are_fixed():
    seen = []
    values = np.arange(12.0).reshape(3, 4)  # [trials, tasks]

    def statistic(i):
        seen.append(i["tasks"].tolist())
        return float(values[np.ix_(i["trials"], i["tasks"])].mean())

    units = Units(runs={"trials": 3}, fixed={"tasks": 4})
    test = bootstrap(statistic, units, SETTINGS, "fixed")
    assert seen and all(drawn == [0, 1, 2, 3] for drawn in seen)
    # the spread is the trials' alone: trial means 1.5, 5.5, 9.5 (sd 4) over 3 trials
    assert test.se == pytest.approx(4 / np.sqrt(3), rel=0.1) and test.df == 2
    assert units.describe() == "trials 3; fixed: tasks 4"


def test_every_part_is_an_intersection_union_test():
    claim = Claim("x holds in every part", "§0", "x", "parts", margin=0.1, key="every")
    generator = np.random.default_rng(5)
    settings = BootstrapSettings(resamples=300, seed=2, min_runs=3)

    def part(name, shift):
        statistic, units = crossed(generator, 3, 50, 0.02, 0.02, 0.05, shift)
        return name, statistic, units

    a, b = part("a", 1.0), part("b", 0.5)
    both = every(claim, [a, b], settings)
    assert both["verdict"] == "holds" and both["estimate"] == pytest.approx(0.5, abs=0.05)
    assert both["ci_low"] > 0.35 and "b +0.50" in both["note"] and "a +0.97" in both["note"]
    each = [bootstrap(s, u, settings, f"{claim.claim} / {n}").tested(0.1) for n, s, u in (a, b)]
    assert both[TEST].holds == max(t.holds for t in each)  # the IUT's p-value
    assert both[TEST].fails == min(1.0, 2 * min(t.fails for t in each))
    one_null = every(claim, [a, part("b", 0.0)], settings)
    assert one_null["verdict"] in ("inconclusive", "negligible") and one_null["ci_low"] < 0
    assert every(claim, [a, part("b", -0.5)], settings)["verdict"] == "fails"
    alone = every(claim, [a], settings, unit="order")
    assert alone["verdict"] == "not decidable here" and "one order" in alone["note"]
    assert alone[TEST] is None


def test_p_values_reach_holms_first_level_of_a_large_family():
    """A clear effect gets a p-value far below alpha / 27 (Holm's first level of 27
    claims): a percentile p-value of 1,000 resamples could not go below 2 / 1001."""
    values = np.random.default_rng(3).normal(0.5, 0.2, (27, 200))
    rows = [
        decide(Claim(f"c{i}", "§0", "x", "s", margin=0.05), mean_of(v), SAMPLES, SETTINGS)
        for i, v in enumerate(values)
    ]
    assert max(row[TEST].p for row in rows) < 0.05 / 27 / 1000
    frame = findings_frame(rows, 0.05)
    assert (frame["verdict"] == "holds").all()
    assert frame["alpha"].min() == pytest.approx(0.05 / 27)


def test_verdict_words_by_the_claims_kind():
    def test(estimate, se):
        return Bootstrapped(estimate, 3, "runs", se**2, df_runs=1e6, by_runs=True)

    margin = 0.1
    assert test(0.05, 0.01).tested(margin).verdict(0.05) == "holds, below margin"
    assert test(0.5, 0.01).tested(margin).verdict(0.05) == "holds"
    assert test(-0.05, 0.01).tested(margin).verdict(0.05) == "fails, within margin"
    assert test(-0.5, 0.01).tested(margin).verdict(0.05) == "fails"
    assert test(0.0, 0.01).tested(margin).verdict(0.05) == "negligible"
    assert test(0.05, 0.1).tested(margin).verdict(0.05) == "inconclusive"
    equivalence = "equivalence"
    assert test(0.05, 0.01).tested(margin, equivalence).verdict(0.05) == "comparable"
    assert test(-0.3, 0.01).tested(margin, equivalence).verdict(0.05) == "not comparable"
    assert test(0.1, 0.05).tested(margin, equivalence).verdict(0.05) == "inconclusive"


def test_holm_steps_down_and_stops_at_the_first_claim_it_cannot_decide():
    def row(p_effect):
        # the one-sided p-value of "holds" is half the two-sided one
        tested = Decision("directional", p_effect / 2, 1.0, 1.0, 1.0)
        return {column: None for column in COLUMNS} | {TEST: tested}

    decided = holm([row(0.04), row(0.01), row(0.02)], 0.05)
    assert [r["verdict"] for r in decided] == ["holds"] * 3
    assert [r["alpha"] for r in decided] == pytest.approx([0.05, 0.05 / 3, 0.025])
    # 0.03 > 0.025 stops the step-down: 0.04 below its own 0.05 decides nothing.
    stopped = holm([row(0.04), row(0.01), row(0.03)], 0.05)
    assert [r["verdict"] for r in stopped] == ["inconclusive", "holds", "inconclusive"]
    untested = {column: None for column in COLUMNS} | {"verdict": "not measured", TEST: None}
    assert holm([untested, row(0.04)], 0.05)[1]["alpha"] == 0.05  # untested: not counted


def test_families_are_adjusted_apart_primary_first():
    values = np.random.default_rng(8).normal(0.4, 0.2, (5, 200))
    rows = [
        decide(
            Claim(f"c{i}", "§0", "x", "s", margin=0.05, key=f"k{i}"),
            mean_of(v),
            SAMPLES,
            SETTINGS,
        )
        for i, v in enumerate(values)
    ]
    frame = findings_frame(rows, 0.05, primary={"k3", "k1"})
    assert frame["family"].tolist() == ["primary"] * 2 + ["exploratory"] * 3
    assert frame["key"].tolist() == ["k1", "k3", "k0", "k2", "k4"]
    assert sorted(frame["alpha"][:2]) == pytest.approx([0.025, 0.05])
    assert sorted(frame["alpha"][2:]) == pytest.approx([0.05 / 3, 0.025, 0.05])


def test_the_design_report_says_what_would_decide_a_claim():
    """Sample-dominated: more test samples decide it; run-dominated: more runs decide
    it, and no number of samples does. The power is the noncentral t's at twice the
    margin, and the runs named reach it where one fewer does not."""
    generator = np.random.default_rng(21)
    settings = BootstrapSettings(resamples=400, seed=3, min_runs=3)
    claim = Claim("x", "§0", "x", "s", margin=0.05, key="x")
    by_samples = decide(claim, *crossed(generator, 3, 40, 0.0, 0.6, 0.3), settings)
    by_runs = decide(claim, *crossed(generator, 3, 40, 0.15, 0.0, 0.05), settings)
    frame = findings_frame([by_samples, by_runs], 0.05)
    samples_row, runs_row = frame.iloc[0], frame.iloc[1]
    assert samples_row["share_samples"] > 0.8 and runs_row["share_runs"] > 0.8
    assert 40 < samples_row["samples_needed"] < 100_000
    assert np.isnan(runs_row["samples_needed"])  # the runs' own spread stays
    assert 3 < runs_row["runs_needed"] < 1000
    design = by_runs[DESIGN][0]
    se, df = design.se(3)
    critical = stats.t.ppf(1 - runs_row["alpha"] / 2, df)
    assert runs_row["power"] == pytest.approx(stats.nct.sf(critical, df, 2 * 0.05 / se))
    needed = int(runs_row["runs_needed"])
    assert design.power(0.05, "directional", runs_row["alpha"], needed) >= 0.8
    assert design.power(0.05, "directional", runs_row["alpha"], needed - 1) < 0.8


def test_the_design_report_projects_the_sizes_that_decide_at_the_estimate():
    """Runs only, SE(r) = 0.2 / sqrt(r) with r - 1 df, margin 0.2, level 0.05: at an
    estimate of 0.1 (half the margin) the interval must be narrower than 0.1, so
    t(r - 1) / sqrt(r) < 0.5: 18 runs (2.110 / 4.243), not 17 (2.120 / 4.123), though
    5 runs give 80% power were the effect 0.4. An estimate of 0.3 needs < 1.5: 5 runs
    (2.776 / 2.236), not 4 (3.182 / 2). An equivalence claim at 0.05 needs < 0.15, so
    t / sqrt(r) < 0.75: 10 runs (2.262 / 3.162), not 9 (2.306 / 3)."""
    design = Design("training runs", 4, 0, own=0.01, draws=0.0, within=0.0, shared=0.0)

    def columns(estimate, kind="directional"):
        return design_columns([design], 0.2, kind, 0.05, estimate)

    assert columns(0.1)["runs_at_estimate"] == 18 and columns(0.1)["runs_needed"] == 5
    assert columns(-0.1)["runs_at_estimate"] == 18  # fails or negligible: the same room
    assert columns(0.3)["runs_at_estimate"] == 5
    assert columns(0.05, "equivalence")["runs_at_estimate"] == 10
    assert np.isnan(columns(0.1)["samples_at_estimate"])  # no per-sample results
    # no variance measured: no power, and no size projected at the estimate either
    still = Design("training runs", 4, 0, own=0.0, draws=0.0, within=0.0, shared=0.0)
    assert np.isnan(design_columns([still], 0.2, "directional", 0.05, 0.1)["runs_at_estimate"])
    # an every-X claim's parts have estimates of their own: no projection of the row's
    assert np.isnan(design_columns([design, design], 0.2, "directional", 0.05, 0.1)[
        "runs_at_estimate"])  # fmt: skip
