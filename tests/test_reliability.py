"""Reliability on the smoke config: a job killed mid-run leaves nothing that looks
complete and its rerun reproduces the uninterrupted results; a failing job's log says
what failed and why; ``--keep-going`` (the default profile) finishes what does not
depend on the failure.

Each test works on a copy of one complete smoke run (tests/smoke_runs.py), removes or
breaks one job's files and reruns only what that needs.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import SNAKEMAKE, run_snakemake
from smoke_runs import MODEL, SMOKE, scheduled_jobs

pytestmark = pytest.mark.slow

RESULTS = f"results/{MODEL}"
TRIAL = f"{RESULTS}/prompt_tuning/syn_sst2/trial0"
DUMPS = f"{RESULTS}/activations/syn_sst2/trial0"
PASS = f"{RESULTS}/prompt_tuning/syn_sst2/passes/trials0-0"
KILLED_JOBS = {
    # Killed between two dev evaluations: no output written yet. The trial's files are
    # copies of its pass's (rule prompt_tuning_trial); the pass's folder goes too.
    "prompt_tuning": {
        "outputs": [f"{TRIAL}/prompt.safetensors", f"{TRIAL}/metrics.json"],
        "folders": [PASS],
        "log": f"logs/{MODEL}/prompt_tuning/syn_sst2/trials0-0.log",
        "started": lambda workdir, log: "dev accuracy" in log,
    },
    # Killed after the baseline and the first dump were written, before the others.
    "dump_activations": {
        "outputs": [
            f"{DUMPS}/baseline.safetensors",
            f"{DUMPS}/dev.parquet",
            f"{DUMPS}/test.parquet",
            f"{DUMPS}/dev_input.parquet",
            f"{DUMPS}/test_input.parquet",
        ],
        "log": f"logs/{MODEL}/activations/syn_sst2.log",  # one job for every trial
        "started": lambda workdir, log: (workdir / DUMPS / "dev.parquet").exists(),
    },
}


def start_snakemake(workdir: Path, *args: str) -> subprocess.Popen:
    """Snakemake in its own process group, so that one signal reaches it and its jobs."""
    return subprocess.Popen(
        [str(SNAKEMAKE), *SMOKE, "--cores", "2", *args],
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"},
    )


def kill_when(process: subprocess.Popen, started, timeout: float = 600.0) -> None:
    """SIGKILL the process group as soon as ``started()`` holds (fails if it never does)."""
    deadline = time.monotonic() + timeout
    while not started():
        if process.poll() is not None:
            pytest.fail("the job finished before it could be killed")
        if time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            pytest.fail(f"the job did not reach the kill point within {timeout:.0f} s")
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


@pytest.mark.parametrize("rule", list(KILLED_JOBS))
def test_killed_job_leaves_nothing_complete_and_rerun_matches(rule, run_copy, complete_run):
    job = KILLED_JOBS[rule]
    for name in [*job["outputs"], job["log"]]:
        (run_copy / name).unlink()
    for name in job.get("folders", []):
        shutil.rmtree(run_copy / name)
    target = job["outputs"][-1]
    log = run_copy / job["log"]

    process = start_snakemake(run_copy, target)
    kill_when(
        process,
        lambda: job["started"](run_copy, log.read_text() if log.exists() else ""),
    )

    # Nothing Snakemake would take as complete: the job is still to be run.
    run_snakemake(run_copy, "--unlock", *SMOKE)
    pending = [job for job in scheduled_jobs(run_copy, targets=[target]) if job.rule == rule]
    assert len(pending) == 1, pending
    # Outputs missing, or present but marked incomplete (--rerun-incomplete forces those).
    reasons = ("Missing output files", "Incomplete output files", "Forced execution")
    assert any(reason in pending[0].reason for reason in reasons), pending[0].reason
    leftovers = [p.name for p in (run_copy / target).parent.iterdir() if p.name.startswith(".")]
    assert all(name.endswith(".tmp") for name in leftovers), leftovers

    run_snakemake(run_copy, *SMOKE, "--cores", "2", target)
    for name in job["outputs"]:
        assert (run_copy / name).read_bytes() == (complete_run / name).read_bytes(), name
    # The rerun replaced the killed write's temporary file: only the outputs are left.
    folders = {(run_copy / name).parent for name in job["outputs"]}
    left = sorted(str(p.relative_to(run_copy)) for f in folders for p in f.iterdir())
    assert left == sorted(job["outputs"])


def test_failing_job_log_names_rule_task_and_cause_and_others_finish(run_copy):
    # Break one trial's tuned prompt (keeping its mtime, so nothing looks updated) and
    # remove what reads it: its activations job must fail. Independently, a ranking of
    # another task must be redone.
    prompt = run_copy / f"{RESULTS}/prompt_tuning/syn_tweet/trial1/prompt.safetensors"
    stat = prompt.stat()
    prompt.write_bytes(b"not a safetensors file")
    os.utime(prompt, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    baseline = f"{RESULTS}/activations/syn_tweet/trial1/baseline.safetensors"
    ranking = f"{RESULTS}/rankings/syn_agnews.parquet"
    (run_copy / baseline).unlink()
    (run_copy / ranking).unlink()

    result = run_snakemake(run_copy, *SMOKE, "--cores", "1", baseline, ranking, check=False)

    assert result.returncode != 0
    assert (run_copy / ranking).exists(), "--keep-going did not finish the independent job"
    assert not (run_copy / baseline).exists()
    # one job dumps every trial of the task: its failure line carries the mark
    # of the trial that was running when it failed
    log = (run_copy / f"logs/{MODEL}/activations/syn_tweet.log").read_text()
    failure = next(line for line in log.splitlines() if " failed " in line)
    assert " [trial 1] rule dump_activations failed" in failure, log[-2000:]
    assert "task=syn_tweet" in failure
    assert "SafetensorError" in failure or "header" in failure.lower(), failure
    # Snakemake's own report points at the log (show-failed-logs in the default profile).
    output = result.stdout + result.stderr
    assert "Error in rule dump_activations" in output
    assert f"logs/{MODEL}/activations/syn_tweet.log" in output
