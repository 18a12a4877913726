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
from safetensors.torch import load_file

from conftest import run_snakemake
from skillneurons.models.distributed import DataParallel
from smoke_runs import MODEL, SMOKE, completed_smoke_run, copy_run

WORKER = Path(__file__).with_name("distributed_worker.py")


def run_worker(out: Path, processes: int) -> dict[str, torch.Tensor]:
    env = {k: v for k, v in os.environ.items() if k not in ("WORLD_SIZE", "RANK", "LOCAL_RANK")}
    env["OMP_NUM_THREADS"] = "1"
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


def test_two_processes_train_as_one(tmp_path):
    one = run_worker(tmp_path / "one.safetensors", 1)
    two = run_worker(tmp_path / "two.safetensors", 2)
    assert one.keys() == two.keys()
    for name in one:
        # Tolerance: the all-reduce sums two half-batch gradients in another order.
        torch.testing.assert_close(two[name], one[name], rtol=1e-5, atol=1e-6, msg=name)
    torch.manual_seed(0)
    initial = torch.nn.Embedding(12, 8).weight  # the worker's initialisation
    assert (one["embedding.weight"] - initial).abs().max() > 0.01  # training moved it


def test_each_process_takes_every_nth_row_of_a_batch():
    def parallel(index: int) -> DataParallel:
        return DataParallel(SimpleNamespace(num_processes=2, process_index=index))

    assert parallel(0).share(list(range(8))) == [0, 2, 4, 6]
    assert parallel(1).share(list(range(8))) == [1, 3, 5, 7]
    with pytest.raises(ValueError, match="batch size 7 does not split evenly over 2"):
        parallel(0).check_batch_size(7)
    assert DataParallel.from_environment() is None  # a plain process (no WORLD_SIZE)


# Full fine-tuning of one task (per-task FT) and NCFT over an order (confined neuron
# deltas, one training per stage): the smoke config's paper-B training rules of both kinds.
LAUNCHED = {
    "per_task_training": f"results/{MODEL}/paper_b/continual/per_task/syn_sst2",
    "continual_training": f"results/{MODEL}/paper_b/continual/order1/ncft",
}


def dev_curve(metrics: dict) -> list[dict]:
    """Every evaluation of a job's trainings (NCFT: one training per stage)."""
    return [point for stage in metrics.get("stages", [metrics]) for point in stage["dev_curve"]]


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
        log = (two / stem.replace("results/", "logs/", 1)).with_suffix(".log").read_text()
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
