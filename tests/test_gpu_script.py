"""benchmarks/gpu.sh on CPU with tiny sizes: the script a lent GPU
machine runs gets through every step (a check of the code path; it measures nothing)."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT


# the whole script on CPU (about 18 s): the slow tier
@pytest.mark.slow
def test_gpu_script_runs_every_step_on_cpu_with_tiny_sizes(tmp_path):
    environment = {
        **os.environ,
        "PYTHON": sys.executable,
        "OMP_NUM_THREADS": "1",
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
    }
    result = subprocess.run(
        [
            "bash",
            str(ROOT / "benchmarks/gpu.sh"),
            "--device",
            "cpu",
            "--tiny",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=environment,
        cwd=ROOT,
    )
    out = result.stdout
    assert result.returncode == 0, out[-3000:] + result.stderr[-3000:]
    assert (tmp_path / "data/splits/syn_sst2/train.parquet").is_file()  # the DAG ran
    assert "trial_batching curve: MiniLM-L6, 2 layers (tiny) on cpu" in out
    assert "k=  1:" in out and "k=  3:" in out  # k = 1 and 3 of 1, 3, 8, 16
    assert "  3 conditions (1 x 3):" in out
    assert "relevance: random Llama hidden 64, 2 layers, one batch of 2 x" in out
    assert "neuron_training: random Llama hidden 64, 2 layers, batch 2" in out
    # timed, with an interval: k=3 trials, attribution, neuron step; the Adam state is counted
    assert out.count("(target") == 3 and out.count("(not timed; target") == 1
