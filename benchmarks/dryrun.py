"""The ``dryrun`` row: how long ``snakemake -n`` takes to build the DAG of a configuration.

Runs the workflow's own Snakefile in a throw-away folder (links to the project, so no
``.snakemake/`` lands in the project), with no data or results present, i.e. the whole
DAG of a first run; no download is needed. Reports wall time, the CPU time of the
snakemake process (user + sys, less sensitive to a busy machine) and the job count.
"""

from __future__ import annotations

import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Ratio, Row

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).parent / "snakemake"
LINKED = ("Snakefile", "workflow", "config.yaml", "configs", "profiles")
#: Seconds for the whole DAG of the paper configuration.
TARGET = 60.0


def dry_run(configfile: str) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and job count of one ``snakemake -n`` in a fresh folder."""
    with tempfile.TemporaryDirectory() as folder:
        for name in LINKED:
            (Path(folder) / name).symlink_to(ROOT / name)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run(
            [str(SNAKEMAKE), "-n", "--quiet", "rules", "--configfile", configfile],
            cwd=folder,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise RuntimeError(f"snakemake -n failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, job_count(result.stdout + result.stderr)


def job_count(output: str) -> int:
    """The ``total`` of the job stats table Snakemake prints for a dry run."""
    match = re.search(r"^total\s+(\d+)\s*$", output, flags=re.MULTILINE)
    if match is None:
        raise ValueError(f"no job stats table in the dry-run output:\n{output[-2000:]}")
    return int(match.group(1))


def run(repeats: int, configfile: str = "configs/paper.yaml") -> Row:
    """Median over ``min(repeats, 3)`` dry runs of the paper configuration."""
    runs = [dry_run(configfile) for _ in range(min(repeats, 3))]
    wall = statistics.median(run[0] for run in runs)
    cpu = statistics.median(run[1] for run in runs)
    return Row(
        "dryrun",
        [
            f"dryrun: snakemake -n --configfile {configfile}, {runs[0][2]} jobs, "
            f"median of {len(runs)}",
            f"  wall {wall:6.1f} s, cpu {cpu:6.1f} s (user + sys of the snakemake process)",
        ],
        [Ratio("wall seconds of the dry run", wall, TARGET)],
        {"wall_s": wall, "cpu_s": cpu, "jobs": runs[0][2]},
    )
