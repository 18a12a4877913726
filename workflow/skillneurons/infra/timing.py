"""Timing two or more code paths fairly on a shared machine: in turns, after a warm-up.

Absolute times depend on the machine and on what else runs on it; the ratio of two
runs timed in turns (A, B, A, B, ...) much less. Both the wall-clock time and the
process's CPU time (all its threads) of every call are recorded. Used by the pruning
speed benchmark (paper A, Table 4) and by every row of ``benchmarks/``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping


def interleaved_times(
    runs: Mapping[str, Callable[[], object]], repeats: int, warmup: int = 2
) -> dict[str, dict[str, list[float]]]:
    """Seconds of ``repeats`` calls of each run, taken in turns after ``warmup`` untimed
    rounds. Returns name -> ``{"wall": [...], "cpu": [...]}``: wall-clock time and the
    process's CPU time (all its threads) of each call."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    for _ in range(warmup):
        for run in runs.values():
            run()
    times = {name: {"wall": [], "cpu": []} for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            times[name]["cpu"].append(time.process_time() - cpu)
            times[name]["wall"].append(time.perf_counter() - wall)
    return times


def timing_summary(times: list[float]) -> dict[str, float]:
    """Median, minimum and spread (max - min) of a list of seconds."""
    return {
        "median_s": statistics.median(times),
        "min_s": min(times),
        "spread_s": max(times) - min(times),
    }
