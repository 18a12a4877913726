"""The findings engine: every claim of a paper decided with a statistical test.

A claim is an **effect with a direction**: a number that is positive when the claim
holds (e.g. "the area under the random-order perturbation curve minus the area under
the skill-neuron order's": positive when skill neurons matter more). The engine
estimates it on the measured data and puts a confidence interval around it with a
**paired percentile bootstrap**: the resampling units (test samples, trials, random
orders, neurons, ...) are drawn with replacement, the same draw for every quantity the
effect compares (so their shared noise cancels), and the statistic is recomputed on
each of ``resamples`` draws. The ``(alpha / 2, 1 - alpha / 2)`` quantiles of the draws
are the interval, and the verdict is

``holds``          the interval lies above 0;
``fails``          the interval lies below 0 (the opposite of the claim is supported);
``inconclusive``   the interval contains 0 (the data cannot tell);
``not measured``   the effect could not be computed (e.g. no pair of the same type);
                   not ``n/a``, which pandas reads back from a CSV as a missing value.

Never a comparison of two point estimates. Each row carries the estimate, the interval,
the resampling units with their counts and the paper's own number for reference. Draws
come from a generator seeded per claim, so the table is reproducible.

A statistic is a function of the resampled indices: it receives a mapping unit name ->
int64 indices into that unit (``np.arange(n)`` for the estimate itself) and returns a
float. A unit of size 1 (one trial) is never resampled.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

VERDICTS = ("holds", "fails", "inconclusive", "not measured")
#: Columns of a findings table.
COLUMNS = [
    "claim",
    "paper",
    "effect",
    "estimate",
    "ci_low",
    "ci_high",
    "verdict",
    "resampled",
    "counts",
    "paper_value",
]

Statistic = Callable[[Mapping[str, np.ndarray]], float]


@dataclass(frozen=True)
class Claim:
    """A claim as the findings table shows it.

    ``claim`` in the paper's words; ``paper`` where it is made (section, figure IDs);
    ``effect`` what is measured, signed so that positive supports the claim;
    ``resampled`` the resampling units in words; ``paper_value`` the paper's number.
    """

    claim: str
    paper: str
    effect: str
    resampled: str
    paper_value: str = ""


@dataclass(frozen=True)
class BootstrapSettings:
    """Config ``findings``: resamples, two-sided alpha, seed."""

    resamples: int = 1000
    alpha: float = 0.05
    seed: int = 0


def bootstrap_interval(
    statistic: Statistic,
    units: Mapping[str, int],
    settings: BootstrapSettings,
    stream: str = "",
) -> tuple[float, float, float]:
    """The estimate and the percentile bootstrap interval of ``statistic``.

    ``units`` maps each resampling unit to its size. Every draw resamples every unit
    with replacement (independently of each other, the same indices for everything the
    statistic compares); ``stream`` names the claim, so that each claim has its own
    reproducible stream of draws. Draws giving NaN are left out of the quantiles.
    """
    full = {name: np.arange(size, dtype=np.int64) for name, size in units.items()}
    estimate = float(statistic(full))
    if not np.isfinite(estimate):
        return estimate, float("nan"), float("nan")
    generator = np.random.default_rng([settings.seed, zlib.crc32(stream.encode())])
    draws = np.empty(settings.resamples)
    for draw in range(settings.resamples):
        indices = {
            name: full[name] if size == 1 else generator.integers(0, size, size)
            for name, size in units.items()
        }
        draws[draw] = statistic(indices)
    draws = draws[np.isfinite(draws)]
    if not draws.size:
        return estimate, float("nan"), float("nan")
    low, high = np.quantile(draws, [settings.alpha / 2, 1 - settings.alpha / 2])
    return estimate, float(low), float(high)


def verdict(low: float, high: float) -> str:
    """``holds`` / ``fails`` / ``inconclusive`` from the interval; ``not measured``
    without one."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return "not measured"
    if low > 0:
        return "holds"
    if high < 0:
        return "fails"
    return "inconclusive"


def decide(
    claim: Claim,
    statistic: Statistic,
    units: Mapping[str, int],
    settings: BootstrapSettings,
) -> dict:
    """One row of a findings table (:data:`COLUMNS`) for ``claim``."""
    estimate, low, high = bootstrap_interval(statistic, units, settings, claim.claim)
    return {
        "claim": claim.claim,
        "paper": claim.paper,
        "effect": claim.effect,
        "estimate": estimate,
        "ci_low": low,
        "ci_high": high,
        "verdict": verdict(low, high),
        "resampled": claim.resampled,
        "counts": json.dumps(dict(units), sort_keys=True),
        "paper_value": claim.paper_value,
    }


def unavailable(claim: Claim, why: str) -> dict:
    """A row for a claim this run cannot measure (verdict ``not measured``, the reason in
    ``counts``)."""
    row = decide(claim, lambda _: float("nan"), {}, BootstrapSettings(resamples=0))
    row["counts"] = why
    return row


def findings_frame(rows: list[dict]) -> pd.DataFrame:
    """The findings table from :func:`decide` rows, columns :data:`COLUMNS`."""
    return pd.DataFrame(rows, columns=COLUMNS)
