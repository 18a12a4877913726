"""The cluster profile (profiles/slurm): what every rule declares, and the smoke pipeline
run through the profile on a real single-node SLURM cluster (tests/local_slurm.py).

The cluster needs Debian's slurm-wlm and munge packages (``.ci/run`` installs them) and
root; without them the cluster test is skipped, saying why. Its outputs must equal those
of a local run of the same config: the executor changes where jobs run, not what they
compute.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, SNAKEMAKE, make_sandbox
from local_slurm import LocalSlurm, SlurmUnavailable, missing_programs
from smoke_runs import SMOKE, completed_smoke_run

PROFILE = ROOT / "profiles/slurm/config.yaml"
# How a script hands the job's GPU (if granted) to torch: configure_torch or load_on_device.
GPU_REQUEST = 'snakemake.threads, snakemake.resources.get("gpu", 0))'
# Outputs that must be equal between a SLURM and a local run (every output of the
# stage run here: none of them is a time measurement).
DETERMINISTIC = (
    "data/splits/**/*.parquet",
    "results/*/prompt_tuning/**/*",
    "results/*/activations/**/*",
    "results/*/predictivity/*",
    "results/*/rankings/*",
    "results/*/skill_neurons/**/*",
    "results/*/tables/A-T1*.csv",
    "results/*/tables/A-T3.csv",
    "results/*/figures/*",
)

# The skill-neuron stage of the smoke pipeline (splits, prompt tuning, activations,
# rankings, controls; Tables A-T1, A-T3, Figures A-F1/F2/F3_F9/F10): every kind of job
# (local, GPU, grouped) in about 30 submissions, a few minutes on 2 cores. Later stages
# add more jobs of the same kinds.
SLURM_TARGETS = [
    f"results/minilm-l2/{kind}/{name}"
    for kind, names in {
        "tables": ["A-T1.csv", "A-T3.csv", "A-T1_prompt_tuning.csv"],
        "figures": ["A-F1.png", "A-F2.png", "A-F3_F9.png", "A-F10.png"],
    }.items()
    for name in names
]

RULES_PROBE = """
import json
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
    workflow = api.workflow(
        resource_settings=ResourceSettings(),
        config_settings=ConfigSettings(configfiles=[Path("configs/smoke.yaml")]),
        snakefile=Path("Snakefile"),
        workdir=Path("."),
    )._workflow
    print(json.dumps({
        rule.name: {
            "threads": rule.ruleinfo.threads is not None,
            "thread_count": rule.ruleinfo.threads
            if isinstance(rule.ruleinfo.threads, int) else None,
            "resources": sorted(name for name in rule.resources if not name.startswith("_")),
            "script": rule.ruleinfo.script
            and str(Path(str(rule.snakefile)).resolve().parent / rule.ruleinfo.script),
            "local": rule.name in workflow._localrules,
        }
        for rule in workflow.rules
    }))
"""


@pytest.fixture(scope="module")
def profile() -> dict:
    return yaml.safe_load(PROFILE.read_text())


@pytest.fixture(scope="module")
def rules(tmp_path_factory) -> dict[str, dict]:
    """Every rule of the workflow: whether it declares threads, its resources, script."""
    sandbox = make_sandbox(tmp_path_factory.mktemp("rules"))
    result = subprocess.run(
        [sys.executable, "-c", RULES_PROBE], cwd=sandbox, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def requests_gpu(script: str | None) -> bool:
    return script is not None and GPU_REQUEST in Path(script).read_text()


def test_every_rule_declares_threads_and_resources(rules):
    assert all(rule["script"] is None or Path(rule["script"]).is_file() for rule in rules.values())
    for name, rule in rules.items():
        if rule["script"] is None:
            continue  # a target rule (all, paper_a): it runs nothing
        assert rule["threads"], f"rule {name} declares no threads"
        assert {"mem_mb", "runtime"} <= set(rule["resources"]), f"rule {name}: {rule}"


def test_gpu_rules_get_a_gpu_on_the_cluster_and_others_do_not(rules, profile):
    set_resources = profile["set-resources"]
    for name, rule in rules.items():
        granted = set_resources.get(name, {})
        if requests_gpu(rule["script"]):
            assert granted.get("gpu") == 1, f"rule {name} runs a model but gets no GPU"
            # torch gets the job's threads (the profile's set-threads, else the rule's):
            # exactly the CPUs the job is granted.
            threads = profile.get("set-threads", {}).get(name, rule["thread_count"])
            assert granted.get("cpus_per_gpu") == threads, name
        else:
            assert "gpu" not in granted, f"rule {name} never uses the GPU it would get"
    unknown = set(set_resources) - set(rules)
    assert not unknown, f"set-resources names rules that do not exist: {unknown}"


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
    assert len(job_ids) >= 10, output[-4000:]
    assert len(set(job_ids)) == len(job_ids)
    for job_id in job_ids:
        assert cluster.job_state(job_id) == "COMPLETED", job_id
    logs = {path.stem for path in (sandbox / ".snakemake/slurm_logs").glob("**/*.log")}
    assert set(job_ids) <= logs
    folders = {path.name for path in (sandbox / ".snakemake/slurm_logs").iterdir()}
    assert "rule_prompt_tuning" in folders
    assert any(name.startswith("group_rankings") for name in folders), folders
    assert not {"rule_split", "rule_synthesize", "rule_skill_neuron_table"} & folders


def test_outputs_equal_a_local_run(slurm_run, tmp_path_factory):
    sandbox, _ = slurm_run
    local = completed_smoke_run(tmp_path_factory)
    compared = 0
    for pattern in DETERMINISTIC:
        # The local run is the whole pipeline, the SLURM run a part of it.
        for path in sorted(p.relative_to(sandbox) for p in sandbox.glob(pattern) if p.is_file()):
            assert (local / path).read_bytes() == (sandbox / path).read_bytes(), path
            compared += 1
    assert compared > 50


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
