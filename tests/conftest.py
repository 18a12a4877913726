"""Shared fixtures: a sandbox copy of the workflow to run Snakemake in, what Snakemake
reads from the rule files (tests/workflow_probe.py), and a completed smoke run with
throwaway copies of it for the operations tests."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).parent / "snakemake"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

#: Fixtures that run pipeline jobs (the smoke DAG, a generation DAG, a SLURM cluster) or
#: convert the real SmolLM2 GGUF file (about 40 s a conversion): a test that asks for one,
#: directly or through another fixture, is in the slow tier, whatever its file.
SLOW_FIXTURES = {"smoke_run", "generation_run", "slurm_run", "converted"}


def pytest_collection_modifyitems(items):
    """``pytest -m "not slow"`` is the fast tier: unit and library tests, dry runs and
    lint, no job of a pipeline run and no multi-process training (marked ``slow`` by
    hand, or here by the fixture they ask for)."""
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def make_sandbox(path: Path) -> Path:
    """A folder that runs the project's workflow with its own data/, results/, logs/."""
    path.mkdir(parents=True, exist_ok=True)
    for name in ("Snakefile", "workflow", "config.yaml", "configs", "profiles"):
        link = path / name
        if not link.exists():
            link.symlink_to(ROOT / name)
    return path


def run_snakemake(
    workdir: Path, *args: str, check: bool = True, environment: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Run snakemake in ``workdir`` (with ``environment`` added to this process's); on
    failure the assertion shows its output."""
    result = subprocess.run(
        [str(SNAKEMAKE), *args],
        cwd=workdir,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            **(environment or {}),
        },
    )
    if check:
        assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return result


#: Test only: accelerate's FSDP on CPU processes (tests/fsdp_on_cpu/sitecustomize.py).
FSDP_ON_CPU = ROOT / "tests" / "fsdp_on_cpu"


def rerun_sharded(workdir: Path, rules, targets, *config: str) -> None:
    """Rerun the jobs of ``rules`` that make ``targets`` (one job each) as 2 processes
    that shard the model with FSDP (on CPU: :data:`FSDP_ON_CPU`), and check each job's
    log says so."""
    start = time.time()
    run_snakemake(
        workdir, *config, "--cores", "2", "--forcerun", *rules,
        "--set-resources", *(f"{rule}:{key}=2" for rule in rules for key in ("gpu", "fsdp")),
        "--set-threads", *(f"{rule}=2" for rule in rules),
        "--", *targets,
        environment={"PYTHONPATH": str(FSDP_ON_CPU)},
    )  # fmt: skip
    logs = [path for path in (workdir / "logs").rglob("*.log") if path.stat().st_mtime >= start]
    assert len(logs) == len(targets), logs
    for path in logs:
        log = path.read_text()
        assert "training on 2 processes, the model sharded with FSDP" in log, log[-2000:]
        assert "2 processes exited with status 0" in log, log[-2000:]


def probe_workflow(workdir: Path, what: str, *configfiles: str, targets=()):
    """Snakemake's own reading of the workflow in ``workdir`` (a sandbox) under
    ``configfiles``: its rules (``what="rules"``) or the jobs of its DAG (``"jobs"``,
    every job of ``targets``, by default of rule all), as tests/workflow_probe.py prints
    them."""
    command = [sys.executable, str(ROOT / "tests" / "workflow_probe.py"), what]
    command += ["--configfile", *configfiles] if configfiles else []
    command += ["--target", *targets] if targets else []
    result = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def rules(tmp_path_factory) -> dict[str, dict]:
    """Every rule of the workflow (smoke config) as Snakemake reads it: its declared
    outputs (key, path, report caption and category), threads, resources, script,
    whether it is local, its input names."""
    sandbox = make_sandbox(tmp_path_factory.mktemp("rules"))
    return probe_workflow(sandbox, "rules", "configs/smoke.yaml")


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
