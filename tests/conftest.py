"""Shared fixtures: a sandbox copy of the workflow to run Snakemake in, and a completed
smoke run with throwaway copies of it for the operations tests."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).parent / "snakemake"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def make_sandbox(path: Path) -> Path:
    """A folder that runs the project's workflow with its own data/, results/, logs/."""
    path.mkdir(parents=True, exist_ok=True)
    for name in ("Snakefile", "workflow", "config.yaml", "configs", "profiles"):
        link = path / name
        if not link.exists():
            link.symlink_to(ROOT / name)
    return path


def run_snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run snakemake in ``workdir``; on failure the assertion shows its output."""
    result = subprocess.run(
        [str(SNAKEMAKE), *args],
        cwd=workdir,
        capture_output=True,
        text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"},
    )
    if check:
        assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return result


@pytest.fixture
def sandbox(tmp_path):
    return make_sandbox(tmp_path / "work")


@pytest.fixture(scope="module")
def complete_run(tmp_path_factory):
    """The folder of a complete local smoke run (made once per test session)."""
    from smoke_runs import completed_smoke_run  # smoke_runs imports this module

    return completed_smoke_run(tmp_path_factory)


@pytest.fixture
def run_copy(complete_run, tmp_path):
    """A copy of the complete smoke run that a test may change."""
    from smoke_runs import copy_run

    return copy_run(complete_run, tmp_path / "run")
