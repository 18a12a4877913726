"""A full disk during a run: the job that cannot write fails naming the file it was
writing, leaves no partial output, and once space is freed the same command finishes
with the outputs of a run that never failed.

The smoke configuration's activation dumps of one task (one job writing about 7 MB,
after two prompt-tuning jobs writing about 80 kB) run with ``results/`` on a 1 MiB
tmpfs mounted for the test. Mounting needs root (and a system that allows it): without
either the test skips and says why.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import make_sandbox, run_snakemake
from skillneurons.infra.io import read_tensors
from smoke_runs import MODEL, SMOKE

pytestmark = pytest.mark.slow

TASK = "syn_sst2"
DUMPS = f"results/{MODEL}/activations/{TASK}"
#: One output of the task's dump job: the command builds the job, its prompts and splits.
COMMAND = (f"{DUMPS}/trial1/dev_input.parquet", *SMOKE, "--cores", "2")
#: The filesystem's size at first (the prompt-tuning files and trial 0's baseline fit,
#: trial 0's dev dump of 1.4 MB does not), then once space is freed.
FULL, FREED = "1m", "64m"


def mount_tmpfs(folder: Path, size: str) -> None:
    """Mount a tmpfs of ``size`` on ``folder``; skip the test when that is not allowed."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small tmpfs for results/ (the test fills it)")
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
            capture_output=True,
            text=True,
        )
    except FileNotFoundError:
        pytest.skip("no mount command to mount a small tmpfs for results/")
    if done.returncode != 0:
        pytest.skip(f"mount -t tmpfs failed ({done.stderr.strip()}); the test fills a tmpfs")


@pytest.fixture
def small_results(sandbox):
    """The sandbox, with ``results/`` on a tmpfs of :data:`FULL`, unmounted after."""
    results = sandbox / "results"
    results.mkdir()
    mount_tmpfs(results, FULL)
    yield sandbox
    subprocess.run(["umount", str(results)], check=True)


def files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (by its path relative to ``folder``) and its bytes."""
    found = (path for path in folder.rglob("*") if path.is_file())
    return {str(path.relative_to(folder)): path.read_bytes() for path in found}


def read_back(path: Path) -> None:
    """Read a results file with its format's reader (raises on a truncated file)."""
    if path.suffix == ".parquet":
        pq.read_table(path)
    elif path.suffix == ".json":
        json.loads(path.read_text())
    elif path.suffix == ".safetensors":
        read_tensors(path)
    else:
        assert path.name == ".snakemake_timestamp" and path.stat().st_size == 0, path


def test_a_full_disk_fails_naming_the_file_and_the_rerun_matches(small_results, tmp_path):
    sandbox = small_results
    reference = make_sandbox(tmp_path / "reference")
    run_snakemake(reference, *COMMAND)
    expected = files(reference / "results")
    assert sum(map(len, expected.values())) > 7e6  # far more than the 1 MiB filesystem holds

    failed = run_snakemake(sandbox, *COMMAND, check=False)

    assert failed.returncode != 0
    assert "Error in rule dump_activations" in failed.stdout + failed.stderr
    log = (sandbox / f"logs/{MODEL}/activations/{TASK}.log").read_text()
    failure = next(line for line in log.splitlines() if " failed " in line)
    assert (
        f"rule dump_activations failed (model={MODEL}, task={TASK}): OSError: [Errno 28] No "
        f"space left on device while writing {DUMPS}/trial0/dev.parquet (its temporary file "
        "was removed: nothing was written there); free space on that filesystem and rerun"
    ) in failure, failure
    # Nothing half-written: the dump job left no file (no temporary file, no baseline it
    # wrote before the disk filled), and the prompt-tuning files are whole.
    left = files(sandbox / "results")
    assert sorted(left) == sorted(name for name in expected if "/activations/" not in name)
    for name in left:
        read_back(sandbox / "results" / name)

    subprocess.run(["mount", "-o", f"remount,size={FREED}", str(sandbox / "results")], check=True)
    run_snakemake(sandbox, *COMMAND)

    assert files(sandbox / "results") == expected
