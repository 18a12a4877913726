"""Starting a rule's script as several processes (skillneurons.infra.launch): the world
size a job's resources ask for, the launch command, and that only the main process of a
launched job writes outputs."""

import sys

import pytest

from skillneurons.infra.io import write_json
from skillneurons.infra.launch import FSDP_ENVIRONMENT, Launch, relaunch_if_parallel


def test_world_size_follows_the_gpus_or_the_cpu_processes():
    assert Launch.from_resources({"mem_mb": 100}, threads=2) == Launch(1, 1, 2, False)
    assert Launch.from_resources({"gpu": 4, "fsdp": 1}, threads=8) == Launch(4, 1, 8, True)
    assert Launch.from_resources({"processes": 2}, threads=2).processes == 2
    assert Launch.from_resources({"gpu": 8, "nodes": 2}, threads=16).per_node == 4
    with pytest.raises(ValueError, match="4 processes and 2 GPUs: .* one process per GPU"):
        Launch.from_resources({"gpu": 2, "processes": 4}, threads=2)
    with pytest.raises(ValueError, match="3 processes do not split evenly over 2 nodes"):
        Launch.from_resources({"gpu": 3, "nodes": 2}, threads=2)
    with pytest.raises(ValueError, match="fsdp without GPUs"):
        Launch.from_resources({"processes": 2, "fsdp": 1}, threads=2)


def test_one_node_runs_torchrun_standalone():
    command = Launch(2, threads=4).command("job.py")
    assert command == [
        sys.executable, "-m", "torch.distributed.run", "--nproc-per-node=2", "--standalone",
        "job.py",
    ]  # fmt: skip
    assert Launch(2).command("job.py", ["out", "7"])[-3:] == ["job.py", "out", "7"]


def test_several_nodes_run_one_torchrun_each_through_srun(monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    with pytest.raises(RuntimeError, match="outside a SLURM job"):
        Launch(8, nodes=2).command("job.py")
    monkeypatch.setenv("SLURM_JOB_ID", "417")
    command = Launch(8, nodes=2).command("job.py")
    assert command[:6] == ["srun", "--overlap", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1",
                           sys.executable]  # fmt: skip
    assert "--nproc-per-node=4" in command and "--nnodes=2" in command
    assert "--rdzv-id=417" in command and command[-1] == "job.py"
    assert Launch(8, nodes=2).command("job.py", ["out"])[-2:] == ["job.py", "out"]


def test_processes_share_the_threads_and_fsdp_is_set_for_accelerate():
    environment = Launch(4, threads=8, fsdp=True).environment({"PATH": "/bin"})
    assert environment["OMP_NUM_THREADS"] == "2" and environment["PATH"] == "/bin"
    assert environment["ACCELERATE_USE_FSDP"] == "true" and environment["FSDP_VERSION"] == "2"
    plain = Launch(2, threads=1).environment({})
    assert plain == {"OMP_NUM_THREADS": "1"} and not FSDP_ENVIRONMENT.keys() & plain.keys()


def test_a_plain_job_and_a_launched_process_carry_on(monkeypatch, tmp_path):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    relaunch_if_parallel({"mem_mb": 100}, 2, str(tmp_path / "job.log"))  # returns
    monkeypatch.setenv("WORLD_SIZE", "2")
    relaunch_if_parallel({"processes": 2}, 2, str(tmp_path / "job.log"))  # already launched
    assert not (tmp_path / "job.log").exists()


def test_only_the_main_process_writes(monkeypatch, tmp_path):
    monkeypatch.setenv("RANK", "1")
    write_json(tmp_path / "other.json", {"a": 1})
    assert list(tmp_path.iterdir()) == []  # written to a scratch folder and discarded
    monkeypatch.setenv("RANK", "0")
    write_json(tmp_path / "main.json", {"a": 1})
    assert [p.name for p in tmp_path.iterdir()] == ["main.json"]
