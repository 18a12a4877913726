"""The findings engine calibrated on simulated claims.

Each shape mimics a claim of the tables, nested like them: training runs (prompt trials)
> random draws (orders) > test samples, with a spread between runs (each run's own
effect) and between draws, and the arms of a contrast paired on the same samples:

- paired areas: the central claim's area under a random order's accuracy curve minus
  the own order's, on per-sample correctness at three rates;
- difference of means: a score of two arms (B-T1's accuracies, B-T5's CL), the samples'
  noise dominating, or the runs' (their spread three times the samples'), or heavy
  tailed (t with 3 degrees of freedom);
- unequal binary tasks: right/wrong per sample on two tasks of 25 and 70 test samples;
- correlations: per run, Pearson's r of two measures over test samples (B-T4, AB-T1);
- matrix diagonals: per run, a task x task matrix of per-sample scores, the diagonal
  minus the other cells of its row and column (B-F5);
- label-word pairs: a mean over the pairs of distinct drawn runs (§4.4's agreement);
- every order: an intersection-union claim over two orders, one with no effect.

With no effect "holds" (above 0, below the margin or not) must come at most 2.5% of the
time (one side of a 95% interval) plus twice the Monte-Carlo error. The engine's t
interval takes only the bootstrap's variances from the resamples, so fewer resamples
only add Monte-Carlo noise to the standard error, which widens the tails: calibrating
at :data:`RESAMPLES` (200) is stricter than at the default's 1,000, and
:func:`test_fewer_resamples_give_the_same_intervals` shows the intervals agree.

Power: at each primary claim's own margin and the default's sizes, a claim with twice
its margin as effect is decided as often as the design report's power formula says
(:class:`skillneurons.reporting.findings.Design`, with the simulation's true variance
components); the rates are printed (``pytest -s``). One run against three: one run
never claims anything under ``min_runs``, and without the rule its false "holds" are
far above 2.5%.
"""

import zlib
from collections.abc import Callable

import numpy as np
import pytest

from skillneurons.reporting.findings import (
    EQUIVALENCE,
    BootstrapSettings,
    Claim,
    Design,
    Units,
    bootstrap,
    decide,
    every,
)

pytestmark = pytest.mark.slow

RUNS, DRAWS, SAMPLES = 3, 3, 40
#: The resamples of the calibration (module docstring).
RESAMPLES = 200
SETTINGS = BootstrapSettings(resamples=RESAMPLES, seed=0, min_runs=3)
#: One-sided level of "holds" (the 95% interval's lower side).
LEVEL = 0.025
HOLDS = ("holds", "holds, below margin")

Shape = Callable[[np.random.Generator, float, int], tuple[Callable, Units]]


def _units(runs: int, draws: int, samples: int) -> Units:
    return Units(
        runs={"runs": runs},
        draws={"draws": draws} if draws else {},
        samples={"samples": samples},
    )


def _weights(indices, name: str, size: int) -> np.ndarray:
    """How often each level of a unit is drawn, over the draw's size: the mean over
    drawn levels of any per-level array is its dot product with these weights."""
    return np.bincount(indices[name], minlength=size) / len(indices[name])


def _nested_mean(values: np.ndarray, runs: int, draws: int, samples: int):
    """The statistic: the mean of ``values[runs, draws, samples]`` over the drawn levels."""

    def statistic(i):
        r, d, n = (
            _weights(i, *u) for u in (("runs", runs), ("draws", draws), ("samples", samples))
        )
        return float(np.einsum("r,d,n,rdn->", r, d, n, values))

    return statistic


def paired_areas(rng, effect: float, runs: int):
    """Per-sample correctness at rates 0, .1, .2 of an own and a random order; the
    random order's accuracy exceeds the own's by ``effect / 0.2`` (an area ``effect``),
    plus the runs' and draws' own spread."""
    rates = np.array([0.0, 0.1, 0.2])
    base = np.array([0.8, 0.65, 0.55])[None, None, :, None]
    gap = (
        effect / 0.2
        + 0.1 * rng.standard_normal((runs, 1))
        + 0.05 * rng.standard_normal((runs, DRAWS))
    )
    shape = (runs, DRAWS, len(rates), SAMPLES)
    own = rng.random(shape) < base
    random = rng.random(shape) < np.clip(base + gap[:, :, None, None], 0, 1)
    # Trapezoid weights of the rates: the area is linear in the accuracies.
    difference = np.einsum("k,rdkn->rdn", np.array([0.05, 0.1, 0.05]), random - 1.0 * own)
    return _nested_mean(difference, runs, DRAWS, SAMPLES), _units(runs, DRAWS, SAMPLES)


def difference_of_means(rng, effect: float, runs: int, run_sd=0.1, noise=None):
    """Two arms' per-sample scores, the same samples' difficulty in both; ``run_sd`` the
    runs' own spread of the effect (draws half of it); ``noise`` draws the per-sample
    noise (standard normal by default)."""
    noise = noise or rng.standard_normal
    difficulty = rng.standard_normal(SAMPLES)
    gap = (
        effect
        + run_sd * rng.standard_normal((runs, 1))
        + 0.5 * run_sd * rng.standard_normal((runs, DRAWS))
    )
    low = difficulty + noise((runs, DRAWS, SAMPLES))
    high = difficulty + gap[:, :, None] + noise((runs, DRAWS, SAMPLES))
    return _nested_mean(high - low, runs, DRAWS, SAMPLES), _units(runs, DRAWS, SAMPLES)


def run_dominated(rng, effect: float, runs: int):
    """The runs' spread three times the per-sample noise's spread of a run's mean."""
    return difference_of_means(rng, effect, runs, run_sd=3 * np.sqrt(2 / SAMPLES))


def heavy_tailed(rng, effect: float, runs: int):
    """Per-sample noise from t with 3 degrees of freedom."""
    return difference_of_means(rng, effect, runs, noise=lambda size: rng.standard_t(3, size))


def unequal_binary(rng, effect: float, runs: int):
    """Right/wrong per test sample on two tasks of 25 and 70 samples, each arm's
    accuracy per task, the effect the mean over the tasks of the arms' gap."""
    sizes = {"a": 25, "b": 70}
    gap = effect + 0.03 * rng.standard_normal(runs)
    arms = {}
    for task, size in sizes.items():
        ease = rng.uniform(0.4, 0.95, size)
        low = rng.random((runs, size)) < ease
        high = rng.random((runs, size)) < np.clip(ease + gap[:, None], 0, 1)
        arms[task] = high - 1.0 * low

    def statistic(i):
        r = _weights(i, "runs", runs)
        return float(np.mean([r @ d @ _weights(i, t, sizes[t]) for t, d in arms.items()]))

    return statistic, Units(runs={"runs": runs}, samples=sizes)


CORRELATED = 60


def correlations(rng, effect: float, runs: int):
    """Per run, two measures over the samples correlated at ``effect`` plus a run's own
    spread; the effect is the mean over runs of Pearson's r."""
    rho = np.clip(effect + 0.1 * rng.standard_normal(runs), -0.95, 0.95)
    x = rng.standard_normal((runs, CORRELATED))
    y = rho[:, None] * x + np.sqrt(1 - rho[:, None] ** 2) * rng.standard_normal(x.shape)
    moments = np.stack([x, y, x * x, y * y, x * y])  # [5, runs, samples]

    def statistic(i):
        mx, my, mxx, myy, mxy = moments @ _weights(i, "samples", CORRELATED)  # [5, runs]
        r = (mxy - mx * my) / np.sqrt((mxx - mx**2) * (myy - my**2))
        return float(_weights(i, "runs", runs) @ r)

    return statistic, _units(runs, 0, CORRELATED)


def matrix_diagonals(rng, effect: float, runs: int, tasks: int = 3):
    """Per run and draw, a ``tasks x tasks`` matrix of per-sample scores; the diagonal
    cells gain ``effect`` (plus spreads); the effect is each diagonal cell minus the
    mean of the other cells of its row and column, task mean."""
    gap = effect + 0.1 * rng.standard_normal((runs, 1)) + 0.05 * rng.standard_normal((runs, DRAWS))
    eye = np.eye(tasks)[None, None, :, :, None]
    cells = (
        rng.standard_normal((runs, DRAWS, tasks, tasks, SAMPLES))
        + gap[..., None, None, None] * eye
    )
    # Cell (i, j) enters task i's and task j's margin with -1 / (2 (tasks - 1)) when i
    # != j, its own with +1: the statistic is linear in the cell means.
    contrast = (np.eye(tasks) * (1 + 1 / (tasks - 1)) - 1 / (tasks - 1)) / tasks
    folded = np.einsum("ij,rdijn->rdn", contrast, cells)
    return _nested_mean(folded, runs, DRAWS, SAMPLES), _units(runs, DRAWS, SAMPLES)


def label_word_pairs(rng, effect: float, runs: int):
    """§4.4's shape: five draws (the runs), a value per draw, the statistic the mean
    over the pairs of distinct drawn draws of the pair's mean value."""
    draws = 5
    values = effect + 0.1 * rng.standard_normal(draws)

    def statistic(i):
        chosen = i["label-word draws"]
        a, b = np.triu_indices(len(chosen), k=1)
        distinct = chosen[a] != chosen[b]
        pairs = (values[chosen[a]] + values[chosen[b]])[distinct] / 2
        return float(pairs.mean()) if pairs.size else float("nan")

    return statistic, Units(runs={"label-word draws": draws})


SHAPES = {
    "paired areas": (paired_areas, 0.03),
    "difference of means": (difference_of_means, 0.25),
    "run-dominated": (run_dominated, 0.5),
    "heavy-tailed": (heavy_tailed, 0.35),
    "unequal binary": (unequal_binary, 0.05),
    "correlations": (correlations, 0.22),
    "matrix diagonals": (matrix_diagonals, 0.25),
    "label-word pairs": (label_word_pairs, 0.1),
}


def _rng(name: str, effect: float, runs: int) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(name.encode()), int(1000 * effect), runs])


def rates(name: str, margin: float, effect: float, runs: int, sims: int, **settings):
    """The verdicts' frequencies over ``sims`` simulations of ``SHAPES[name]``
    (``settings`` override :data:`SETTINGS`)."""
    shape = SHAPES[name][0]
    rng = _rng(name, effect, runs)
    claim = Claim("simulated", "", "", "", margin=margin)
    chosen = BootstrapSettings(**{**SETTINGS.__dict__, **settings})
    verdicts = [decide(claim, *shape(rng, effect, runs), chosen)["verdict"] for _ in range(sims)]
    found = {v: verdicts.count(v) / sims for v in set(verdicts)}
    print(f"{name}, effect {effect}, {runs} runs: {found}")
    return found


def _limit(sims: int) -> float:
    return LEVEL + 2 * np.sqrt(LEVEL * (1 - LEVEL) / sims)


@pytest.mark.parametrize("name", list(SHAPES))
def test_no_effect_rarely_holds(name):
    shape, margin = SHAPES[name]
    sims = 400
    found = rates(name, margin, 0.0, RUNS, sims)
    false = sum(found.get(v, 0) for v in HOLDS)
    assert false <= _limit(sims), f"{name}: false holds {found} (limit {_limit(sims):.3f})"


def test_every_order_holds_only_where_every_order_does():
    """An intersection-union claim over two orders, one with a clear effect, one with
    none: "holds" at most 2.5% (plus Monte-Carlo error), where a t interval around the
    smaller of the two estimates (the plug-in minimum) is biased low and a mean over
    the orders would hold almost always."""
    rng = np.random.default_rng(31)
    claim = Claim("every order", "", "", "", margin=0.25)
    sims, held, mean_held = 300, 0, 0
    for _ in range(sims):
        strong = difference_of_means(rng, 1.0, RUNS)
        null = difference_of_means(rng, 0.0, RUNS)
        row = every(claim, [("o1", *strong), ("o2", *null)], SETTINGS, unit="order")
        held += row["verdict"] in HOLDS
        mean = decide(claim, lambda i, a=strong[0], b=null[0]: (a(i) + b(i)) / 2, strong[1],
                      SETTINGS)  # fmt: skip
        mean_held += mean["verdict"] in HOLDS
    print(f"every order: holds {held / sims:.3f}; the mean over orders holds {mean_held / sims}")
    assert held / sims <= _limit(sims)
    assert mean_held / sims > 0.5  # the mean is a different claim: it holds


def test_fewer_resamples_give_the_same_intervals():
    """The calibration's 200 resamples against the default's 1,000: the half-widths of
    the same data sets agree within 3% on average (the t interval reads only the
    bootstrap's variances)."""
    ratios = []
    for name, (shape, _) in SHAPES.items():
        rng = _rng(name, 0.5, RUNS)
        for _ in range(5):
            statistic, units = shape(rng, 0.0, RUNS)
            few = bootstrap(statistic, units, SETTINGS, name)
            many = bootstrap(statistic, units, BootstrapSettings(resamples=1000), name)
            ratios.append(few.se / many.se)
    print(
        f"SE with 200 / with 1000 resamples: mean {np.mean(ratios):.3f}, sd {np.std(ratios):.3f}"
    )
    assert abs(np.mean(ratios) - 1) < 0.03


#: Each primary claim's margin (its Claim's), its kind, and a shape with its spreads at
#: the default's sizes: (name, margin, kind, runs, run spread, per-sample spread).
PRIMARY = [
    ("comparable (A-T1)", 0.03, EQUIVALENCE, 3, 0.01, 0.0),
    ("central (A-F4)", 0.02, "directional", 3, 0.006, 0.15),
    ("pretraining (A-T3)", 0.15, "directional", 3, 0.05, 0.9),
    ("deactivation_vs_random (B-T1)", 0.044, "directional", 3, 0.02, 0.45),
    ("training (B-T2)", 0.142, "directional", 3, 0.06, 0.6),
    ("training_control (B-F5c)", 0.05, "directional", 3, 0.02, 0.6),
    ("ncft_vs_seqft (B-T5)", 0.121, "directional", 3, 0.05, 0.7),
    ("rank_correlation (AB-T1)", 0.1, "directional", 3, 0.04, 0.0),
]


@pytest.mark.parametrize(("name", "margin", "kind", "runs", "run_sd", "sample_sd"), PRIMARY)
def test_power_at_each_primary_claims_margin_is_what_the_design_report_says(
    name, margin, kind, runs, run_sd, sample_sd
):
    """A claim of each primary claim's margin and kind at the default's sizes (its runs,
    40 test samples crossed with them where it has per-sample results): the effect twice
    the margin (an equivalence claim: 0), its runs spread by ``run_sd``, each sample's
    score by ``sample_sd``. The rate at which the engine decides it (holds; comparable)
    over 200 simulations is the design report's power from the true components, within
    0.1; both are printed."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    effect = 0.0 if kind == EQUIVALENCE else 2 * margin
    claim = Claim(name, "", "", "", margin=margin, kind=kind)
    wanted = ("comparable",) if kind == EQUIVALENCE else HOLDS
    settings = BootstrapSettings(resamples=RESAMPLES, seed=1, min_runs=3)
    sims, decided = 200, 0
    for _ in range(sims):
        per_run = effect + run_sd * rng.standard_normal(runs)
        if sample_sd:
            scores = per_run[:, None] + sample_sd * rng.standard_normal((runs, SAMPLES))
            units = Units(runs={"runs": runs}, samples={"samples": SAMPLES})

            def statistic(i, scores=scores):
                return float(scores[i["runs"]][:, i["samples"]].mean())
        else:
            units = Units(runs={"runs": runs})

            def statistic(i, values=per_run):
                return float(values[i["runs"]].mean())

        decided += decide(claim, statistic, units, settings)["verdict"] in wanted
    own = run_sd**2 / runs
    within = sample_sd**2 / (runs * SAMPLES)
    design = Design("runs", runs, SAMPLES if sample_sd else 0, own, 0.0, within, 0.0)
    predicted = design.power(margin, kind, 0.05, runs)
    print(f"{name}: decided {decided / sims:.3f}, design report's power {predicted:.3f}")
    assert decided / sims == pytest.approx(predicted, abs=0.1)


def test_one_run_claims_nothing_where_three_can():
    """Runs that differ more than the samples' noise: one run's own effect passes for
    the claim's unless ``min_runs`` stops it; three runs are calibrated."""
    margin = SHAPES["run-dominated"][1]
    one = rates("run-dominated", margin, 0.0, 1, 100)
    assert one == {"inconclusive": 1.0}, one
    strong = rates("run-dominated", margin, 4 * margin, 1, 50)
    assert strong == {"inconclusive": 1.0}, strong
    unguarded = rates("run-dominated", margin, 0.0, 1, 200, min_runs=1)
    assert sum(unguarded.get(v, 0) for v in HOLDS) > 0.1, f"1 run, min_runs 1: {unguarded}"
    three = rates("run-dominated", margin, 0.0, 3, 200)
    assert sum(three.get(v, 0) for v in HOLDS) <= _limit(200), three
