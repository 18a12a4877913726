"""The workflow as a user runs it: dry runs, lint, formatting, and the smoke pipeline."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT, make_sandbox, run_snakemake
from skillneurons.io import read_json, read_metadata, read_tensor_metadata, read_tensors

BIN = Path(sys.executable).parent


@pytest.mark.parametrize("configfile", [None, "configs/smoke.yaml"])
def test_dry_run_builds_the_dag(sandbox, configfile):
    args = ["-n", "--quiet", "rules"] + (["--configfile", configfile] if configfile else [])
    result = run_snakemake(sandbox, *args)
    assert "split" in result.stdout + result.stderr


def test_unknown_task_fails_before_any_job(sandbox):
    result = run_snakemake(sandbox, "-n", "--config", "tasks=[syn_sst3]", check=False)
    assert result.returncode != 0
    assert "task 'syn_sst3' is not defined; known tasks:" in result.stdout + result.stderr


def test_snakemake_lint_is_clean(sandbox):
    result = run_snakemake(sandbox, "--lint", check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_code_is_formatted_and_lint_free():
    for command in (
        [BIN / "ruff", "check", "workflow", "tests", "benchmarks"],
        [BIN / "ruff", "format", "--check", "workflow", "tests", "benchmarks"],
        [BIN / "snakefmt", "--check", "Snakefile", "workflow/rules"],
    ):
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 0, f"{command}:\n{result.stdout}{result.stderr}"


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    """The whole smoke pipeline, run once for the tests below."""
    sandbox = make_sandbox(tmp_path_factory.mktemp("smoke"))
    run_snakemake(sandbox, "--configfile", "configs/smoke.yaml", "--cores", "2")
    return sandbox


def test_smoke_splits(smoke_run):
    test_path = smoke_run / "data/splits/syn_tweet/test.parquet"
    test = pd.read_parquet(test_path)
    assert list(test.columns) == ["idx", "text_a", "text_b", "label"]
    assert read_metadata(test_path)["label_names"] == ["negative", "neutral", "positive"]
    sub_path = smoke_run / "data/splits/syn_tweet/subtasks/neutral_vs_rest/dev.parquet"
    sub = pd.read_parquet(sub_path)
    assert sub["label"].value_counts().nunique() == 1  # balanced
    assert read_metadata(sub_path)["label_names"] == ["non_neutral", "neutral"]
    dev = pd.read_parquet(smoke_run / "data/splits/syn_sst2/dev.parquet")
    train = pd.read_parquet(smoke_run / "data/splits/syn_sst2/train.parquet")
    assert not set(dev["idx"]) & set(train["idx"])
    assert not set(dev["text_a"]) & set(train["text_a"])


def test_smoke_prompt_tuning_outputs(smoke_run):
    results = smoke_run / "results/minilm-l2"
    for task in ("syn_sst2", "syn_tweet", "syn_agnews"):
        for trial in (0, 1):
            folder = results / f"prompt_tuning/{task}/trial{trial}"
            metrics = read_json(folder / "metrics.json")
            assert metrics["task"] == task and metrics["trial"] == trial
            assert metrics["seed"] == 7 + trial
            assert metrics["scoring"] == "tied_input_embeddings_at_mask"
            assert [p["step"] for p in metrics["dev_curve"]][:1] == [10]
            assert 0.0 <= metrics["test_accuracy"] <= 1.0
            prompts = read_tensors(folder / "prompt.safetensors")["prompts"]
            assert tuple(prompts.shape) == (4, 384)
            assert read_tensor_metadata(folder / "prompt.safetensors")["task"] == task
    table = pd.read_csv(results / "tables/A-T1_prompt_tuning.csv")
    assert table["task"].tolist() == ["syn_sst2", "syn_tweet", "syn_agnews"]
    assert list(table.columns) == ["task", "trials", "mean", "std", "min", "majority", "accuracy"]
    assert (table["trials"] == 2).all()
    assert (results / "tables/A-T1_prompt_tuning.md").read_text().startswith("# A-T1")


def test_second_run_schedules_nothing(smoke_run):
    result = run_snakemake(smoke_run, "--configfile", "configs/smoke.yaml", "-n")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_smoke_rankings_tables_and_figures(smoke_run):
    results = smoke_run / "results/minilm-l2"
    binary = pd.read_parquet(results / "rankings/syn_sst2.parquet")
    assert list(binary.columns) == [
        "layer",
        "neuron",
        "predictivity",
        "sem",
        "best_token",
        "rank",
        "rank_in_layer",
        "subtask",
    ]
    assert len(binary) == 2 * 1536 and binary["subtask"].isna().all()
    assert binary["predictivity"].between(0.5, 1.0).all()
    assert binary["rank"].tolist() == list(range(len(binary)))
    three_way = pd.read_parquet(results / "rankings/syn_tweet.parquet")
    assert three_way["subtask"].unique().tolist() == ["positive_vs_negative", "neutral_vs_rest"]
    a_t1 = pd.read_csv(results / "tables/A-T1.csv")
    assert a_t1["task"].tolist() == ["syn_sst2", "syn_tweet", "syn_agnews"]
    assert a_t1["skill_neuron_mean"].between(0, 1).all()
    a_t3 = pd.read_csv(results / "tables/A-T3.csv")
    for setting in ("random_prompt", "hard_prompt", "random_model", "tuned"):
        assert a_t3[f"{setting}_mean"].between(0, 1).all()
    for figure in ("A-F1", "A-F2", "A-F3_F9", "A-F10"):
        for ext in ("png", "pdf"):
            assert (results / f"figures/{figure}.{ext}").stat().st_size > 1000
    dump = smoke_run / "results/minilm-l2/activations/syn_sst2/trial0/dev.parquet"
    assert read_metadata(dump)["shape"] == [2, 4, 1536]
