"""Paper B's training runs (config ``paper_b.runs``): every run of a compared training is
computed by one job of its condition, so raising the runs from 1 to 2
schedules each training's job once, writing both runs' folders (run 0's recomputed as
it was), and the outputs that gather every run.

Fast: no job runs. The smoke DAG of paper B's findings is laid out with empty files,
``snakemake --touch --forceall`` records it as done (mtimes in DAG order, each job's params and
code in Snakemake's metadata), and a dry run (``snakemake -n``) says what a second run
would redo, with Snakemake's own params, input and mtime triggers.
"""

from __future__ import annotations

import pytest
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
#: The trainings with a run axis, one job per condition for all its runs.
MERGED = {
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


def run_folders(job) -> set[str]:
    """The ``run{r}`` folders a scheduled job writes."""
    return {part for name in job.output for part in name.split("/") if part.startswith("run")}


# dry runs of a touched smoke DAG (about 16 s): the slow tier
@pytest.mark.slow
def test_a_second_run_reruns_each_training_once_for_both_runs(tmp_path):
    workdir = make_sandbox(tmp_path)
    laid_out(workdir)
    assert scheduled_jobs(workdir, targets=TARGETS) == []
    (workdir / "change.yaml").write_text(yaml.safe_dump({"paper_b": {"runs": 2}}))
    jobs = scheduled_jobs(
        workdir, "--configfile", "configs/smoke.yaml", "change.yaml", targets=TARGETS
    )
    assert not [job for job in jobs if "run" in dict(job.wildcards)]
    assert {job.rule for job in jobs} == GATHERING | MERGED
    # each training's one job writes run 0's and run 1's folders
    for job in jobs:
        if job.rule in MERGED:
            assert run_folders(job) == {"run0", "run1"}, job
    # one job per condition: B-T2's and per-task FT's per task, each continual-learning
    # method's on the order
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
    # B-T1's multi-task model of the classification tasks
    assert [dict(j.wildcards)["family"] for j in jobs if j.rule == "deactivation"] == [
        "classification"
    ]
