"""Paper B's training runs (config ``paper_b.runs``) keep the rerun contract: raising the
runs from 1 to 2 schedules the new run's trainings and the outputs that gather every
run, and no job of run 0.

Fast: no job runs. The smoke DAG of paper B's findings is laid out with empty files,
``snakemake --touch --forceall`` records it as done (mtimes in DAG order, each job's params and
code in Snakemake's metadata), and a dry run (``snakemake -n``) says what a second run
would redo, with Snakemake's own params, input and mtime triggers.
"""

from __future__ import annotations

import yaml

from conftest import make_sandbox, run_snakemake
from smoke_runs import MODEL, SMOKE, lay_out_outputs, scheduled_jobs

#: Paper B's findings (every compared training feeds them) and the tables and figures
#: that average the runs.
TARGETS = [
    f"results/{MODEL}/tables/B-findings.csv",
    f"results/{MODEL}/tables/B-T2.csv",
    f"results/{MODEL}/figures/B-F5.png",
    f"results/{MODEL}/tables/B-T5.csv",
    f"results/{MODEL}/tables/B-F2.csv",
    f"results/{MODEL}/tables/B-T9.csv",
    f"results/{MODEL}/tables/B-T4.csv",
    f"results/{MODEL}/tables/B-T1.csv",
]
#: The rules that gather every run's results: they rerun when a run is added.
GATHERING = {
    "findings_b",
    "training_table",
    "figure_task_specificity",
    "continual_tables",
    "proportion_tables",
    "controlled_table",
    "similarity_outputs",
    "deactivation_table",
}
#: The trainings with a run axis, one job per run.
PER_RUN = {
    "neuron_training",
    "continual_training",
    "per_task_training",
    "proportion_training",
    "controlled_overlap",
    "similarity_model",
    "deactivation",
}


def laid_out(workdir) -> None:
    """Every job of :data:`TARGETS` recorded as done, its outputs empty files."""
    lay_out_outputs(workdir, scheduled_jobs(workdir, targets=TARGETS))
    run_snakemake(workdir, "--touch", "--forceall", "--cores", "1", *TARGETS, *SMOKE)


def test_a_second_run_reruns_no_job_of_the_first(tmp_path):
    workdir = make_sandbox(tmp_path)
    laid_out(workdir)
    assert scheduled_jobs(workdir, targets=TARGETS) == []
    (workdir / "change.yaml").write_text(yaml.safe_dump({"paper_b": {"runs": 2}}))
    jobs = scheduled_jobs(
        workdir, "--configfile", "configs/smoke.yaml", "change.yaml", targets=TARGETS
    )
    runs = {dict(job.wildcards).get("run") for job in jobs}
    assert runs == {None, "1"}, [job for job in jobs if dict(job.wildcards).get("run") == "0"]
    assert {job.rule for job in jobs} == GATHERING | PER_RUN
    assert {job.rule for job in jobs if dict(job.wildcards).get("run") is None} == GATHERING
    # run 1 of every training, in its own folder: B-T2's and per-task FT's per task,
    # each continual-learning method's on the order
    tasks = ["syn_agnews", "syn_sst2", "syn_tweet"]
    for rule in ("neuron_training", "per_task_training"):
        assert sorted(job.task for job in jobs if job.rule == rule) == tasks
    methods = sorted(dict(j.wildcards)["method"] for j in jobs if j.rule == "continual_training")
    assert methods == ["ncft", "seqft", "seqlora"]
    # §5's: the cls group's sweep and each training task's, B-T9's q, each M_i
    swept = sorted(dict(j.wildcards)["trained"] for j in jobs if j.rule == "proportion_training")
    assert swept == ["group", "syn_agnews", "syn_sst2"]
    assert [dict(j.wildcards)["q"] for j in jobs if j.rule == "controlled_overlap"] == ["q10"]
    assert sorted(j.task for j in jobs if j.rule == "similarity_model") == [
        "syn_agnews",
        "syn_sst2",
    ]
    assert all("/run1/" in job.output[0] for job in jobs if job.rule in PER_RUN)
    # B-T1's multi-task model of the classification tasks
    assert [dict(j.wildcards)["kind"] for j in jobs if j.rule == "deactivation"] == [
        "classification"
    ]
