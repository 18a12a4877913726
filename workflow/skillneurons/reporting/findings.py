"""The findings engine: every claim of a paper decided with a calibrated test.

A claim is an **effect with a direction** (positive when the claim holds) and a
**margin** in the effect's own units: the smallest effect that would matter, from the
paper's own effect where it reports one (half of it), else a documented smallest effect
of interest (DESIGN.md, "Verdicts").

**Hierarchical bootstrap.** A claim declares its resampling units as a hierarchy
(:class:`Units`), outermost first: training runs (prompt trials, seeds, random models) >
random draws (orders, neuron sets) > test samples or neurons. Every draw resamples every
unit of size > 1 with replacement, the top level and, within it, the nested levels. The
project's units are crossed (the same test samples under every trial, the same random
draw index in every task), so each unit is drawn once per resample and shared by every
quantity the effect compares: their shared noise cancels (a paired bootstrap). The
statistic receives the drawn indices (unit name -> int64 indices; ``np.arange(n)`` for
the estimate) and recomputes everything that depends on them inside the draw, e.g. a
mean over the drawn trials. Draws come from a generator seeded per claim.

**The interval.** A top level with few levels (``k`` at most :data:`FEW_LEVELS`: 3
prompt trials, 5 label-word draws, 7 tasks) gets a t interval, ``estimate +- t_{df,
1-a/2} * SE``; with more, the percentile interval of the draws. A percentile bootstrap
of ``k`` values is too narrow: their plug-in variance is ``(k - 1) / k * s^2 / k`` and
its quantiles are normal where ``t_{k-1}`` applies, so with 3 runs it has about a third
of the width it should (``t_2 = 4.30`` against ``1.96 * sqrt(2/3)``). SE and ``df``
come from **the bootstrap of the top level**: a second pass resamples the top level
alone (every other unit at its full set); its variance, times ``k / (k - 1)``, is the
top level's share (the textbook ``s^2 / k`` of ``k`` per-run values, whose spread
includes what is nested in each run: its own random draws, its samples' noise), with
``k - 1`` degrees of freedom. A unit crossed with the top level that has few levels too
(the test tasks beside the training tasks of B-T8) gets a pass and a share of its own
the same way (:meth:`Units.crossed_few`); the pass with every unit resampled, minus
those shares, is the share of what the runs share (the same test samples under every
run), with infinite degrees of freedom. ``df`` is Welch-Satterthwaite's over the
shares: ``k - 1`` when the runs' spread dominates, large when the shared samples' does,
so that a few runs over many noisy shared samples do not get ``t_{k-1}``'s width. The
bootstrap rather than the ``k`` per-run estimates, because a claim's statistic is
rarely a mean of per-run values (a difference of areas over tasks, a correlation over
drawn pairs).

**Verdicts**, at a level ``a`` (Holm-adjusted, below):

``holds``          the interval lies above 0;
``fails``          the interval lies below 0;
``negligible``     the interval lies inside ``+-margin`` (equivalence: two one-sided
                   tests, each at ``a / 2``: the same interval, so conservative);
``inconclusive``   otherwise, or fewer training runs than ``min_runs`` (a claim on
                   an untrained model excepted): the ``note`` says "1 training run:
                   variance across runs not measured";
``not measured``   no interval, or every draw gave the same value (units that never
                   varied): the ``note`` says which.

**Family-wise control.** Within a findings table (:func:`findings_frame`) verdicts are
decided by Holm's step-down on **bootstrap p-values**: per claim the smallest level at
which its interval would exclude 0 (``p_effect``) or lie inside the margin
(``p_negligible``), computed from the same draws (percentile: tail counts, ``(c + 1) /
(B + 1)``; t: the t distribution), and ``p = min`` of the two (at most one of their
nulls, "the effect is 0" and "it is at least the margin", can be true, so the minimum
is a valid p-value). The ``m`` tested claims, sorted by ``p``, are decided at ``a / m``,
``a / (m - 1)``, ...; the first claim not decided stops the step-down and every later
one is inconclusive. The table shows each claim's adjusted level (``alpha``) beside the
unadjusted (nominal ``1 - a``) interval ``ci_low`` / ``ci_high``.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

VERDICTS = ("holds", "fails", "negligible", "inconclusive", "not decidable here", "not measured")
#: The verdict of a claim whose units cannot vary at a configuration's sizes (one order,
#: two training tasks, a noise floor above the compared value): no Holm slot.
NOT_DECIDABLE = "not decidable here"
#: Columns of a findings table.
COLUMNS = [
    "claim",
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
    "note",
    "paper_value",
]
#: ``Units.training_runs`` of a claim that no training stands behind (paper B's B-T8:
#: the base model's task neurons): ``min_runs`` does not apply.
NO_TRAINING = 0
#: A top level with at most this many levels gets the t interval (module docstring).
FEW_LEVELS = 20
#: The row key of a claim's test (dropped from the table).
TEST = "_test"

Statistic = Callable[[Mapping[str, np.ndarray]], float]


@dataclass(frozen=True)
class Claim:
    """A claim as the findings table shows it.

    ``claim`` in the paper's words; ``paper`` where it is made (section, figure IDs);
    ``effect`` what is measured, signed so that positive supports the claim;
    ``resampled`` the resampling units in words; ``paper_value`` the paper's number;
    ``margin`` the smallest effect that matters, in the effect's units, and
    ``margin_basis`` where it comes from ("half the paper's effect (Fig. 4)").
    """

    claim: str
    paper: str
    effect: str
    resampled: str
    paper_value: str = ""
    margin: float = float("nan")
    margin_basis: str = ""


@dataclass(frozen=True)
class Units:
    """A claim's resampling units, outermost first: ``runs`` (training runs: prompt
    trials, seeds, random models), ``draws`` (random orders, neuron sets) and
    ``samples`` (test samples, neurons), each mapping a unit's name to its size.
    ``training_runs`` is how many training runs stand behind the claim (default: the
    size of the first run unit, else 1), also where the runs are not resampled;
    :data:`NO_TRAINING` (0) for a claim on an untrained model, whose units that
    replicate are not runs (``min_runs`` does not apply to it)."""

    runs: Mapping[str, int] = field(default_factory=dict)
    draws: Mapping[str, int] = field(default_factory=dict)
    samples: Mapping[str, int] = field(default_factory=dict)
    training_runs: int | None = None

    @property
    def levels(self) -> dict[str, int]:
        """Every unit, outermost first."""
        return {**self.runs, **self.draws, **self.samples}

    @property
    def run_count(self) -> int:
        if self.training_runs is not None:
            return self.training_runs
        return next(iter(self.runs.values()), 1)

    def top(self) -> tuple[str, int] | None:
        """The outermost unit with at least 2 levels (the interval's top level)."""
        return next(((n, s) for n, s in self.levels.items() if s >= 2), None)

    def crossed_few(self, top: str) -> list[str]:
        """The units other than ``top`` with few levels (2 to :data:`FEW_LEVELS`) that are
        crossed with it: every one but the random draws under a run top level, which are
        each run's own (nested: their spread is in the runs' already)."""
        nested = self.draws if top in self.runs else {}
        return [
            name
            for name, size in self.levels.items()
            if name != top and 2 <= size <= FEW_LEVELS and name not in nested
        ]

    def describe(self) -> str:
        """The hierarchy with its sizes: ``trials 3 > random orders 3 > t: test samples
        80``; units of size 1 are shown and marked as not resampled."""
        parts = []
        for units in (self.runs, self.draws, self.samples):
            shown = [f"{n} {s}" + (" (not resampled)" if s == 1 else "") for n, s in units.items()]
            if shown:
                parts.append(", ".join(shown))
        return " > ".join(parts)


@dataclass(frozen=True)
class BootstrapSettings:
    """Config ``findings``: resamples, two-sided alpha, seed, min_runs."""

    resamples: int = 1000
    alpha: float = 0.05
    seed: int = 0
    min_runs: int = 3


@dataclass(frozen=True)
class Test:
    """A claim's bootstrap: the estimate, the finite draws with every unit resampled,
    the top level's size ``k`` (0: no unit resampled) and, for a t interval, the
    variance shares of the estimate with their degrees of freedom (``components``:
    ``(variance, df)``, the top level's and the rest's)."""

    estimate: float
    draws: np.ndarray
    levels: int
    components: tuple[tuple[float, float], ...] = ()

    @property
    def t_based(self) -> bool:
        return bool(self.components)

    @property
    def se(self) -> float:
        return float(np.sqrt(sum(variance for variance, _ in self.components)))

    @property
    def df(self) -> float:
        """Welch-Satterthwaite's degrees of freedom of :attr:`se`."""
        denominator = sum(v**2 / df for v, df in self.components if np.isfinite(df))
        return self.se**4 / denominator if denominator > 0 else np.inf

    @property
    def degenerate(self) -> bool:
        """No draw, or all equal up to rounding (units that never varied)."""
        scale = max(1.0, abs(self.estimate))
        return not self.draws.size or float(np.ptp(self.draws)) <= 1e-12 * scale

    def interval(self, alpha: float) -> tuple[float, float]:
        """The two-sided ``1 - alpha`` interval (module docstring)."""
        if self.t_based:
            half = stats.t.ppf(1 - alpha / 2, self.df) * self.se
            return self.estimate - half, self.estimate + half
        low, high = np.quantile(self.draws, [alpha / 2, 1 - alpha / 2])
        return float(low), float(high)

    def _tail(self, at: float, above: bool) -> float:
        """One-sided p of "the effect is at most (above: at least) ``at``" rejected
        towards the other side: P(draw <= at) or P(draw >= at)."""
        if self.t_based:
            score = (self.estimate - at) / self.se
            return float(stats.t.sf(score if not above else -score, self.df))
        count = np.sum(self.draws <= at) if not above else np.sum(self.draws >= at)
        return float((count + 1) / (self.draws.size + 1))

    def p_values(self, margin: float) -> tuple[float, float, int]:
        """(``p_effect``, ``p_negligible``, the effect's direction): the smallest
        two-sided levels at which the interval excludes 0 / lies inside ``+-margin``."""
        below, above = self._tail(0.0, False), self._tail(0.0, True)
        p_effect = min(1.0, 2 * min(below, above))
        direction = 1 if below < above else -1
        if not np.isfinite(margin) or margin <= 0:
            return p_effect, 1.0, direction
        p_negligible = 2 * max(self._tail(-margin, False), self._tail(margin, True))
        return p_effect, min(1.0, p_negligible), direction


def bootstrap(
    statistic: Statistic, units: Units, settings: BootstrapSettings, stream: str = ""
) -> Test:
    """The hierarchical bootstrap of ``statistic`` (module docstring); ``stream`` names
    the claim, so that each has its own reproducible draws. NaN draws are left out."""
    levels = units.levels
    full = {name: np.arange(size, dtype=np.int64) for name, size in levels.items()}
    estimate = float(statistic(full))
    top = units.top()
    if not np.isfinite(estimate) or top is None:
        return Test(estimate, np.empty(0), 0)
    generator = np.random.default_rng([settings.seed, zlib.crc32(stream.encode())])

    def resample(names) -> np.ndarray:
        draws = np.empty(settings.resamples)
        for draw in range(settings.resamples):
            indices = {
                name: generator.integers(0, size, size) if name in names else full[name]
                for name, size in levels.items()
            }
            draws[draw] = statistic(indices)
        return draws[np.isfinite(draws)]

    draws = resample([name for name, size in levels.items() if size > 1])
    if top[1] > FEW_LEVELS:
        return Test(estimate, draws, top[1])
    shares = [
        (float(np.var(resample([name]))), levels[name])
        for name in [top[0], *units.crossed_few(top[0])]
    ]
    rest = max(float(np.var(draws)) - sum(variance for variance, _ in shares), 0.0)
    scaled = tuple((v * k / (k - 1), k - 1.0) for v, k in shares)
    return Test(estimate, draws, top[1], (*scaled, (rest, np.inf)))


def verdict_at(p_effect: float, p_negligible: float, direction: int, alpha: float) -> str:
    """The verdict of a tested claim at level ``alpha``."""
    if p_effect <= alpha:
        return "holds" if direction > 0 else "fails"
    return "negligible" if p_negligible <= alpha else "inconclusive"


def _runs_note(runs: int) -> str:
    return f"{runs} training run{'s' if runs != 1 else ''}: variance across runs not measured"


def decide(claim: Claim, statistic: Statistic, units: Units, settings: BootstrapSettings) -> dict:
    """One row of a findings table for ``claim``: :data:`COLUMNS` with the verdict at the
    nominal level, and the claim's test under :data:`TEST` for :func:`findings_frame`'s
    Holm step-down (``None``: the claim is not tested). The note says why a claim is
    not tested, then where its margin comes from."""
    test = bootstrap(statistic, units, settings, claim.claim)
    row = {
        "claim": claim.claim,
        "paper": claim.paper,
        "effect": claim.effect,
        "estimate": test.estimate,
        "ci_low": float("nan"),
        "ci_high": float("nan"),
        "margin": claim.margin,
        "alpha": float("nan"),
        "verdict": "not measured",
        "runs": units.run_count,
        "resampled": f"{claim.resampled}: {units.describe()}",
        "note": "",
        "paper_value": claim.paper_value,
        TEST: None,
    }
    basis = claim.margin_basis and f"margin: {claim.margin_basis}"
    if not np.isfinite(test.estimate):
        return with_note(row, "the effect could not be computed")
    if test.levels == 0:
        return with_note(with_note(row, "no unit has two levels: nothing varied"), basis)
    if test.degenerate:
        never = "every resample gave the same value: the units never varied"
        return with_note(with_note(row, never), basis)
    row["ci_low"], row["ci_high"] = test.interval(settings.alpha)
    if units.run_count != NO_TRAINING and units.run_count < settings.min_runs:
        row = with_note({**row, "verdict": "inconclusive"}, _runs_note(units.run_count))
        return with_note(row, basis)
    tested = test.p_values(claim.margin)
    return with_note({**row, "verdict": verdict_at(*tested, settings.alpha), TEST: tested}, basis)


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
    row = decide(claim, lambda _: float("nan"), Units(), BootstrapSettings(resamples=0))
    return {**row, "note": why, "runs": 0, "resampled": claim.resampled}


def holm(rows: list[dict], alpha: float) -> list[dict]:
    """The rows with Holm's step-down verdicts and adjusted levels (module docstring)."""
    tested = [i for i, row in enumerate(rows) if row.get(TEST) is not None]
    ordered = sorted(tested, key=lambda i: min(rows[i][TEST][:2]))
    decided = [dict(row) for row in rows]
    stopped = False
    for rank, index in enumerate(ordered):
        level = alpha / (len(ordered) - rank)
        p_effect, p_negligible, direction = rows[index][TEST]
        verdict = verdict_at(p_effect, p_negligible, direction, level)
        stopped = stopped or verdict == "inconclusive"
        decided[index]["alpha"] = level
        decided[index]["verdict"] = "inconclusive" if stopped else verdict
    return decided


def findings_frame(rows: list[dict], alpha: float = 0.05) -> pd.DataFrame:
    """The findings table from :func:`decide` rows, Holm-adjusted at ``alpha`` within
    the table, columns :data:`COLUMNS`."""
    return pd.DataFrame(holm(rows, alpha), columns=COLUMNS)
