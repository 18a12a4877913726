"""Atomic writes, metadata round trips, results tables and job logs."""

import errno
import logging
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import torch
from safetensors import SafetensorError

from skillneurons.infra.io import (
    apply_umask,
    atomic_path,
    read_arrays,
    read_json,
    read_metadata,
    read_tensor_metadata,
    read_tensors,
    stable_hash,
    temporary_path,
    write_arrays,
    write_json,
    write_table,
    write_tensors,
)
from skillneurons.infra.runlog import job_log
from skillneurons.neurons.activation_dump import ActivationWriter
from skillneurons.paper_a.prompt_tuning import prompt_tuning_table
from skillneurons.reporting.tables import write_frame


def test_a_failed_write_leaves_no_file(tmp_path):
    target = tmp_path / "out.parquet"
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "error",
    [
        OSError(errno.ENOSPC, "Error writing bytes to file"),  # pyarrow's words
        OSError(errno.EDQUOT, "Disk quota exceeded"),
        SafetensorError("Error while serializing: I/O error: No space left (os error 28)"),
    ],
    ids=["full-disk", "quota", "safetensors"],
)
def test_a_write_out_of_space_names_its_file_and_leaves_nothing(tmp_path, error):
    target = tmp_path / "out.parquet"
    with pytest.raises(OSError) as raised, atomic_path(target) as tmp:
        tmp.write_text("half")
        raise error
    assert raised.value.errno in (errno.ENOSPC, errno.EDQUOT)
    assert raised.value.__cause__ is error
    assert str(raised.value) == (
        f"[Errno {raised.value.errno}] {os.strerror(raised.value.errno)} while writing "
        f"{target} (its temporary file was removed: nothing was written there); free space "
        "on that filesystem and rerun"
    )
    assert list(tmp_path.iterdir()) == []


def test_another_failed_write_raises_its_own_error(tmp_path):
    error = OSError(errno.EACCES, "Permission denied")
    with pytest.raises(OSError) as raised, atomic_path(tmp_path / "out.json"):
        raise error
    assert raised.value is error


def test_a_killed_writes_temporary_file_is_replaced_by_the_next_attempt(tmp_path):
    target = tmp_path / "out.json"
    leftover = temporary_path(target)
    leftover.write_text("half of an earlier, killed attempt")
    leftover.chmod(0o600)
    write_json(target, {"a": 1})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    assert read_json(target) == {"a": 1}


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_outputs_get_the_mode_the_umask_gives(tmp_path, umask):
    old = os.umask(umask)
    try:
        write_json(tmp_path / "a.json", {"a": 1})
        write_table(tmp_path / "b.parquet", pa.table({"x": [1]}))
        write_tensors(tmp_path / "c.safetensors", {"x": torch.zeros(2)})
        write_frame(tmp_path / "d.csv", tmp_path / "d.md", pd.DataFrame({"x": [1]}), "d")
        with ActivationWriter(tmp_path / "e.parquet", (1, 1, 2), {}) as writer:
            writer.write([0], [1], np.zeros((1, 1, 1, 2)))
        folder = tmp_path / "model"
        with atomic_path(folder) as staging:
            staging.mkdir()
            (staging / "weights").write_bytes(b"w")
            (staging / "weights").chmod(0o600)  # as safetensors leaves its files
            apply_umask(staging)
    finally:
        os.umask(old)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == 7
    for path in files:
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask, path
    assert folder.stat().st_mode & 0o777 == 0o777 & ~umask
    assert not [p for p in tmp_path.rglob(".*")]  # no temporary file is left


def test_table_metadata_round_trip(tmp_path):
    path = tmp_path / "t.parquet"
    write_table(path, pa.table({"x": [1, 2]}), {"label_names": ["a", "b"], "seed": 3})
    assert read_metadata(path) == {"label_names": ["a", "b"], "seed": 3}


def test_tensor_files_are_byte_identical_for_equal_content(tmp_path):
    tensors = {"prompts": torch.arange(6.0).reshape(2, 3)}
    meta = {"task": "x", "label_words": ["a", "b"], "seed": 1, "layout": "l"}
    write_tensors(tmp_path / "a.safetensors", tensors, meta)
    write_tensors(tmp_path / "b.safetensors", tensors, dict(reversed(meta.items())))
    assert (tmp_path / "a.safetensors").read_bytes() == (tmp_path / "b.safetensors").read_bytes()
    assert torch.equal(read_tensors(tmp_path / "a.safetensors")["prompts"], tensors["prompts"])
    assert read_tensor_metadata(tmp_path / "a.safetensors") == meta


def test_array_files_are_the_tensor_files(tmp_path):
    # The numpy writer (reports, no torch) writes the bytes the torch writer writes.
    values = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    meta = {"task": "x", "trials": 1}
    write_arrays(tmp_path / "a.safetensors", {"mean": values}, meta)
    write_tensors(tmp_path / "b.safetensors", {"mean": torch.from_numpy(values)}, meta)
    assert (tmp_path / "a.safetensors").read_bytes() == (tmp_path / "b.safetensors").read_bytes()
    np.testing.assert_array_equal(read_arrays(tmp_path / "b.safetensors")["mean"], values)
    assert read_tensor_metadata(tmp_path / "a.safetensors") == meta


def test_stable_hash_ignores_key_order():
    assert stable_hash({"a": 1, "b": [1, 2]}) == stable_hash({"b": [1, 2], "a": 1})
    assert stable_hash({"a": 1}) != stable_hash({"a": 2})


def test_prompt_tuning_table_mean_and_sample_std(tmp_path):
    metrics = [
        {"task": "t1", "trial": 0, "test_accuracy": 0.8, "test_majority_rate": 0.5},
        {"task": "t1", "trial": 1, "test_accuracy": 0.9, "test_majority_rate": 0.5},
        {"task": "t2", "trial": 0, "test_accuracy": 0.6, "test_majority_rate": 0.4},
    ]
    table = prompt_tuning_table(metrics)
    assert table["task"].tolist() == ["t1", "t2"]
    assert table["mean"].tolist() == pytest.approx([0.85, 0.6])
    assert table["std"].iloc[0] == pytest.approx(0.0707107)
    assert np.isnan(table["std"].iloc[1])  # one trial: no spread was measured
    assert table["accuracy"].tolist() == ["85.0 ± 7.1", "60.0 (1 trial)"]
    write_frame(tmp_path / "t.csv", tmp_path / "t.md", table, "A-T1")
    assert pd.read_csv(tmp_path / "t.csv")["trials"].tolist() == [2, 1]
    lines = (tmp_path / "t.md").read_text().splitlines()
    assert lines[0] == "# A-T1" and lines[2].startswith("| task | trials | mean")
    assert lines[4] == "| t1 | 2 | 0.8500 | 0.0707 | 0.8000 | 0.5000 | 85.0 ± 7.1 |"


def test_job_log_names_rule_wildcards_and_cause(tmp_path):
    log = tmp_path / "logs/job.log"
    with pytest.raises(ValueError), job_log(str(log), "split", {"task": "syn_sst2"}):
        logging.getLogger("skillneurons").info("working")
        raise ValueError("labels outside the declared set")
    text = log.read_text()
    assert "rule split started (task=syn_sst2)" in text
    assert "rule split failed (task=syn_sst2): ValueError: labels outside the declared set" in text
    assert "Traceback" in text


def test_table_modules_load_no_transformers_models():
    # Table and figure jobs import these modules for their pandas helpers; transformers'
    # model classes (seconds per job on 2 cores) must load only when a model is loaded.
    modules = [
        "models.loading",
        "paper_a.prompt_tuning",
        "paper_a.pruning",
        "paper_a.transfer",
        "paper_a.tuning_methods",
        "paper_a.label_word_sampling",
        "neurons.perturbation.orders",
        "neurons.perturbation.noise",
        "neurons.perturbation.sweep",
        "neurons.perturbation.files",
        "neurons.activations",
    ]
    assert "transformers.models" not in loaded_modules(modules, "transformers")


def loaded_modules(modules: list[str], prefix: str) -> str:
    code = (
        "import sys; "
        + "; ".join(f"import skillneurons.{module}" for module in modules)
        + f"; print(sorted(m for m in sys.modules if m.split('.')[0] == {prefix!r}))"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_report_modules_load_no_torch():
    # About 40 jobs of the default (tables, figures, rankings, findings) read files and
    # draw; importing torch would cost each of them seconds on 2 cores.
    modules = [
        "neurons.activation_dump",
        "neurons.perturbation.curve_table",
        "neurons.selectivity",
        "paper_a.skill_neurons",
        "paper_a.findings",
        "paper_a.findings.top_neurons",
        "paper_a.findings.perturbation",
        "paper_a.findings.task_relations",
        "paper_a.findings.label_words",
        "paper_a.findings.origin",
        "paper_a.importance",
        "neurons.relevance_table",
        "paper_b.neuron_effects",
        "paper_b.deactivation_report",
        "paper_b.neuron_training_report",
        "paper_b.comparison_report",
        "paper_b.generalization_report",
        "paper_b.overlap_report",
        "paper_b.controlled_overlap_report",
        "paper_b.similarity_report",
        "paper_b.continual_report",
        "paper_b.findings",
        "reporting.explorer_page",
        "reporting.stats",
        "reporting.curves",
        "reporting.figures",
        "reporting.resampling",
    ]
    assert loaded_modules(modules, "torch") == "[]"


def test_a_figure_saved_twice_gives_the_same_bytes(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    from skillneurons.reporting.figures import save_figure

    clock = iter([1.7e9, 1.7e9 + 3600.0])  # the second save an hour "later"
    paths = []
    for run in range(2):
        now = next(clock)
        monkeypatch.setattr("time.time", lambda now=now: now)
        figure, axis = plt.subplots()
        axis.plot([0, 1], [1, 0])
        paths.append((tmp_path / f"{run}.png", tmp_path / f"{run}.pdf"))
        save_figure(figure, *map(str, paths[-1]))
    for first, second in zip(*paths, strict=True):
        assert first.read_bytes() == second.read_bytes()
