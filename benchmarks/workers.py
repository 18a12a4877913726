"""Benchmark work run in fresh processes (importable, so a spawned process finds it)."""

import resource
import time

import numpy as np

from skillneurons.paper_a.skill_neurons import SampleGroup, trial_accuracies


def rank_in_fresh_process(path: str, rows: int, queue) -> None:
    baseline = np.zeros((6, 8, 1536), dtype=np.float32)
    group = {"task": SampleGroup(np.arange(rows), np.arange(rows) % 2)}
    start = time.perf_counter()
    trial_accuracies(path, baseline, group)
    seconds = time.perf_counter() - start
    queue.put((seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
