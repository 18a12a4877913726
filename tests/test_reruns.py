"""Incremental reruns on the smoke config: after a complete run, a change reruns exactly
the jobs that depend on it (Snakemake's params/input/mtime triggers over the DAG).

Every test works on a copy of one complete smoke run and only dry-runs it
(``snakemake -n``), comparing what would run with what must run. "What depends on X"
is Snakemake's own forced-rerun closure (``-n -R X`` on the untouched run), so the
tests hold for whatever rules later stages add.
"""

from __future__ import annotations

import pytest
import yaml

from conftest import ROOT, run_snakemake
from smoke_runs import ANALYSIS_ROOTS, MODEL, SMOKE, scheduled_jobs, upstream_rules

pytestmark = pytest.mark.slow

PARAMS_CHANGED = "Params have changed since last execution"
INPUT_UPDATED = "Input files updated by another job"
INPUT_SET_CHANGED = "Set of input files has changed since last execution"


def closure(workdir, *forced: str) -> set[tuple]:
    """The jobs ``-R forced`` would run on an unchanged run: them and all dependants."""
    return {job.key() for job in scheduled_jobs(workdir, "--forcerun", *forced)}


def test_second_run_schedules_nothing(complete_run):
    assert scheduled_jobs(complete_run) == []
    # Not "params": Snakemake 9.27's --list-changes params lists every job that has
    # params on an up-to-date run (98 here) although its params trigger, checked by
    # the dry run above, schedules none of them.
    for trigger in ("input", "code"):
        changes = run_snakemake(complete_run, *SMOKE, "--list-changes", trigger)
        listed = [line for line in changes.stdout.splitlines() if line.strip()]
        assert listed == [], f"--list-changes {trigger}: {listed}"


def reruns_after(run_copy, change: dict) -> list:
    """The jobs a dry run schedules after ``change`` is laid over the smoke config."""
    (run_copy / "change.yaml").write_text(yaml.safe_dump(change))
    return scheduled_jobs(run_copy, "--configfile", "configs/smoke.yaml", "change.yaml")


@pytest.mark.parametrize(
    ("change", "readers"),
    [
        # The noise of the perturbation curves (A-F4/F6/F11/F15, and of the adapter and
        # BitFit models'): no upstream job reads it.
        (
            {"perturbation": {"sigma": 0.25}},
            {"perturbation_curves", "tuning_method_perturbation"},
        ),
        # A timing setting: only the speed benchmark reads it, not the pruned re-tuning.
        ({"pruning": {"speed_repeats": 4}}, {"pruning_speed"}),
        # Paper B: neuron-only training steps retrain the B-T2 models, not the
        # multi-task model of B-T1 nor the A-vs-B comparison.
        ({"paper_b": {"neuron_training": {"max_steps": 5}}}, {"neuron_training"}),
    ],
)
def test_a_setting_reruns_only_the_jobs_that_read_it(run_copy, change, readers):
    jobs = reruns_after(run_copy, change)
    rules = {job.rule for job in jobs}
    changed = [job for job in jobs if PARAMS_CHANGED in job.reason]
    assert {job.rule for job in changed} == readers, f"{change} changed the params of {changed}"
    upstream = upstream_rules(run_copy, *ANALYSIS_ROOTS)
    assert not rules & upstream, f"{change} reran upstream jobs: {rules & upstream}"
    for job in jobs:
        assert PARAMS_CHANGED in job.reason or INPUT_UPDATED in job.reason, job
    # Exactly the jobs whose params read the setting, and everything downstream of them.
    outputs = sorted(name for job in changed for name in job.output)
    assert {job.key() for job in jobs} == closure(run_copy, *outputs)


def test_a_third_trial_reruns_no_job_of_the_first_two(run_copy):
    smoke = yaml.safe_load((ROOT / "configs/smoke.yaml").read_text())
    trials = smoke["prompt_tuning"]["trials"]
    jobs = reruns_after(run_copy, {"prompt_tuning": {"trials": trials + 1}})
    new = [job for job in jobs if job.trials == {trials}]
    assert {job.rule for job in new} >= {"prompt_tuning", "prompt_tuning_trial"}
    old = [job for job in jobs if job.trials - {trials}]
    assert old == [], f"jobs of existing trials rerun: {old}"
    # the dumps are one job per task for every trial: they rerun whole
    assert sorted(job.task for job in jobs if job.rule == "dump_activations") == sorted(
        smoke["tasks"]
    )
    # Per-task outputs over all trials rerun because a trial was added, nothing else.
    for job in jobs:
        if job not in new:
            assert (
                INPUT_SET_CHANGED in job.reason
                or INPUT_UPDATED in job.reason
                or (PARAMS_CHANGED in job.reason)
            ), job


def test_adding_a_task_schedules_its_jobs_and_cross_task_outputs(run_copy):
    smoke = yaml.safe_load((ROOT / "configs/smoke.yaml").read_text())
    new_task = "syn_qnli"
    assert new_task not in smoke["tasks"]
    tasks = ",".join([*smoke["tasks"], new_task])
    jobs = scheduled_jobs(run_copy, "--config", f"tasks=[{tasks}]")
    new_rules = {job.rule for job in jobs if job.task == new_task}
    assert {"synthesize", "split", "prompt_tuning", "dump_activations", "rank_neurons"} <= (
        new_rules
    )
    trials = smoke["prompt_tuning"]["trials"]
    assert sum(job.rule == "prompt_tuning" and job.task == new_task for job in jobs) == trials
    upstream = upstream_rules(run_copy, *ANALYSIS_ROOTS)
    for job in jobs:
        if job.task is None or job.task == new_task:
            continue  # the new task's own jobs, or outputs over all tasks
        # A job of an existing task reruns only because the new task is among its inputs
        # (e.g. the perturbation curves use every task's neuron order).
        assert job.rule not in upstream, job
        assert INPUT_SET_CHANGED in job.reason or INPUT_UPDATED in job.reason, job


def test_deleting_a_ranking_reruns_it_and_its_dependants_only(run_copy):
    ranking = f"results/{MODEL}/rankings/syn_agnews.parquet"
    expected = closure(run_copy, ranking)
    (run_copy / ranking).unlink()
    jobs = scheduled_jobs(run_copy)
    assert [job.task for job in jobs if job.rule == "rank_neurons"] == ["syn_agnews"]
    upstream = upstream_rules(run_copy, *ANALYSIS_ROOTS) - {"rank_neurons"}
    assert not {job.rule for job in jobs} & upstream
    assert {job.key() for job in jobs} == expected
