"""The cluster profile (profiles/slurm): what every rule declares, and part of the smoke
pipeline run through the profile on a real single-node SLURM cluster
(tests/local_slurm.py).

The cluster needs Debian's slurm-wlm and munge packages (``.ci/run`` installs them) and
root; without them the cluster test is skipped, saying why. Its outputs must equal those
of a local run of the same config: the executor changes where jobs run, not what they
compute.
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, SNAKEMAKE, make_sandbox
from local_slurm import LocalSlurm, SlurmUnavailable, missing_programs
from smoke_runs import SMOKE, completed_smoke_run, parse_dry_run

PROFILE = ROOT / "profiles/slurm/config.yaml"
# The profile for configs/llm.yaml's 7B models: the same rules and settings, other resources.
LLM_PROFILE = ROOT / "profiles/slurm-llm/config.yaml"
RESOURCE_KEYS = ("set-resources", "set-threads")
# How a script hands the job's GPU (if granted) to torch: configure_torch, load_on_device
# or fresh_models (every run of a paper-B condition), each given the job's GPU count.
GPU_REQUEST = 'snakemake.resources.get("gpu", 0)'
# How a script starts itself as the processes its resources ask for.
LAUNCH_CALL = "relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])"
# The rules that fully fine-tune the model (paper B): sharded with FSDP for 7B models.
FULL_FINE_TUNING = {
    "deactivation", "similarity_model", "continual_training", "per_task_training",
    "proportion_training",
}  # fmt: skip
# What the SLURM run submits: one task's skill-neuron chain of the smoke config (its two
# trials' prompt tuning and activation dumps, GPU jobs; its ranking, a group job) and one
# training job that the fitted profile runs on the test node's 2 (stand-in) GPUs: its
# script starts itself again as 2 processes (skillneurons.infra.launch), which train
# over gloo. Every kind of job the profile handles (GPU, grouped, multi-process, local)
# in 6 submissions; more tasks or stages would add jobs of the same kinds (the whole
# skill-neuron stage of the three tasks, 18 submissions, took 9 minutes on 2 cores).
TASK = "syn_sst2"
LAUNCHED_RULE = "per_task_training"
LAUNCHED = f"results/minilm-l2/paper_b/continual/run0/per_task/{TASK}"
SLURM_TARGETS = [f"results/minilm-l2/rankings/{TASK}.parquet", f"{LAUNCHED}.parquet"]
# The submissions, in the SLURM log folder of each rule (a group job's: its group's).
SUBMITTED = {
    "rule_prompt_tuning": 2,
    "rule_dump_activations": 1,  # one job dumps both trials
    "group_rankings_rank_neurons": 1,
    f"rule_{LAUNCHED_RULE}": 1,
}
# Local rules of the run (localrules in workflow/rules): they run on the submitting host.
LOCAL = ("synthesize", "split", "prompt_tuning_trial")
# Outputs that must be equal between a SLURM and a local run: every output of the jobs
# run here (none of them is a time measurement).
DETERMINISTIC = (
    f"data/splits/{TASK}/*.parquet",
    f"results/*/prompt_tuning/{TASK}/**/*",
    f"results/*/activations/{TASK}/**/*",
    f"results/*/predictivity/{TASK}.*",
    f"results/*/rankings/{TASK}.parquet",
    f"{LAUNCHED}.parquet",
)


@pytest.fixture(scope="module")
def profile() -> dict:
    return yaml.safe_load(PROFILE.read_text())


def requests_gpu(script: str | None) -> bool:
    return script is not None and GPU_REQUEST in Path(script).read_text()


def test_every_rule_that_loads_a_model_waits_for_its_files(rules):
    # model_files: a GGUF model (SmolLM2) is converted by rule prepare_model first
    for name, rule in rules.items():
        if requests_gpu(rule["script"]):
            assert "model" in rule["inputs"], f"rule {name} loads a model without input model"


def test_every_rule_has_threads_and_declares_resources(rules):
    assert all(rule["script"] is None or Path(rule["script"]).is_file() for rule in rules.values())
    for name, rule in rules.items():
        if rule["script"] is None:
            continue  # a target rule (all, paper_a): it runs nothing
        # one thread unless the rule says otherwise (Snakemake's default); the cluster
        # profiles' set-threads give the model rules more
        assert rule["threads"] is not None and rule["threads"] >= 1, f"rule {name}: {rule}"
        assert {"mem_mb", "runtime"} <= set(rule["resources"]), f"rule {name}: {rule}"


def test_every_rule_runs_in_the_project_environment(rules):
    # given once, in the Snakefile (--software-deployment-method conda on a cluster)
    environment = str(ROOT / "envs" / "skillneurons.yaml")
    for name, rule in rules.items():
        assert rule["conda"] == (environment if rule["runs"] else None), name


@pytest.fixture(scope="module")
def llm_profile() -> dict:
    return yaml.safe_load(LLM_PROFILE.read_text())


@pytest.mark.parametrize("which", ["slurm", "slurm-llm"])
def test_gpu_rules_get_gpus_on_the_cluster_and_others_do_not(rules, profile, llm_profile, which):
    chosen = profile if which == "slurm" else llm_profile
    set_resources = chosen["set-resources"]
    for name, rule in rules.items():
        granted = set_resources.get(name, {})
        if requests_gpu(rule["script"]):
            assert granted.get("gpu", 0) >= 1, f"rule {name} runs a model but gets no GPU"
            # torch gets the job's threads (the profile's set-threads, else the rule's):
            # exactly the CPUs the job is granted, shared among its processes.
            threads = chosen.get("set-threads", {}).get(name, rule["threads"])
            assert granted.get("cpus_per_gpu") * granted["gpu"] == threads, name
            if granted["gpu"] > 1 or granted.get("fsdp"):
                # A job of several processes: the script must start them.
                assert LAUNCH_CALL in Path(rule["script"]).read_text(), name
        else:
            assert "gpu" not in granted, f"rule {name} never uses the GPU it would get"
    unknown = set(set_resources) - set(rules)
    assert not unknown, f"set-resources names rules that do not exist: {unknown}"


def test_the_llm_profile_shards_full_fine_tuning_over_gpus(profile, llm_profile):
    assert {k: v for k, v in llm_profile.items() if k not in RESOURCE_KEYS} == {
        k: v for k, v in profile.items() if k not in RESOURCE_KEYS
    }
    assert llm_profile["set-resources"].keys() == profile["set-resources"].keys()
    assert llm_profile["set-threads"].keys() == profile["set-threads"].keys()
    sharded = {name for name, r in llm_profile["set-resources"].items() if r.get("fsdp")}
    assert sharded == FULL_FINE_TUNING
    for name in sharded:
        assert llm_profile["set-resources"][name]["gpu"] >= 2, name
    assert all(r["gpu"] == 1 for r in profile["set-resources"].values())


# Table 14's six orders over the Standard and Large benchmarks, as configs/llm.yaml's
# comment lists them for a run of all six.
TABLE_14 = [
    ["dbpedia14", "amazon5", "yahoo10", "agnews4"],
    ["dbpedia14", "amazon5", "agnews4", "yahoo10"],
    ["yahoo10", "amazon5", "agnews4", "dbpedia14"],
    ["mnli", "qqp", "rte", "amazon5", "sst2", "dbpedia14", "agnews4", "yahoo10"],
    ["amazon5", "agnews4", "yahoo10", "qqp", "rte", "mnli", "dbpedia14", "sst2"],
    ["agnews4", "yahoo10", "sst2", "rte", "qqp", "mnli", "dbpedia14", "amazon5"],
]


def test_llm_config_dry_runs_table_14_on_sharded_jobs(sandbox):
    llm = yaml.safe_load((sandbox / "configs/llm.yaml").read_text())
    for order in TABLE_14:
        assert f"#   - [{', '.join(order)}]" in (sandbox / "configs/llm.yaml").read_text()
    benchmarks = sorted({task for order in TABLE_14 for task in order} - set(llm["tasks"]))
    (sandbox / "table14.yaml").write_text(
        yaml.safe_dump({"tasks": llm["tasks"] + benchmarks,
                        "paper_b": {"continual": {"orders": TABLE_14}}})
    )  # fmt: skip
    output = subprocess.run(
        [str(SNAKEMAKE), "--profile", "profiles/slurm-llm", "--configfile", "configs/llm.yaml",
         "table14.yaml", "-n", "--", "paper_b"],
        cwd=sandbox, capture_output=True, text=True,
    )  # fmt: skip
    assert output.returncode == 0, output.stdout[-3000:] + output.stderr[-3000:]
    jobs = parse_dry_run(output.stdout)
    continual = [job for job in jobs if job.rule == "continual_training"]
    runs = {
        (w["model"], w["order"], w["method"]) for w in map(dict, (j.wildcards for j in continual))
    }
    assert runs == {
        (model, f"order{n}", method)
        for model in ("llama-2-7b", "bloom-7b1")
        for n in range(1, 7)
        for method in ("seqft", "seqlora", "ncft")
    }
    per_task = [job for job in jobs if job.rule == "per_task_training"]
    assert {dict(job.wildcards)["task"] for job in per_task} >= set(benchmarks)
    for job in continual + per_task:
        assert "gpu=8" in job.resources and "fsdp=1" in job.resources, job
    # Table 3's generation group on both models: each task's B-T2 job on one GPU, the
    # generation tasks' multi-task model (B-T1) sharded
    tasks = llm["paper_b"]["generation"]["tasks"]
    generation = [
        job
        for job in jobs
        if job.rule == "neuron_training" and dict(job.wildcards)["task"] in tasks
    ]
    # configs/llm.yaml's 3 runs of a task in one job (one model load per run)
    assert len(generation) == 2 * len(tasks) == 12
    sharded = [
        job
        for job in jobs
        if job.rule == "deactivation" and dict(job.wildcards)["family"] == "generation"
    ]
    assert {dict(job.wildcards)["model"] for job in sharded} == {"llama-2-7b", "bloom-7b1"}
    for job in sharded:
        assert "gpu=8" in job.resources and "fsdp=1" in job.resources, job


def test_local_rules_are_data_tables_and_figures(rules, profile):
    for name in ("synthesize", "split", "subtask_split", "download"):
        assert rules[name]["local"], f"rule {name} should run on the submitting host"
    for name, rule in rules.items():
        if rule["local"]:
            assert not requests_gpu(rule["script"]), f"local rule {name} runs a model"
    grouped = [entry.split("=")[0] for entry in profile["groups"]]
    assert set(grouped) <= set(rules) and not any(rules[name]["local"] for name in grouped)


def test_profile_polls_squeue(profile):
    assert profile["executor"] == "slurm"
    assert profile["slurm-status-command"] == "squeue"


def partitions(profile: dict) -> list[str]:
    names = [profile["default-resources"]["slurm_partition"]]
    for resources in profile["set-resources"].values():
        if resources.get("slurm_partition") not in names + [None]:
            names.append(resources["slurm_partition"])
    return names


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, profile):
    pytest.importorskip("snakemake_executor_plugin_slurm", reason="pip install -e '.[slurm]'")
    missing = missing_programs()
    if missing:
        pytest.skip(
            f"SLURM is not installed (missing {', '.join(missing)}; apt-get install "
            "slurm-wlm munge)"
        )
    if os.geteuid() != 0:
        pytest.skip("the test cluster's daemons need root")
    local = LocalSlurm(tmp_path_factory.mktemp("slurm"), partitions(profile))
    try:
        local.start()
    except SlurmUnavailable as error:
        local.stop()
        pytest.skip(f"SLURM could not be started: {error}")
    yield local
    local.stop()


def fitted_profile(profile: dict, node: dict[str, str]) -> dict:
    """The profile with every request capped at what the one test node has.

    Paper-scale memory (and CPU) requests exceed a CI machine; SLURM would reject them.
    """
    memory, cpus = int(node["RealMemory"]), int(node["CPUs"])
    fitted = copy.deepcopy(profile)
    for resources in [fitted["default-resources"], *fitted["set-resources"].values()]:
        if "mem_mb" in resources:
            resources["mem_mb"] = min(resources["mem_mb"], memory)
        if "cpus_per_gpu" in resources:
            resources["cpus_per_gpu"] = min(resources["cpus_per_gpu"], cpus)
    fitted["set-resources"][LAUNCHED_RULE].update(gpu=2, cpus_per_gpu=1)
    fitted["set-threads"][LAUNCHED_RULE] = 2
    return fitted


@pytest.fixture(scope="module")
def slurm_run(cluster, profile, tmp_path_factory):
    """The smoke pipeline through the SLURM profile, and Snakemake's output."""
    sandbox = make_sandbox(tmp_path_factory.mktemp("smoke_slurm"))
    fitted = sandbox / "slurm_profile"
    fitted.mkdir()
    (fitted / "config.yaml").write_text(
        yaml.safe_dump(fitted_profile(profile, cluster.node_hardware))
    )
    command = [
        str(SNAKEMAKE),
        "--profile",
        str(fitted),
        *SMOKE,
        # Test-only speed-ups: poll every 2 s, not 40; the file system is local.
        "--slurm-init-seconds-before-status-checks",
        "2",
        "--latency-wait",
        "5",
        "--slurm-keep-successful-logs",
        *SLURM_TARGETS,
    ]
    env = {**cluster.env(), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    result = subprocess.run(command, cwd=sandbox, capture_output=True, text=True, env=env)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:] + cluster.logs()[-4000:]
    return sandbox, output


def test_jobs_went_through_sbatch(slurm_run, cluster):
    sandbox, output = slurm_run
    job_ids = re.findall(r"has been submitted with SLURM jobid (\d+)", output)
    assert len(job_ids) == sum(SUBMITTED.values()), output[-4000:]
    assert len(set(job_ids)) == len(job_ids)
    for job_id in job_ids:
        assert cluster.job_state(job_id) == "COMPLETED", job_id
    slurm_logs = sandbox / ".snakemake/slurm_logs"
    assert set(job_ids) == {path.stem for path in slurm_logs.glob("**/*.log")}
    folders = {folder.name: len(list(folder.glob("**/*.log"))) for folder in slurm_logs.iterdir()}
    assert folders == SUBMITTED
    for rule in LOCAL:  # run on this host, never submitted (no folder above)
        assert re.search(rf"^localrule {rule}:$", output, re.M), rule


def test_a_training_job_ran_as_two_processes_on_its_two_gpus(slurm_run):
    sandbox, _ = slurm_run
    # one job (and log) for every run: no run folder in the log's path
    log_path = LAUNCHED.replace("results/", "logs/", 1).replace("/run0/", "/")
    log = (sandbox / log_path).with_suffix(".log").read_text()
    assert "starting 2 processes" in log and "--nproc-per-node=2" in log, log[-3000:]
    assert "[rank 0]" in log and "[rank 1]" in log
    assert "2 processes exited with status 0" in log
    assert (sandbox / ".snakemake/slurm_logs" / f"rule_{LAUNCHED_RULE}").is_dir()


def test_outputs_equal_a_local_run(slurm_run, tmp_path_factory):
    sandbox, _ = slurm_run
    local = completed_smoke_run(tmp_path_factory)
    compared = {}
    for pattern in DETERMINISTIC:
        # The local run is the whole pipeline, the SLURM run a part of it.
        paths = sorted(p.relative_to(sandbox) for p in sandbox.glob(pattern) if p.is_file())
        for path in paths:
            assert (local / path).read_bytes() == (sandbox / path).read_bytes(), path
        compared[pattern] = len(paths)
    # 3 splits; per trial a pass (metrics, prompt, Snakemake's timestamp) and its copy
    # (metrics, prompt); per trial 5 dumps (the baseline, the dev and test splits' prompt
    # and input tokens); the predictivity, the ranking, the training.
    assert list(compared.values()) == [3, 2 * (3 + 2), 2 * 5, 1, 1, 1], compared


def test_second_slurm_run_submits_nothing(slurm_run, cluster):
    sandbox, _ = slurm_run
    result = subprocess.run(
        [
            str(SNAKEMAKE),
            "--profile",
            str(sandbox / "slurm_profile"),
            *SMOKE,
            "-n",
            *SLURM_TARGETS,
        ],
        cwd=sandbox,
        capture_output=True,
        text=True,
        env=cluster.env(),
    )
    assert "Nothing to be done" in result.stdout + result.stderr
