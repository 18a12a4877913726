"""The findings engine: every claim of a paper decided with a calibrated test.

A claim is an **effect with a direction** (positive when the claim holds) and a
**margin** in the effect's own units: the smallest effect that would matter, from the
paper's own effect where it reports one (half of it), else a documented smallest effect
of interest (DESIGN.md, "Verdicts").

**Units.** A claim declares what replicates as a hierarchy (:class:`Units`), outermost
first: training runs (prompt trials, seeds, label-word draws) > random draws nested in
each run (its own random orders or neuron sets) > test samples, crossed with the runs
(the same test samples under every run). Units that define the estimand (the tasks of a
"mean over tasks") are **fixed**: the statistic always reads all of them and they are
never resampled, so a "mean over these tasks" is not treated as a draw from a
population of tasks. The statistic receives indices (unit name -> int64 indices;
``np.arange(n)`` for the estimate) and recomputes everything that depends on them
inside each resample, e.g. a mean over the drawn runs.

**Each source of variance counted once.** Let the top level be the outermost unit with
at least two levels (``k`` runs). The spread between runs already contains each run's
own noise (its random draws, its samples' noise within the run), so:

- ``V_runs``: the jackknife variance of the statistic over the top level (each run
  left out in turn, every other unit at its full set: the textbook ``s^2 / k`` for a
  mean over runs, with no Monte-Carlo noise; the bootstrap of the top level alone,
  times ``k / (k - 1)``, where a run cannot be left out), with ``k - 1`` degrees of
  freedom;
- ``V_shared``: what the runs share and their spread cannot show, the test samples
  crossed with them. With the crossed units resampled (the same draw for every run),
  the statistic is evaluated on each run alone; the mean covariance between two
  different runs' values is the variance of the samples' common effect, with up to
  ``S - 1`` degrees of freedom (``S`` the largest crossed unit; fewer where the runs'
  own sample noise blurs the covariance: :func:`shared_df`). The within-run part of the
  samples' noise is in ``V_runs`` already and is not added again;
- ``SE^2 = V_runs + V_shared``, its degrees of freedom Welch-Satterthwaite's, and the
  interval ``estimate +- t_{df, 1-a/2} SE``.

Where the top level is not a training run (a claim on an untrained model, a claim
whose runs have one level), each unit's share is its own bootstrap variance (resampled
alone, times ``n / (n - 1)``, ``n - 1`` degrees of freedom), the shares add up, and
``df`` is Welch-Satterthwaite's.

**Design report.** Per run, the random draws alone and the samples alone are resampled
too: their variances split ``V_runs`` into the runs' own spread, the draws' and the
samples' noise within a run (the shares ``share_runs``, ``share_draws``,
``share_samples``, the last with ``V_shared``). From them :class:`Design` projects the
standard error to other numbers of runs and test samples, and finds the runs
(``runs_needed``, of the unit ``run_unit``) or test samples per task
(``samples_needed``) at which the claim
would be decided with :data:`POWER` probability were its effect :data:`DESIGN_EFFECT`
times its margin (an equivalence claim: were it 0), at the claim's level. That plan
says nothing of a run whose effect lies between 0 and the margin, where only a narrower
interval decides: ``runs_at_estimate`` and ``samples_at_estimate`` are the sizes at which
an interval of the projected width, centred on the observed estimate, would decide the
claim (:meth:`Design.decides_at`), a projection of the point estimate, not a power.

**Verdicts**, at a level ``a`` (Holm-adjusted, below), each one-sided test at ``a / 2``
so that a verdict is what the two-sided ``1 - a`` interval shows:

``holds``                 the interval lies above 0;
``holds, below margin``   above 0 and below the margin: present, but smaller than the
                          smallest effect that matters (both tests pass; naming only one
                          would hide either that the effect is real or that it is small);
``fails``                 the interval lies below 0;
``fails, within margin``  below 0 and above ``-margin``;
``negligible``            the interval lies inside ``+-margin`` (two one-sided tests);
``comparable``            an equivalence claim ("about as accurate"): inside ``+-margin``;
``not comparable``        an equivalence claim whose interval lies beyond ``+margin`` or
                          beyond ``-margin``;
``inconclusive``          otherwise, or fewer training runs than ``min_runs`` (a claim on
                          an untrained model excepted);
``not decidable here``    the unit that would vary has one level in this configuration
                          (one order, two training tasks, a noise floor above the
                          compared value): the note says which; no Holm slot;
``not measured``          the stage did not run, or every resample gave the same value.

**Every X** (:func:`every`): a claim that must hold in each of several parts (every
order, every stage) is an intersection-union test: it holds where every part holds at
the claim's level (its p-value the largest of the parts'), fails where some part fails
(the smallest, times the number of parts), is negligible where every part is. The row
shows the weakest part's estimate and interval, the note every part's.

**Families.** Each paper declares a small primary family (config ``findings.primary``:
its headline claims by key); Holm's step-down runs over the primary family and, apart,
over the exploratory rest, on p-values from the t distribution (they reach any level).
The ``m`` tested claims of a family, sorted by ``p``, are decided at ``a / m``,
``a / (m - 1)``, ...; the first claim not decided stops the step-down and every later
one is inconclusive. The table shows each claim's adjusted level (``alpha``) beside the
unadjusted (nominal ``1 - a``) interval ``ci_low`` / ``ci_high``.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

NOT_DECIDABLE = "not decidable here"
VERDICTS = (
    "holds",
    "holds, below margin",
    "fails",
    "fails, within margin",
    "negligible",
    "comparable",
    "not comparable",
    "inconclusive",
    NOT_DECIDABLE,
    "not measured",
)
#: A claim's kinds: an effect with a direction, or an equivalence ("about as accurate").
DIRECTIONAL, EQUIVALENCE = "directional", "equivalence"
#: The two families of a findings table (Holm runs within each).
PRIMARY, EXPLORATORY = "primary", "exploratory"
#: Columns of a findings table: the claim, its family, the decision, the design report.
COLUMNS = [
    "claim",
    "key",
    "family",
    "paper",
    "effect",
    "estimate",
    "ci_low",
    "ci_high",
    "margin",
    "alpha",
    "verdict",
    "runs",
    "resampled",
    "share_runs",
    "share_draws",
    "share_samples",
    "half_width",
    "power",
    "run_unit",
    "runs_needed",
    "samples_needed",
    "runs_at_estimate",
    "samples_at_estimate",
    "note",
    "paper_value",
]
#: ``Units.training_runs`` of a claim that no training stands behind (paper B's B-T8:
#: the base model's task neurons): ``min_runs`` does not apply.
NO_TRAINING = 0
#: The design report's target: the probability of deciding a claim ...
POWER = 0.8
#: ... were its effect this many times its margin (an equivalence claim: were it 0).
DESIGN_EFFECT = 2.0
#: Sizes the design report searches up to (runs; test samples per task).
MOST_RUNS, MOST_SAMPLES = 1000, 100_000
#: The note of an every-X claim (:func:`every`): its estimate is its weakest part's,
#: so no size is projected at it.
INTERSECTION_UNION = "intersection-union test"
#: The row keys of a claim's test and its bootstraps (dropped from the table).
TEST, DESIGN = "_test", "_design"

Statistic = Callable[[Mapping[str, np.ndarray]], float]


@dataclass(frozen=True)
class Claim:
    """A claim as the findings table shows it.

    ``claim`` in the paper's words; ``paper`` where it is made (section, figure IDs);
    ``effect`` what is measured, signed so that positive supports the claim;
    ``resampled`` the resampling units in words; ``paper_value`` the paper's number;
    ``margin`` the smallest effect that matters, in the effect's units, and
    ``margin_basis`` where it comes from ("half the paper's effect (Fig. 4)"); ``key``
    the claim's name in config ``findings.primary`` (the papers' registries list them);
    ``kind`` :data:`DIRECTIONAL` or :data:`EQUIVALENCE`.
    """

    claim: str
    paper: str
    effect: str
    resampled: str
    paper_value: str = ""
    margin: float = float("nan")
    margin_basis: str = ""
    key: str = ""
    kind: str = DIRECTIONAL


@dataclass(frozen=True)
class Units:
    """A claim's resampling units, outermost first: ``runs`` (training runs: prompt
    trials, seeds, random models), ``draws`` (random orders, neuron sets: each run's
    own) and ``samples`` (test samples, crossed with the runs), each mapping a unit's
    name to its size; ``fixed`` the units that define the estimand (tasks), never
    resampled. ``training_runs`` is how many training runs stand behind the claim
    (default: the size of the first run unit, else 1), also where the runs are not
    resampled; :data:`NO_TRAINING` (0) for a claim on an untrained model, whose units
    that replicate are not runs (``min_runs`` does not apply to it)."""

    runs: Mapping[str, int] = field(default_factory=dict)
    draws: Mapping[str, int] = field(default_factory=dict)
    samples: Mapping[str, int] = field(default_factory=dict)
    fixed: Mapping[str, int] = field(default_factory=dict)
    training_runs: int | None = None

    @property
    def levels(self) -> dict[str, int]:
        """Every resampled unit, outermost first."""
        return {**self.runs, **self.draws, **self.samples}

    @property
    def run_count(self) -> int:
        if self.training_runs is not None:
            return self.training_runs
        return next(iter(self.runs.values()), 1)

    def top(self) -> tuple[str, int] | None:
        """The outermost unit with at least 2 levels (the interval's top level)."""
        return next(((n, s) for n, s in self.levels.items() if s >= 2), None)

    def full(self) -> dict[str, np.ndarray]:
        """Every unit, fixed ones included, at its full set of levels."""
        sizes = {**self.levels, **self.fixed}
        return {name: np.arange(size, dtype=np.int64) for name, size in sizes.items()}

    def describe(self) -> str:
        """The hierarchy with its sizes: ``trials 3 > random orders 3 > t: test samples
        80; fixed: tasks 3``; units of size 1 are marked as not resampled."""
        parts = []
        for units in (self.runs, self.draws, self.samples):
            shown = [f"{n} {s}" + (" (not resampled)" if s == 1 else "") for n, s in units.items()]
            if shown:
                parts.append(", ".join(shown))
        text = " > ".join(parts)
        if self.fixed:
            fixed = ", ".join(f"{n} {s}" for n, s in self.fixed.items())
            text = f"{text}; fixed: {fixed}" if text else f"fixed: {fixed}"
        return text


@dataclass(frozen=True)
class BootstrapSettings:
    """Config ``findings``: resamples, two-sided alpha, seed, min_runs."""

    resamples: int = 1000
    alpha: float = 0.05
    seed: int = 0
    min_runs: int = 3


@dataclass(frozen=True)
class Tested:
    """The one-sided p-values of a claim's tests, and its kind: ``holds`` rejects
    "effect <= 0", ``fails`` "effect >= 0", ``negligible`` "|effect| >= margin" (both
    one-sided tests), ``beyond`` "|effect| <= margin" on the side of the estimate."""

    kind: str
    holds: float
    fails: float
    negligible: float
    beyond: float

    @property
    def p(self) -> float:
        """The smallest two-sided level at which the claim gets a verdict (Holm's order)."""
        if self.kind == EQUIVALENCE:
            return min(1.0, 2 * min(self.negligible, self.beyond))
        return min(1.0, 2 * min(self.holds, self.fails, self.negligible))

    def verdict(self, alpha: float) -> str:
        """The verdict at two-sided level ``alpha`` (module docstring)."""
        level = alpha / 2
        if self.kind == EQUIVALENCE:
            if self.negligible <= level:
                return "comparable"
            return "not comparable" if self.beyond <= level else "inconclusive"
        small = self.negligible <= level
        if self.holds <= level:
            return "holds, below margin" if small else "holds"
        if self.fails <= level:
            return "fails, within margin" if small else "fails"
        return "negligible" if small else "inconclusive"


@dataclass(frozen=True)
class Test:
    """A claim's bootstrap: the estimate, the top level's name and size ``k`` (0: no
    unit resampled), and the variance components of the estimate (module docstring):
    ``runs`` the top level's (``V_runs``, the runs' spread with their own noise in it),
    ``shared`` the crossed samples' common effect, ``within_draws`` and
    ``within_samples`` the parts of ``runs`` that each run's random draws and its
    samples' noise make; ``df_runs`` and ``df_shared`` their degrees of freedom;
    ``samples`` the size of the largest crossed sample unit (0: none)."""

    estimate: float
    levels: int
    top: str = ""
    runs: float = 0.0
    shared: float = 0.0
    within_draws: float = 0.0
    within_samples: float = 0.0
    df_runs: float = np.inf
    df_shared: float = np.inf
    samples: int = 0
    by_runs: bool = False

    @property
    def se(self) -> float:
        return float(np.sqrt(self.runs + self.shared))

    @property
    def df(self) -> float:
        """Welch-Satterthwaite's degrees of freedom of :attr:`se`, never below the runs'
        (a shared part near 0, whose estimate is mostly noise, must not take them away)."""
        welch = _satterthwaite([(self.runs, self.df_runs), (self.shared, self.df_shared)])
        return max(welch, self.df_runs) if self.by_runs else welch

    @property
    def degenerate(self) -> bool:
        """Nothing resampled, or every resample gave the same value (units that never
        varied)."""
        scale = max(1.0, abs(self.estimate))
        return self.levels == 0 or self.se <= 1e-12 * scale

    def interval(self, alpha: float) -> tuple[float, float]:
        """The two-sided ``1 - alpha`` t interval."""
        half = stats.t.ppf(1 - alpha / 2, self.df) * self.se
        return self.estimate - half, self.estimate + half

    def tested(self, margin: float, kind: str = DIRECTIONAL) -> Tested:
        """The one-sided p-values of :class:`Tested` from the t distribution."""
        se, df, estimate = self.se, self.df, self.estimate
        holds = float(stats.t.sf(estimate / se, df))
        fails = float(stats.t.cdf(estimate / se, df))
        if not np.isfinite(margin) or margin <= 0:
            return Tested(kind, holds, fails, 1.0, 1.0)
        below, above = (estimate - margin) / se, (estimate + margin) / se
        negligible = max(float(stats.t.cdf(below, df)), float(stats.t.sf(above, df)))
        beyond = min(float(stats.t.sf(below, df)), float(stats.t.cdf(above, df)))
        return Tested(kind, holds, fails, negligible, beyond)

    def design(self) -> Design | None:
        """The projection of :attr:`se` to other sizes (None where the runs do not
        replicate: the top level is not a training run)."""
        if not self.by_runs or self.degenerate:
            return None
        own = max(self.runs - self.within_draws - self.within_samples, 0.0)
        return Design(
            unit=self.top,
            runs=self.levels,
            samples=self.samples,
            own=own,
            draws=self.within_draws,
            within=self.within_samples,
            shared=self.shared,
        )


def _satterthwaite(parts: Sequence[tuple[float, float]]) -> float:
    """The degrees of freedom of a sum of variance estimates ``(variance, df)``."""
    total = sum(variance for variance, _ in parts)
    denominator = sum(v**2 / df for v, df in parts if v > 0 and np.isfinite(df))
    return total**2 / denominator if denominator > 0 else np.inf


@dataclass(frozen=True)
class Design:
    """The variance of a claim's estimate by source, at ``runs`` training runs (the unit
    ``unit``: prompt trials, seeds, label-word draws) and ``samples`` test samples (per
    crossed unit; 0: no per-sample results): ``own`` the
    runs' own spread, ``draws`` and ``within`` the random draws' and the samples' noise
    within a run (all three over ``runs``), ``shared`` the samples' common effect."""

    unit: str
    runs: int
    samples: int
    own: float
    draws: float
    within: float
    shared: float

    def shares(self) -> tuple[float, float, float]:
        """The shares of the variance from the runs, the draws and the samples."""
        total = self.own + self.draws + self.within + self.shared
        if total <= 0:
            return (np.nan, np.nan, np.nan)
        return self.own / total, self.draws / total, (self.within + self.shared) / total

    def se(self, runs: int, samples: int | None = None) -> tuple[float, float]:
        """(SE, df) at ``runs`` runs and ``samples`` samples (default: as measured)."""
        scale = 1.0 if not self.samples or samples is None else self.samples / samples
        per_run = (self.own + self.draws + self.within * scale) * self.runs / runs
        shared = self.shared * scale
        within = self.within * self.runs * scale  # one run's own sample noise
        df_shared = shared_df(shared, within, runs, samples or self.samples)
        df = max(_satterthwaite([(per_run, runs - 1), (shared, df_shared)]), runs - 1)
        return float(np.sqrt(per_run + shared)), df

    def power(self, margin: float, kind: str, alpha: float, runs: int, samples=None) -> float:
        """The probability that the claim is decided at two-sided level ``alpha`` with
        ``runs`` runs and ``samples`` samples, were its effect :data:`DESIGN_EFFECT`
        times ``margin`` (an equivalence claim: 0; decided: comparable)."""
        se, df = self.se(runs, samples)
        if not (np.isfinite(margin) and margin > 0) or se <= 0 or runs < 2:
            return float("nan")
        critical = stats.t.ppf(1 - alpha / 2, df)
        if kind == EQUIVALENCE:
            return float(max(0.0, 2 * stats.t.cdf(margin / se - critical, df) - 1))
        return float(stats.nct.sf(critical, df, DESIGN_EFFECT * margin / se))

    def decides_at(
        self, estimate: float, margin: float, kind: str, alpha: float, runs: int, samples=None
    ) -> bool:
        """Whether an interval at two-sided level ``alpha`` with ``runs`` runs and
        ``samples`` samples, centred on ``estimate``, would decide the claim: its
        half-width below the distance to the nearest verdict's bound (0 for holds and
        fails, ``margin - |estimate|`` for negligible; an equivalence claim:
        ``margin - |estimate|`` for comparable, ``|estimate| - margin`` for not
        comparable); False where :meth:`power` is NaN (no margin, no variance, one run)."""
        se, df = self.se(runs, samples)
        if not (np.isfinite(margin) and margin > 0 and np.isfinite(estimate)):
            return False
        if se <= 0 or runs < 2:
            return False
        size = abs(estimate)
        room = abs(size - margin) if kind == EQUIVALENCE else max(size, margin - size)
        return bool(stats.t.ppf(1 - alpha / 2, df) * se < room)


def _smallest(decided: Callable[[int], bool], start: int, most: int) -> int | None:
    """The smallest ``n`` in ``[start, most]`` with ``decided(n)`` (monotone), or None."""
    if not decided(most):
        return None
    low, high = start, most
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if decided(middle) else (middle + 1, high)
    return low


def design_columns(
    designs: Sequence[Design | None],
    margin: float,
    kind: str,
    alpha: float,
    estimate: float = np.nan,
) -> dict[str, float]:
    """The design report's columns of a claim (the product of its parts' powers for an
    :func:`every` claim): the variance shares, the power at the measured sizes, the
    runs (at the measured samples) and samples (at the measured runs) that reach
    :data:`POWER`, and those at which an interval centred on ``estimate`` would decide
    it (one part only: an :func:`every` claim's parts have estimates of their own);
    NaN where they cannot be projected (no replicated runs, no margin, no per-sample
    results, or out of reach)."""
    empty = dict.fromkeys(
        ["share_runs", "share_draws", "share_samples", "power", "runs_needed", "samples_needed",
         "runs_at_estimate", "samples_at_estimate"],
        np.nan,
    ) | {"run_unit": ""}  # fmt: skip
    if not designs or any(d is None for d in designs):
        return empty

    def power(runs: int, samples=None) -> float:
        return float(np.prod([d.power(margin, kind, alpha, runs, samples) for d in designs]))

    first = designs[0]
    runs_needed = _smallest(lambda r: power(r) >= POWER, 2, MOST_RUNS)
    samples_needed = None
    if first.samples and all(d.samples for d in designs):
        samples_needed = _smallest(lambda s: power(first.runs, s) >= POWER, 2, MOST_SAMPLES)
    at_estimate: dict[str, int | None] = {"runs": None, "samples": None}
    if len(designs) == 1:

        def decides(runs: int, samples=None) -> bool:
            return first.decides_at(estimate, margin, kind, alpha, runs, samples)

        at_estimate["runs"] = _smallest(decides, 2, MOST_RUNS)
        if first.samples:
            at_estimate["samples"] = _smallest(lambda s: decides(first.runs, s), 2, MOST_SAMPLES)
    shares = np.array([d.shares() for d in designs]).mean(axis=0)
    return {
        "share_runs": shares[0],
        "share_draws": shares[1],
        "share_samples": shares[2],
        "power": power(first.runs),
        "run_unit": first.unit,
        "runs_needed": np.nan if runs_needed is None else runs_needed,
        "samples_needed": np.nan if samples_needed is None else samples_needed,
        **{
            f"{n}_at_estimate": np.nan if size is None else size for n, size in at_estimate.items()
        },
    }


def bootstrap(
    statistic: Statistic, units: Units, settings: BootstrapSettings, stream: str = ""
) -> Test:
    """The bootstrap of ``statistic`` (module docstring); ``stream`` names the claim, so
    that each has its own reproducible draws. NaN draws are left out."""
    full = units.full()
    estimate = float(statistic(full))
    top = units.top()
    if not np.isfinite(estimate) or top is None:
        return Test(estimate, 0)
    name, k = top
    generator = np.random.default_rng([settings.seed, zlib.crc32(stream.encode())])
    levels = units.levels
    resampled = [n for n, size in levels.items() if size > 1]

    def draw(names: Collection[str]) -> dict[str, np.ndarray]:
        return {n: generator.integers(0, levels[n], levels[n]) for n in names}

    def variance(names: Collection[str]) -> float:
        values = np.array([statistic({**full, **draw(names)}) for _ in range(settings.resamples)])
        values = values[np.isfinite(values)]
        return float(np.var(values)) if values.size else 0.0

    if name not in units.runs:
        # no replicated runs: each unit's own share, resampled alone (independent strata
        # such as each task's test samples add up exactly; crossed ones are overcounted
        # by their interaction, on the safe side)
        parts = [(variance([n]) * levels[n] / (levels[n] - 1), levels[n] - 1.0) for n in resampled]
        total = sum(v for v, _ in parts)
        return Test(estimate, k, name, total, df_runs=_satterthwaite(parts))
    nested = [n for n in resampled if n in units.draws]
    crossed = [n for n in resampled if n != name and n not in nested]
    runs = _jackknife(statistic, full, name, k)
    if not np.isfinite(runs):
        runs = variance([name]) * k / (k - 1)
    within_draws = _within(statistic, full, name, k, nested, draw, settings)[0] if nested else 0.0
    shared, within_samples, samples = 0.0, 0.0, 0
    if crossed:
        per_run, between = _within(statistic, full, name, k, crossed, draw, settings)
        samples = max(levels[n] for n in crossed)
        shared = max(between, 0.0)
        within_samples = max(per_run - between, 0.0) / k
    return Test(
        estimate,
        k,
        name,
        runs,
        shared,
        within_draws / k,
        within_samples,
        k - 1.0,
        shared_df(shared, within_samples * k, k, samples),
        samples,
        by_runs=True,
    )


def shared_df(shared: float, within: float, runs: int, samples: int) -> float:
    """The degrees of freedom of ``V_shared``, the mean covariance of the runs' values
    over ``samples`` resampled samples, where each run's own sample noise has variance
    ``within`` (per run). The covariance of ``P = runs (runs - 1) / 2`` pairs of runs
    carries their noise too: its variance is about ``2 (shared + within / sqrt(P))^2 /
    (samples - 1)``, so ``df = (samples - 1) shared^2 / (shared + within / sqrt(P))^2``:
    ``samples - 1`` where the samples' common effect dominates, near 0 where there is
    none (a covariance of pure noise must not lend the interval the samples' degrees of
    freedom)."""
    if not samples or shared <= 0:
        return np.inf if not samples else 1.0
    pairs = runs * (runs - 1) / 2
    return (samples - 1) * shared**2 / (shared + within / np.sqrt(pairs)) ** 2


def _jackknife(statistic, full, top: str, k: int) -> float:
    """The jackknife variance over the ``k`` levels of ``top``: ``(k - 1) / k`` times the
    sum of squares of the leave-one-out values about their mean (``s^2 / k`` exactly for
    a mean over the levels, with no Monte-Carlo noise); NaN where a leave-one-out value
    cannot be computed (a statistic over pairs of two levels)."""
    values = np.array(
        [statistic({**full, top: np.delete(full[top], level)}) for level in range(k)]
    )
    if not np.isfinite(values).all():
        return float("nan")
    return float((k - 1) / k * np.sum((values - values.mean()) ** 2))


def _within(statistic, full, top, k, names, draw, settings) -> tuple[float, float]:
    """Each top level alone, with the units ``names`` resampled (one draw shared by every
    level): the mean over levels of the statistic's variance, and the mean covariance
    between two levels' values, each times ``n / (n - 1)`` (``n`` the smallest size
    among ``names``: the bootstrap's bias of a mean of ``n``)."""
    values = np.empty((settings.resamples, k))
    for resample in range(settings.resamples):
        indices = {**full, **draw(names)}
        for level in range(k):
            values[resample, level] = statistic({**indices, top: np.array([level])})
    values = values[np.isfinite(values).all(axis=1)]
    if len(values) < 2:
        return 0.0, 0.0
    size = min(len(full[n]) for n in names)
    covariance = np.cov(values, rowvar=False, bias=True) * size / (size - 1)
    off = covariance[~np.eye(k, dtype=bool)]
    return float(np.mean(np.diag(covariance))), float(np.mean(off))


def _runs_note(runs: int) -> str:
    return f"{runs} training run{'s' if runs != 1 else ''}: variance across runs not measured"


def _row(claim: Claim, estimate: float, units: Units) -> dict:
    return {
        **dict.fromkeys(COLUMNS, np.nan),
        "claim": claim.claim,
        "key": claim.key,
        "family": "",
        "paper": claim.paper,
        "effect": claim.effect,
        "estimate": estimate,
        "margin": claim.margin,
        "verdict": "not measured",
        "runs": units.run_count,
        "resampled": f"{claim.resampled}: {units.describe()}",
        "note": "",
        "paper_value": claim.paper_value,
        TEST: None,
        DESIGN: (),
        "_kind": claim.kind,
    }


def _judge(row: dict, tests: Sequence[Test], tested: Tested, claim: Claim, units, settings):
    """``row`` decided at the nominal level from ``tested``, or inconclusive under
    ``min_runs``; the bootstraps kept for the design report."""
    basis = claim.margin_basis and f"margin: {claim.margin_basis}"
    row = {**row, DESIGN: tuple(test.design() for test in tests)}
    if units.run_count != NO_TRAINING and units.run_count < settings.min_runs:
        row = with_note({**row, "verdict": "inconclusive"}, _runs_note(units.run_count))
        return with_note(row, basis)
    return with_note({**row, "verdict": tested.verdict(settings.alpha), TEST: tested}, basis)


def decide(claim: Claim, statistic: Statistic, units: Units, settings: BootstrapSettings) -> dict:
    """One row of a findings table for ``claim``: :data:`COLUMNS` with the verdict at the
    nominal level, and the claim's test under :data:`TEST` for :func:`findings_frame`'s
    Holm step-down (``None``: the claim is not tested). The note says why a claim is
    not tested, then where its margin comes from."""
    test = bootstrap(statistic, units, settings, claim.claim)
    row = _row(claim, test.estimate, units)
    basis = claim.margin_basis and f"margin: {claim.margin_basis}"
    if not np.isfinite(test.estimate):
        return with_note(row, "the effect could not be computed")
    if test.levels == 0:
        if units.run_count != NO_TRAINING and units.run_count < settings.min_runs:
            row = with_note({**row, "verdict": "inconclusive"}, _runs_note(units.run_count))
            return with_note(row, basis)
        return with_note(with_note(row, "no unit has two levels: nothing varied"), basis)
    if test.degenerate:
        never = "every resample gave the same value: the units never varied"
        return with_note(with_note(row, never), basis)
    row["ci_low"], row["ci_high"] = test.interval(settings.alpha)
    row["half_width"] = (row["ci_high"] - row["ci_low"]) / 2
    return _judge(row, [test], test.tested(claim.margin, claim.kind), claim, units, settings)


def every(
    claim: Claim,
    parts: Sequence[tuple[str, Statistic, Units]],
    settings: BootstrapSettings,
    unit: str = "part",
    mean_row: bool = True,
) -> dict:
    """A claim that must hold in every one of ``parts`` (``(name, statistic, units)``),
    decided as an intersection-union test (module docstring). With one part the claim
    is that part's: where the table has a row for the mean over the parts
    (``mean_row``), the same claim again, so ``not decidable here`` (the ``unit``
    named, no Holm slot); else that part decided alone."""
    if len(parts) == 1 and not mean_row:
        return decide(claim, parts[0][1], parts[0][2], settings)
    if len(parts) < 2:
        row = _row(claim, float("nan"), parts[0][2] if parts else Units())
        return refuse(row, f"one {unit}: the claim is its mean row", NOT_DECIDABLE)
    tests = [bootstrap(statistic, units, settings, f"{claim.claim} / {name}")
             for name, statistic, units in parts]  # fmt: skip
    units = parts[0][2]
    weakest = int(np.nanargmin([test.estimate for test in tests]))
    row = _row(claim, tests[weakest].estimate, units)
    if any(not np.isfinite(t.estimate) or t.degenerate for t in tests):
        which = [name for (name, _, _), t in zip(parts, tests, strict=True)
                 if not np.isfinite(t.estimate) or t.degenerate]  # fmt: skip
        return with_note(row, f"no interval for {', '.join(which)}: its units never varied")
    intervals = [test.interval(settings.alpha) for test in tests]
    row["ci_low"], row["ci_high"] = intervals[weakest]
    row["half_width"] = (row["ci_high"] - row["ci_low"]) / 2
    shown = "; ".join(
        f"{name} {t.estimate:+.4f} [{low:+.4f}, {high:+.4f}]"
        for (name, _, _), t, (low, high) in zip(parts, tests, intervals, strict=True)
    )
    row = with_note(row, f"every {unit} ({INTERSECTION_UNION}; weakest shown): {shown}")
    each = [test.tested(claim.margin, claim.kind) for test in tests]
    count = len(each)
    tested = Tested(
        claim.kind,
        holds=max(t.holds for t in each),
        fails=min(1.0, count * min(t.fails for t in each)),
        negligible=max(t.negligible for t in each),
        beyond=min(1.0, count * min(t.beyond for t in each)),
    )
    return _judge(row, tests, tested, claim, units, settings)


def with_note(row: dict, note: str) -> dict:
    """``row`` with ``note`` added to its notes."""
    return {**row, "note": "; ".join(filter(None, [row["note"], note]))}


def refuse(row: dict, note: str, verdict: str = "not measured") -> dict:
    """``row`` taken out of the test (its interval kept): ``verdict``, ``note`` why
    (first)."""
    return {
        **row,
        "verdict": verdict,
        TEST: None,
        "alpha": float("nan"),
        "note": "; ".join(filter(None, [note, row["note"]])),
    }


def unavailable(claim: Claim, why: str) -> dict:
    """A row for a claim this run cannot measure (verdict ``not measured``, ``why`` in
    the note)."""
    return {**_row(claim, float("nan"), Units()), "note": why, "runs": 0,
            "resampled": claim.resampled}  # fmt: skip


def holm(rows: list[dict], alpha: float) -> list[dict]:
    """The rows with Holm's step-down verdicts and adjusted levels (module docstring),
    over the tested rows of ``rows`` (one family)."""
    tested = [i for i, row in enumerate(rows) if row.get(TEST) is not None]
    ordered = sorted(tested, key=lambda i: rows[i][TEST].p)
    decided = [dict(row) for row in rows]
    stopped = False
    for rank, index in enumerate(ordered):
        level = alpha / (len(ordered) - rank)
        verdict = rows[index][TEST].verdict(level)
        stopped = stopped or verdict == "inconclusive"
        decided[index]["alpha"] = level
        decided[index]["verdict"] = "inconclusive" if stopped else verdict
    return decided


def findings_frame(
    rows: list[dict], alpha: float = 0.05, primary: Collection[str] = ()
) -> pd.DataFrame:
    """The findings table from :func:`decide` rows, columns :data:`COLUMNS`: each row's
    family (``primary`` where its key is in ``primary``), Holm-adjusted at ``alpha``
    within each family, primary rows first, with the design report of every row at its
    level (its Holm level; an untested row at its family's first)."""
    families = {PRIMARY: [], EXPLORATORY: []}
    for row in rows:
        family = PRIMARY if row["key"] and row["key"] in primary else EXPLORATORY
        families[family].append({**row, "family": family})
    decided = []
    for members in families.values():
        first = alpha / max(1, sum(row.get(TEST) is not None for row in members))
        for row in holm(members, alpha):
            level = row["alpha"] if np.isfinite(row["alpha"]) else first
            row.update(
                design_columns(row[DESIGN], row["margin"], row["_kind"], level, row["estimate"])
            )
            decided.append(row)
    return pd.DataFrame(decided, columns=COLUMNS)
