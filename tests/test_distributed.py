"""Data-parallel training (skillneurons.models.distributed): 2 CPU processes over gloo
train a model as one process does."""

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from safetensors.torch import load_file

from skillneurons.models.distributed import DataParallel

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
