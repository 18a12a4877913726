"""Prompt-tuning trials in passes (skillneurons.plan.passes): which trials one
job trains together, and, on dry runs of the smoke config's DAG, that adding trials
reruns no job of a pass that is already complete (the scenario of the slow
tests/test_reruns.py::test_a_third_trial_reruns_no_job_of_the_first_two, at
trials_per_pass 1 and 2, for rules prompt_tuning and prompt_tuning_random_words); the
activation dumps, one job per task for every trial, rerun whole.

A complete run is stood in for without running a job: ``snakemake --touch`` records
every job's metadata (params, input set, code) as a run would, then the outputs are
created in the order the jobs finished, each newer than the one before. The dry runs
use every rerun trigger but code's (a touched job records its rule's source, not what a
run records; nothing here changes code).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conftest import run_snakemake
from skillneurons.plan.passes import pass_name, pass_of, pass_trials, trial_passes
from smoke_runs import MODEL, lay_out_outputs, parse_dry_run, scheduled_jobs

PARAMS_CHANGED = "Params have changed since last execution"
INPUT_UPDATED = "Input files updated by another job"
INPUT_SET_CHANGED = "Set of input files has changed since last execution"

# Per-trial jobs (prompts, dumps) and a per-task job over all trials (the ranking), for
# the configured label words and for a draw of random ones.
TARGETS = (
    f"results/{MODEL}/rankings/syn_sst2.parquet",
    f"results/{MODEL}/random_label_words/draw0/rankings/syn_sst2.parquet",
)
PASS_RULES = {"prompt_tuning", "prompt_tuning_random_words"}
#: The activation dumps: one job per task (and random-words draw) for all its trials.
DUMP_RULES = {"dump_activations", "dump_activations_random_words"}
TRIGGERS = ("--rerun-triggers", "mtime", "params", "input", "software-env")


def test_a_pass_holds_k_consecutive_trials_the_last_pass_capped():
    assert trial_passes(5, 2) == [range(0, 2), range(2, 4), range(4, 5)]
    assert trial_passes(3, 1) == [range(0, 1), range(1, 2), range(2, 3)]
    assert trial_passes(2, 8) == [range(0, 2)]
    assert [pass_of(trial, 5, 2) for trial in range(5)] == ["0-1", "0-1", "2-3", "2-3", "4-4"]
    assert [pass_of(trial, 3, 3) for trial in range(3)] == ["0-2"] * 3
    assert pass_trials("2-3") == [2, 3] and pass_trials(pass_name(range(4, 5))) == [4]
    for name in ("3-2", "2", "a-b"):
        with pytest.raises(ValueError):
            pass_trials(name)
    with pytest.raises(ValueError):
        trial_passes(3, 0)
    with pytest.raises(ValueError):
        pass_of(3, 3, 1)


@pytest.mark.parametrize("per_pass", [1, 2, 3, 5])
def test_adding_a_trial_changes_at_most_the_last_pass(per_pass):
    for trials in range(1, 12):
        before, after = trial_passes(trials, per_pass), trial_passes(trials + 1, per_pass)
        assert after[: len(before) - 1] == before[:-1]
        if trials % per_pass == 0:
            assert after[: len(before)] == before and len(after) == len(before) + 1
        else:
            assert len(after) == len(before) and after[-1] == range(before[-1][0], trials + 1)


def dumped_trials(job) -> set[int]:
    """The trials whose ``trial{t}/`` files a scheduled job writes."""
    return {int(trial) for name in job.output for trial in re.findall(r"/trial(\d+)/", name)}


def settings(trials: int, per_pass: int) -> dict:
    return {
        "prompt_tuning": {"trials": trials, "trials_per_pass": per_pass},
        "random_label_words": {"trials": trials},
    }


def touched_run(workdir: Path, trials: int, per_pass: int) -> None:
    """A stand-in for a complete run of :data:`TARGETS` with ``trials`` trials in passes
    of ``per_pass``, made without running a job (see the module docstring)."""
    (workdir / "before.yaml").write_text(yaml.safe_dump(settings(trials, per_pass)))
    config = ("--configfile", "configs/smoke.yaml", "before.yaml")
    touched = run_snakemake(workdir, "--touch", "--cores", "1", *config, "--", *TARGETS)
    lay_out_outputs(workdir, parse_dry_run(touched.stdout + touched.stderr))


def dry_run(workdir: Path, settings_file: str) -> list:
    """What a dry run of :data:`TARGETS` under ``settings_file`` would run."""
    config = ("--configfile", "configs/smoke.yaml", settings_file)
    return scheduled_jobs(workdir, *config, *TRIGGERS, targets=TARGETS)


# dry runs of a touched smoke DAG (about 7 s each): the slow tier
@pytest.mark.slow
@pytest.mark.parametrize(
    ("per_pass", "before", "after"),
    [
        (1, 2, 3),  # today's one job per trial: the third trial's jobs only
        (2, 2, 3),  # trials a multiple of k: trial 2 in a new pass, nothing of 0 and 1
        (2, 3, 4),  # the last pass grows (2 -> 2-3): trial 2 reruns, nothing of 0 and 1
    ],
)
def test_adding_trials_reruns_no_job_of_a_complete_pass(sandbox, per_pass, before, after):
    touched_run(sandbox, before, per_pass)
    assert dry_run(sandbox, "before.yaml") == []
    (sandbox / "after.yaml").write_text(yaml.safe_dump(settings(after, per_pass)))
    jobs = dry_run(sandbox, "after.yaml")
    old, new = trial_passes(before, per_pass), trial_passes(after, per_pass)
    kept = {trial for members in old if members in new for trial in members}
    rerun = set(range(after)) - kept
    assert kept == set(range(before - before % per_pass)), kept
    passes = [pass_name(members) for members in new if members not in old]
    for rule in PASS_RULES:
        scheduled = sorted(dict(job.wildcards)["trials"] for job in jobs if job.rule == rule)
        assert scheduled == passes, (rule, scheduled)
    for rule in ("prompt_tuning_trial", "prompt_tuning_random_words_trial"):
        assert {trial for job in jobs if job.rule == rule for trial in job.trials} == rerun
    assert not [job for job in jobs if job.trials & kept], "a complete pass reran"
    # the dumps: one job per task (and draw) for every trial, so they rerun
    # whole, the kept trials' files recomputed as they were
    dumps = [job for job in jobs if job.rule in DUMP_RULES]
    assert len(dumps) == 2, dumps
    for job in dumps:
        assert dumped_trials(job) == set(range(after)), job
    for job in jobs:
        if not job.trials and job.rule not in DUMP_RULES:  # a per-task job over all
            # trials: its input set grew
            assert INPUT_SET_CHANGED in job.reason or INPUT_UPDATED in job.reason, job
            assert PARAMS_CHANGED not in job.reason, job
    assert {job.rule for job in jobs if not job.trials} == {
        "rank_neurons",
        "rank_neurons_random_words",
        *DUMP_RULES,
    }
