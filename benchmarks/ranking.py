"""The ``ranking`` row: streaming predictivity (Eq. 4 of paper A) over an activation dump
of n and of 4n samples ([rows, 6, 8, 1536] float16, row groups of 64), each in a fresh
process. Memory is bounded by one row group, so the peak resident memory must stay flat
as the dump grows: the ratio of the two peaks is checked, the rows per second shown."""

from __future__ import annotations

import multiprocessing
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.common import Ratio, Row
from benchmarks.workers import rank_in_fresh_process
from skillneurons.neurons.activation_dump import ActivationWriter

#: Peak resident memory at 4n rows / at n rows.
TARGET = 1.1


def run(repeats: int, rows: int = 512, batch_size: int = 64) -> Row:
    generator = np.random.default_rng(0)
    context = multiprocessing.get_context("spawn")
    lines = [f"ranking: Eq. 4 streamed over [rows, 6, 8, 1536] dumps, groups of {batch_size}"]
    peaks = {}
    with tempfile.TemporaryDirectory() as folder:
        for count in (rows, 4 * rows):
            path = Path(folder) / f"dev{count}.parquet"
            with ActivationWriter(path, (6, 8, 1536), {"split": "dev"}) as writer:
                for start in range(0, count, batch_size):
                    block = generator.standard_normal((batch_size, 6, 8, 1536), np.float32)
                    ids = np.arange(start, start + batch_size)
                    writer.write(ids, ids % 2, block.astype(np.float16))
            queue = context.Queue()
            process = context.Process(target=rank_in_fresh_process, args=(str(path), count, queue))
            process.start()
            seconds, peaks[count] = queue.get()
            process.join()
            speed = count / seconds
            lines.append(f"  {count:5d} rows: {speed:8.0f} rows/s, peak RSS {peaks[count]:.0f} MB")
    return Row(
        "ranking",
        lines,
        [Ratio(f"peak RSS, {4 * rows} / {rows} rows", peaks[4 * rows] / peaks[rows], TARGET)],
        {f"peak_mb_{count}": peak for count, peak in peaks.items()},
    )
