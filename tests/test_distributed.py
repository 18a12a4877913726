"""Data-parallel training (skillneurons.models.distributed): 2 CPU processes over gloo
train a model as one process does, in the library and in a rule launched as 2 processes
(skillneurons.infra.launch)."""

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import torch
import yaml
from safetensors.torch import load_file

from conftest import FSDP_ON_CPU, rerun_sharded, run_snakemake
from skillneurons.infra.launch import Launch
from skillneurons.models.distributed import DataParallel, OneProcess, Processes
from smoke_runs import MODEL, SMOKE, completed_smoke_run, copy_run

WORKER = Path(__file__).with_name("distributed_worker.py")
STAND_IN_SRUN = Path(__file__).with_name("stand_in_srun.py")


def worker_environment(**variables: str) -> dict[str, str]:
    launched = ("WORLD_SIZE", "RANK", "LOCAL_RANK")
    env = {k: v for k, v in os.environ.items() if k not in launched and "SLURM" not in k}
    return {**env, "OMP_NUM_THREADS": "1", **variables}


def run_worker(out: Path, processes: int, **variables: str) -> dict[str, torch.Tensor]:
    env = worker_environment(**variables)
    launcher = [sys.executable]
    if processes > 1:
        launcher += [
            "-m",
            "torch.distributed.run",
            "--standalone",
            f"--nproc-per-node={processes}",
        ]
    subprocess.run([*launcher, str(WORKER), str(out)], check=True, env=env, timeout=300)
    return load_file(out)


@pytest.fixture(scope="module")
def one_process(tmp_path_factory) -> Path:
    """The worker's file after training as one plain process: what every launch of it
    must reproduce (trained once for the module's tests)."""
    out = tmp_path_factory.mktemp("one_process") / "one.safetensors"
    run_worker(out, 1)
    return out


@pytest.mark.slow
def test_two_processes_train_as_one(one_process, tmp_path):
    one = load_file(one_process)
    two = run_worker(tmp_path / "two.safetensors", 2)
    assert one.keys() == two.keys()
    for name in one:
        # Tolerance: the all-reduce sums two half-batch gradients in another order.
        torch.testing.assert_close(two[name], one[name], rtol=1e-5, atol=1e-6, msg=name)
    torch.manual_seed(0)
    initial = torch.nn.Embedding(12, 8).weight  # the worker's initialisation
    assert (one["embedding.weight"] - initial).abs().max() > 0.01  # training moved it


@pytest.mark.slow
def test_two_processes_sharded_with_fsdp_train_as_one(one_process, tmp_path):
    fsdp = Launch(2, fsdp=True).environment({"PYTHONPATH": str(FSDP_ON_CPU)})
    one = load_file(one_process)
    two = run_worker(tmp_path / "two.safetensors", 2, **fsdp)
    assert not one.pop("sharded") and two.pop("sharded")  # DTensor shards in training
    assert one.keys() == two.keys()
    for name in one:
        torch.testing.assert_close(two[name], one[name], rtol=1e-5, atol=1e-6, msg=name)


@pytest.mark.slow
def test_a_job_on_two_nodes_runs_a_torchrun_per_node_through_srun(one_process, tmp_path):
    """The multi-node launch (one torchrun per node through srun, joined by c10d's
    rendezvous) with a stand-in srun that runs each node's task on this machine."""
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    srun = bin_folder / "srun"
    srun.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{STAND_IN_SRUN}" "$@"\n')
    srun.chmod(0o755)
    env = worker_environment(
        PATH=f"{bin_folder}{os.pathsep}{os.environ['PATH']}", SLURM_JOB_ID="4242"
    )
    out = tmp_path / "nodes.safetensors"
    subprocess.run(
        [sys.executable, str(WORKER), str(out), "2", "2"], check=True, env=env, timeout=300
    )
    log = Path(f"{out}.log").read_text()
    assert "starting 2 processes: srun --overlap --nodes=2 --ntasks=2" in log, log
    assert "--nproc-per-node=1" in log and "--nnodes=2 --rdzv-backend=c10d" in log
    assert "2 processes exited with status 0" in log
    one = load_file(one_process)
    two = load_file(out)
    assert one.keys() == two.keys()
    for name in one:
        torch.testing.assert_close(two[name], one[name], rtol=1e-5, atol=1e-6, msg=name)


def test_the_stand_in_srun_refuses_what_srun_would_not_run(tmp_path):
    def srun(*arguments: str, **variables: str) -> subprocess.CompletedProcess:
        command = [sys.executable, str(STAND_IN_SRUN), *arguments, "true"]
        env = {**worker_environment(), **variables}
        return subprocess.run(command, env=env, capture_output=True, text=True)

    options = ("--overlap", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1")
    assert srun(*options, SLURM_JOB_ID="1").returncode == 0
    assert "no SLURM_JOB_ID" in srun(*options).stderr
    assert "one task per node" in srun(*options[:3], SLURM_JOB_ID="1").stderr
    assert "--ntasks must equal" in srun(*options[:2], "--ntasks=4", *options[3:],
                                         SLURM_JOB_ID="1").stderr  # fmt: skip


def test_each_process_takes_every_nth_row_of_a_batch():
    def parallel(index: int) -> Processes:
        return Processes(SimpleNamespace(num_processes=2, process_index=index))

    assert parallel(0).share(list(range(8))) == [0, 2, 4, 6]
    assert parallel(1).share(list(range(8))) == [1, 3, 5, 7]
    with pytest.raises(ValueError, match="batch size 7 does not split evenly over 2"):
        parallel(0).check_batch_size(7)


def test_a_plain_process_trains_the_model_itself_on_whole_batches():
    alone = DataParallel.from_environment()  # no WORLD_SIZE: a plain process
    assert isinstance(alone, OneProcess) and alone.is_main and not alone.sharded
    model = torch.nn.Linear(3, 2)
    model.bias.requires_grad_(False)
    stepped, trained, optimizer, device = alone.prepare(model, 0.1)
    assert stepped is trained is model and device == torch.device("cpu")
    assert optimizer.param_groups[0]["params"] == [model.weight]
    assert optimizer.param_groups[0]["lr"] == 0.1
    assert alone.share([5, 1, 4]) == [5, 1, 4]
    loss = model(torch.ones(1, 3)).sum()
    alone.backward(loss)
    torch.testing.assert_close(model.weight.grad, torch.ones(2, 3))
    assert alone.reduce(loss) is loss
    alone.check_batch_size(7)  # any batch splits over one process


# Full fine-tuning of one task (per-task FT) and NCFT over an order (confined neuron
# deltas, one training per stage): the smoke config's paper-B training rules of both kinds.
LAUNCHED = {
    "per_task_training": f"results/{MODEL}/paper_b/continual/run0/per_task/syn_sst2",
    "continual_training": f"results/{MODEL}/paper_b/continual/run0/order1/ncft",
}


def dev_curve(metrics: dict) -> list[dict]:
    """Every evaluation of a job's trainings (NCFT: one training per stage)."""
    return [point for stage in metrics.get("stages", [metrics]) for point in stage["dev_curve"]]


@pytest.mark.slow
def test_a_rule_launched_as_two_processes_computes_what_one_does(tmp_path_factory):
    one = completed_smoke_run(tmp_path_factory)
    two = copy_run(one, tmp_path_factory.mktemp("two_processes") / "run")
    run_snakemake(
        two, *SMOKE, "--cores", "2", "--forcerun", *LAUNCHED,
        "--set-resources", *(f"{rule}:processes=2" for rule in LAUNCHED),
        "--set-threads", *(f"{rule}=2" for rule in LAUNCHED),
        "--", *(f"{stem}.parquet" for stem in LAUNCHED.values()),
    )  # fmt: skip
    for rule, stem in LAUNCHED.items():
        # one job (and log) for every run: no run folder in the log's path
        log_path = stem.replace("results/", "logs/", 1).replace("/run0/", "/")
        log = (two / log_path).with_suffix(".log").read_text()
        assert "starting 2 processes" in log and "[rank 1]" in log, log[-2000:]
        assert "2 processes exited with status 0" in log
        pd.testing.assert_frame_equal(
            pd.read_parquet(two / f"{stem}.parquet"), pd.read_parquet(one / f"{stem}.parquet")
        )
        curves = [dev_curve(json.loads((run / f"{stem}.json").read_text())) for run in (one, two)]
        assert len(curves[0]) == len(curves[1]) > 0
        for single, shared in zip(*curves, strict=True):
            assert shared["dev_accuracy"] == single["dev_accuracy"], rule
            # The batch loss, averaged over the two processes' halves.
            assert shared["train_loss"] == pytest.approx(single["train_loss"], abs=1e-5), rule


# The rules the 7B profile shards with FSDP (profiles/slurm-llm: fsdp: 1) that the smoke
# config runs (deactivation of the generation tasks: tests/test_generation_workflow.py),
# with outputs. Of continual_training, the methods whose training differs from per-task
# FT's: LoRA adapters and NCFT's neuron deltas, stage after stage. SeqFT's stages are
# per-task FT's full fine-tuning (skillneurons.paper_b.continual._fully_fine_tune) in
# SeqLoRA's loop (_sequential_stages): a sharded job of its own (40 s) adds no path.
PAPER_B = f"results/{MODEL}/paper_b"
SHARDED = {
    "deactivation": [f"{PAPER_B}/classification/run0/deactivation"],
    "proportion_training": [f"{PAPER_B}/generalization/run0/cls/proportions/group"],
    "similarity_model": [f"{PAPER_B}/similarity/run0/syn_sst2"],
    "per_task_training": [f"{PAPER_B}/continual/run0/per_task/syn_sst2"],
    "continual_training": [
        f"{PAPER_B}/continual/run0/order1/{method}" for method in ("seqlora", "ncft")
    ],
}


def test_every_rule_the_llm_profile_shards_is_tested_sharded():
    profile = Path(__file__).parents[1] / "profiles/slurm-llm/config.yaml"
    resources = yaml.safe_load(profile.read_text())["set-resources"]
    sharded = {rule for rule, given in resources.items() if given.get("fsdp")}
    assert sharded == set(SHARDED)


@pytest.mark.slow
def test_rules_sharded_with_fsdp_compute_what_one_process_does(tmp_path_factory):
    """The sharded rules as 2 processes with accelerate's FSDP2 (on CPU: the test's
    sitecustomize, tests/fsdp_on_cpu) give one process's results."""
    one = completed_smoke_run(tmp_path_factory)
    two = copy_run(one, tmp_path_factory.mktemp("fsdp") / "run")
    stems = [stem for outputs in SHARDED.values() for stem in outputs]
    rerun_sharded(two, list(SHARDED), [f"{stem}.parquet" for stem in stems], *SMOKE)
    for stem in stems:
        pd.testing.assert_frame_equal(
            pd.read_parquet(two / f"{stem}.parquet"), pd.read_parquet(one / f"{stem}.parquet")
        )
