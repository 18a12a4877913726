"""The workflow as a user runs it: dry runs, lint, formatting, and the smoke pipeline."""

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from verdict_checks import assert_verdicts_follow_the_intervals

from conftest import ROOT, run_snakemake
from skillneurons.infra.io import read_json, read_metadata, read_tensor_metadata, read_tensors
from skillneurons.reporting.findings import COLUMNS, VERDICTS
from smoke_runs import completed_smoke_run

BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    "configfile",
    [
        None,
        "configs/smoke.yaml",
        # The cluster-sized DAGs (5-7 s each) in the slow tier: the fast one keeps the
        # default's and the smoke config's.
        pytest.param("configs/paper.yaml", marks=pytest.mark.slow),
        pytest.param("configs/llm.yaml", marks=pytest.mark.slow),
        pytest.param("configs/ablation.yaml", marks=pytest.mark.slow),
    ],
)
def test_dry_run_builds_the_dag(sandbox, configfile):
    args = ["-n", "--quiet", "rules"] + (["--configfile", configfile] if configfile else [])
    output = run_snakemake(sandbox, *args).stdout
    # Every configuration builds its splits, its findings, one explorer page and one
    # verdict summary a model.
    for rule in ("split", "findings", "explorer", "verdicts"):
        assert re.search(rf"^{rule}\s+[1-9]\d*$", output, re.MULTILINE), (rule, output)


#: Rules whose job computes every run (paper_b.runs) or trial of a condition,
#: with their jobs on the default config: one per task, multi-task kind, paper-B
#: condition.
MERGED = {
    "dump_activations": 4,
    "control_top_neuron": 4,
    "deactivation": 1,
    "neuron_training": 3,
    "per_task_training": 2,
    "proportion_training": 3,
    "controlled_overlap": 1,
    "similarity_model": 2,
    "continual_training": 3,
}


def job_counts(workdir: Path, *args: str) -> dict[str, int]:
    """Jobs per rule, and ``total``, of a dry run of the default (plus ``args``)."""
    output = run_snakemake(workdir, "-n", "--quiet", "rules", *args).stdout
    return {rule: int(count) for rule, count in re.findall(r"^(\w+)\s+(\d+)$", output, re.M)}


def runs_overlay(workdir: Path, name: str, runs: int) -> str:
    """A config file in ``workdir`` giving every trained condition ``runs`` trials or
    training runs, one prompt-tuning trial per job (trials_per_pass 1)."""
    trials = {"trials": runs}
    (workdir / name).write_text(
        yaml.safe_dump(
            {
                "prompt_tuning": {**trials, "trials_per_pass": 1},
                "random_label_words": trials,
                "controls": trials,
                "paper_b": {"runs": runs},
            }
        )
    )
    return name


def test_three_runs_and_trials_add_no_job_to_the_merged_rules(sandbox):
    one = job_counts(sandbox, "--configfile", "config.yaml", runs_overlay(sandbox, "1.yaml", 1))
    counts = job_counts(sandbox, "--configfile", "config.yaml", runs_overlay(sandbox, "3.yaml", 3))
    assert {rule: counts[rule] for rule in MERGED} == MERGED
    assert {rule: one[rule] for rule in MERGED} == MERGED
    # only the prompt-tuning trials' jobs (passes of one trial here) grow: 4 tasks, 2
    # more trials each; the random-words prompts: with one trial a draw, draw d's
    # seed-only control is main trial d where there is one (1 main trial: draws 1 and 2
    # train theirs, 5 prompts), with 3 every control trains (3 draws and 3 controls, 3
    # trials each: 18 prompts, one more dump job)
    grown = {rule: counts[rule] - one[rule] for rule in counts if counts[rule] != one[rule]}
    trial_jobs = {"prompt_tuning": 8, "prompt_tuning_trial": 8}
    trial_jobs |= {"prompt_tuning_random_words": 13, "prompt_tuning_random_words_trial": 13}
    assert one["dump_activations_random_words"] == 5
    # (one job per run and trial, as the rules once had, added (3 - 1) x 35 more)
    assert grown == {**trial_jobs, "dump_activations_random_words": 1, "total": 43}, grown
    # the default: the 3 trials of a task train in one pass (trials_per_pass 3), and
    # the 3 draws' controls are the 3 main trials (no control is retrained)
    default = job_counts(sandbox)
    assert default["prompt_tuning"] == 4 and default["prompt_tuning_trial"] == 12
    assert default["prompt_tuning_random_words"] == default["dump_activations_random_words"] == 3


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
    """The whole smoke pipeline, run once per test session (shared with other modules)."""
    return completed_smoke_run(tmp_path_factory)


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


def test_smoke_perturbation_curves_and_selectivity(smoke_run):
    results = smoke_run / "results/minilm-l2"
    curves = pd.read_parquet(results / "perturbation/syn_tweet.parquet")
    assert list(curves.columns) == [
        "eval_task",
        "order",
        "order_type",
        "repeat",
        "trial",
        "rate",
        "perturbed",
        "accuracy",
        "correct",
        "kind",
    ]
    orders = {"syn_sst2", "syn_tweet", "syn_agnews", "random", "selectivity"}
    assert set(curves["order"]) == orders | {"random_layer_matched"}
    # Two uniform and two layer-matched random orders per trial (layer_matched_orders: 2).
    matched = curves[curves["order_type"] == "layer_matched"]
    assert sorted(matched["repeat"].unique()) == [0, 1]
    assert sorted(curves["trial"].unique()) == [0, 1]
    assert sorted(curves["rate"].unique()) == [0.0, 0.1, 0.2]
    assert curves["perturbed"].max() == round(0.2 * 2 * 1536)
    assert curves["accuracy"].between(0, 1).all() and (curves["kind"] == "gaussian").all()
    for _, trial in curves.groupby("trial"):  # rate 0 is one unperturbed accuracy
        assert trial.loc[trial["rate"] == 0, "accuracy"].nunique() == 1
    meta = read_metadata(results / "perturbation/syn_tweet.parquet")
    assert meta["samples"] == 16 and meta["trials"] == [0, 1] and meta["seeds"] == [7, 8]
    # A label-stratified subset of the test split, and every row's per-sample results.
    test = pd.read_parquet(smoke_run / "data/splits/syn_tweet/test.parquet").set_index("idx")
    labels = test.loc[meta["sample_idx"], "label"]
    assert labels.value_counts().max() - labels.value_counts().min() <= 1
    for row in curves.itertuples():
        assert len(row.correct) == 16 and np.mean(row.correct) == pytest.approx(row.accuracy)
    selectivity = read_tensors(results / "selectivity/syn_tweet.safetensors")
    assert sorted(selectivity) == ["mean", "trial0", "trial1"]
    assert tuple(selectivity["mean"].shape) == (2, 1536)
    assert ((selectivity["mean"] >= 0) & (selectivity["mean"] <= 1)).all()


def test_smoke_importance_and_correlation_tables(smoke_run):
    results = smoke_run / "results/minilm-l2"
    tasks = ["syn_sst2", "syn_tweet", "syn_agnews"]
    importance = pd.read_csv(results / "tables/A-F6.csv")
    assert list(importance.columns) == [
        "eval_task",
        "source_task",
        "area",
        "area_sem",
        "importance",
    ]
    assert len(importance) == 9
    for _, group in importance.groupby("eval_task"):
        assert abs(group["importance"].mean()) < 1e-9
    summary = pd.read_csv(results / "tables/A-F6_summary.csv")
    assert summary["eval_task"].tolist() == tasks
    assert {"own_area", "selectivity_area", "same_type_importance"} <= set(summary.columns)
    mean = pd.read_csv(results / "tables/A-F5.csv")
    assert list(mean.columns) == ["task", *tasks] and mean["task"].tolist() == tasks
    layers = pd.read_csv(results / "tables/A-F14.csv")
    assert list(layers.columns) == ["layer", "task_a", "task_b", "spearman"]
    assert len(layers) == 2 * 9 and layers["spearman"].between(-1, 1).all()
    for figure in ("A-F4", "A-F11", "A-F15", "A-F6", "A-F5", "A-F14"):
        for ext in ("png", "pdf"):
            assert (results / f"figures/{figure}.{ext}").stat().st_size > 1000


def test_smoke_word_selectivity_tables(smoke_run):
    results = smoke_run / "results/minilm-l2"
    tasks = ["syn_sst2", "syn_tweet", "syn_agnews"]
    words = pd.read_parquet(results / "word_selectivity.parquet")
    assert list(words.columns) == [
        "task",
        "layer",
        "neuron",
        "measure",
        "direction",
        "rank",
        "token_id",
        "token",
        "score",
        "count",
    ]
    assert len(words) == len(tasks) * 2 * 2 * 10
    assert words["layer"].between(0, 1).all() and words["neuron"].between(0, 1535).all()
    assert not words["token"].str.match(r"^\[.*\]$").any()  # [CLS], [unused*] skipped
    cosine = words[words["measure"] == "cosine"]
    assert cosine["score"].between(-1, 1).all()
    activation = words[words["measure"] == "activation"]
    assert (activation["count"] >= 1).all()
    for table, measure in (("A-T2", "cosine"), ("A-T6", "activation")):
        frame = pd.read_csv(results / f"tables/{table}.csv", keep_default_na=False)
        assert list(frame.columns) == ["task", "layer", "neuron", "top", "bottom"]
        assert frame["task"].tolist() == tasks
        chosen = words[(words["measure"] == measure) & (words["direction"] == "bottom")]
        for task, row in frame.set_index("task").iterrows():
            tokens = chosen[chosen["task"] == task].sort_values("rank")["token"]
            assert row["bottom"] == ", ".join(tokens)
        assert (results / f"tables/{table}.md").read_text().startswith(f"# {table}")


def test_smoke_random_label_words(smoke_run):
    results = smoke_run / "results/minilm-l2"
    draws = [
        read_json(
            results / f"random_label_words/draw{d}/prompt_tuning/syn_sst2/trial0/metrics.json"
        )
        for d in (0, 1)
    ]
    assert draws[0]["label_words"] != draws[1]["label_words"]
    # Draw d has main trial d's seeds; with one trial a draw, that main trial (the
    # configured words, the same seeds) is the draw's seed-only control: not retrained.
    assert [m["draw"] for m in draws] == [0, 1]
    main = read_json(results / "prompt_tuning/syn_sst2/trial1/metrics.json")
    assert [m["seed"] for m in draws] == [7, 8] and main["seed"] == 8
    assert not (results / "random_label_words/control1/prompt_tuning").exists()
    ranking = pd.read_parquet(results / "random_label_words/draw1/rankings/syn_sst2.parquet")
    control = pd.read_parquet(results / "random_label_words/control1/rankings/syn_sst2.parquet")
    assert len(ranking) == len(control) == 2 * 1536
    assert not ranking.equals(control)
    table = pd.read_csv(results / "tables/A-S4.4.csv")
    assert table["task"].tolist() == ["syn_sst2"]
    assert list(table.columns) == [
        "task",
        "draws",
        "label_words",
        "spearman_mean",
        "spearman_min",
        "spearman_max",
        "control_spearman_mean",
        "spearman_vs_label_words",
        "test_accuracy_mean",
        "paper",
        "noise_floor",
    ]
    assert table["spearman_mean"].between(-1, 1).all() and (table["draws"] == 2).all()
    # the same prompts' orders on two halves of the dev split: rule label_word_noise_floor
    floor = read_json(results / "random_label_words/noise_floor/syn_sst2.json")
    assert len(floor["split_half_agreement"]) == 2  # one per main trial
    assert table["noise_floor"].tolist() == [pytest.approx(floor["mean"])]
    assert -1 <= floor["mean"] <= 1


def test_smoke_adapters_and_bitfit(smoke_run):
    results = smoke_run / "results/minilm-l2"
    for method in ("adapter", "bitfit"):
        folder = results / f"tuning_methods/{method}/syn_tweet/trial0"
        weights = read_tensors(folder / "weights.safetensors")
        prefix = "adapters." if method == "adapter" else "backbone."
        assert weights and all(name.startswith(prefix) for name in weights)
        if method == "bitfit":
            assert all(name.endswith("bias") for name in weights)
        assert read_tensor_metadata(folder / "weights.safetensors")["method"] == method
        metrics = read_json(folder / "metrics.json")
        assert metrics["method"] == method and 0 <= metrics["test_accuracy"] <= 1
        curves = pd.read_parquet(
            results / f"tuning_methods/{method}/perturbation/syn_tweet.parquet"
        )
        orders = {"syn_sst2", "syn_tweet", "syn_agnews", "random", "random_layer_matched"}
        assert set(curves["order"]) == orders
        assert sorted(curves["rate"].unique()) == [0.0, 0.1, 0.2]
        assert curves["accuracy"].between(0, 1).all()
        importance = pd.read_csv(results / f"tables/A-F8_{method}.csv")
        assert len(importance) == 2 * 3  # eval tasks x source tasks
    accuracy = pd.read_csv(results / "tables/tuning_methods.csv")
    assert accuracy[["method", "task"]].values.tolist() == [
        ["adapter", "syn_sst2"],
        ["adapter", "syn_tweet"],
        ["bitfit", "syn_sst2"],
        ["bitfit", "syn_tweet"],
    ]
    assert "margin" in accuracy.columns
    average = pd.read_csv(results / "tables/A-F8.csv")
    assert {"importance", "importance_adapter", "importance_bitfit"} <= set(average.columns)
    assert len(average) == 2 * 3
    for figure in ("A-F7", "A-F8", "A-F8_adapter", "A-F8_bitfit", "A-F12", "A-F13"):
        for ext in ("png", "pdf"):
            assert (results / f"figures/{figure}.{ext}").stat().st_size > 1000


def test_smoke_pruning_models_speed_and_table(smoke_run):
    from skillneurons.models.sites import ffn_sites
    from skillneurons.paper_a.pruning import load_pruned_model

    results = smoke_run / "results/minilm-l2"
    folder = results / "pruning/syn_tweet/trial1"
    config = read_json(folder / "model.json")
    assert config["pruned_layers"] == [0, 1]  # round(0.75 * 2 layers)
    # pruning.scope per_layer: each pruned layer keeps its top round(2% x 1536) neurons
    assert config["widths"] == [round(0.02 * 1536)] * 2
    assert 0 < config["parameter_fraction"] < 1 and config["trial"] == 1
    loaded, _ = load_pruned_model(folder / "model.safetensors", folder / "model.json")
    assert [site.width for site in ffn_sites(loaded.model)] == config["widths"]
    assert str(read_tensors(folder / "model.safetensors")["kept/1"].dtype) == "torch.int64"
    metrics = read_json(folder / "metrics.json")
    assert metrics["steps"] == 4 and 0 <= metrics["test_accuracy"] <= 1
    assert read_tensor_metadata(folder / "prompt.safetensors")["pruned"] is True
    speed = read_json(results / "pruning/speed.json")["tasks"]
    assert sorted(speed) == ["syn_agnews", "syn_sst2", "syn_tweet"]
    for trials in speed.values():
        assert [entry["trial"] for entry in trials] == [0, 1]
        for entry in trials:
            assert entry["flop_bound"] > 1 and entry["speedup"] > 0 and entry["threads"] == 1
            assert 1 < entry["work_bound"] < entry["flop_bound"]
            full, least = entry["unpruned_median_s"], entry["floor_median_s"]
            share = entry["kept_share"]
            assert share == pytest.approx(sum(entry["widths"]) / (2 * 1536))
            assert entry["time_bound"] == pytest.approx(full / (least + share * (full - least)))
            assert entry["batch_size"] == 4 and entry["repeats"] == 3
    table = pd.read_csv(results / "tables/A-T4.csv")
    assert table["task"].tolist() == ["syn_sst2", "syn_tweet", "syn_agnews"]
    assert list(table.columns) == [
        "task",
        "trials",
        "prompt_tuning",
        "pruned",
        "parameter_fraction",
        "speedup",
        "cpu_speedup",
        "flop_bound",
        "efficiency",
        "work_bound",
        "work_efficiency",
        "time_bound",
        "time_efficiency",
        "prompt_tuning_mean",
        "prompt_tuning_std",
        "pruned_mean",
        "pruned_std",
    ]
    assert table["pruned_mean"].between(0, 1).all() and (table["trials"] == 2).all()
    assert (results / "tables/A-T4.md").read_text().startswith("# A-T4")


def test_smoke_transferability_indicator(smoke_run):
    results = smoke_run / "results/minilm-l2"
    pairs = pd.read_parquet(results / "transfer/pairs.parquet")
    assert list(pairs.columns) == [
        "source",
        "target",
        "trial",
        "transfer_accuracy",
        "on_all",
        "on_skill",
    ]
    # binary tasks share Negative/Positive: 2 x 2 pairs; the three-way task only itself
    assert len(pairs) == (4 + 1) * 2
    assert set(pairs.loc[pairs["target"] == "syn_tweet", "source"]) == {"syn_tweet"}
    assert pairs["transfer_accuracy"].between(0, 1).all()
    assert pairs[["on_all", "on_skill"]].stack().between(0, 1).all()
    own = pairs[pairs["source"] == pairs["target"]]
    assert (own["on_all"] == 1.0).all() and (own["on_skill"] == 1.0).all()
    table = pd.read_csv(results / "tables/A-S6.2.csv")
    assert list(table.columns) == ["target", "sources", "spearman_all", "spearman_skill"]
    assert table["target"].tolist() == ["syn_sst2", "syn_agnews", "average", "pooled"]
    assert table["spearman_all"].isna().all()  # one source per target: no rank correlation
    matrix = pd.read_csv(results / "tables/A-S6.2_transfer.csv")
    assert matrix.columns.tolist() == ["source", "syn_sst2", "syn_tweet", "syn_agnews"]
    assert matrix["source"].tolist() == ["syn_sst2", "syn_tweet", "syn_agnews"]
    for ext in ("png", "pdf"):
        assert (results / f"figures/A-S6.2.{ext}").stat().st_size > 1000


def test_smoke_findings_table(smoke_run):
    findings = pd.read_csv(smoke_run / "results/minilm-l2/tables/findings.csv")
    assert list(findings.columns) == COLUMNS
    # the primary family first: §4.1's top neuron, §4.2 on the paper's design, §5's
    # pre-training claim; then the exploratory rows: A-F3's two baselines, §4.2's two
    # designs of ours, A-F5, A-F6, A-F15, §4.4's two, one per tuning method (adapter, BitFit)
    assert len(findings) == 14
    assert findings["family"].tolist() == ["primary"] * 3 + ["exploratory"] * 11
    assert set(findings["verdict"]) <= set(VERDICTS)
    # Every verdict is the interval's: never a comparison of two point estimates.
    assert_verdicts_follow_the_intervals(findings)
    # The perturbation claims resample the trials, then the random orders, then the
    # stratified test samples of every task.
    top = findings.iloc[1]
    assert top["paper"] == "§4.2, A-F4/A-F11 (the paper's design)"
    assert "trials 2 > random orders" in top["resampled"]
    assert "syn_sst2: test samples 16" in top["resampled"] and top["runs"] == 2


def test_smoke_results_page_renders_the_runs_tables_in_its_own_folder(smoke_run):
    """Rule results_pages (part of rule all) writes the run's page into the run's folder,
    never into the repository's docs/."""
    page = (smoke_run / "docs/results/minilm-l2.md").read_text()
    findings = pd.read_csv(smoke_run / "results/minilm-l2/tables/findings.csv")
    assert page.index("`tables/findings.csv`") < page.index("`tables/A-T1.csv`")
    assert page.index("## Paper A") < page.index("## Paper B") < page.index("## Paper A vs")
    for claim, verdict in zip(findings["claim"], findings["verdict"], strict=True):
        assert f"| {claim} |" in page and f"| {verdict} |" in page
    assert not (ROOT / "docs/results/minilm-l2.md").exists()


def explorer_data(path):
    """The JSON a data file of the explorer assigns (``window.EXPLORER.<x> = <JSON>;``)."""
    return json.loads(path.read_text().split(" = ", 1)[1].rstrip(";\n"))


def test_smoke_explorer_reads_the_runs_outputs(smoke_run):
    """Rule explorer (part of rule all) on the smoke run: every task's table filled from
    the run's files, both papers' ranks where paper B ran, and the page under 20 MB."""
    folder = smoke_run / "results/minilm-l2/explorer"
    overview = explorer_data(folder / "data/overview.js")
    assert overview["tasks"] == ["syn_sst2", "syn_tweet", "syn_agnews"]
    for index, task in enumerate(overview["tasks"]):
        data = explorer_data(folder / f"data/task-{index}.js")
        assert data["task"] == task and data["test_samples"] > 0
        assert len(data["rows"]) >= overview["top_neurons"]
        assert sorted(row["a_rank"] for row in data["rows"])[0] == 0
        counts = data["rows"][0]["histogram"]["counts"]
        assert sum(map(sum, counts)) == data["test_samples"]
        if task in overview["layer_counts"]["b"]:
            assert min(row["b_rank"] for row in data["rows"]) == 0
    size = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    assert size < 20e6


def test_smoke_ablation_reuses_the_trials_and_decides_every_setting(smoke_run):
    """configs/ablation.yaml on the smoke run: table A-ablation, one row per task and
    setting; its sigma_1 setting is the smoke's own perturbation design, so its curves
    equal the perturbation file's own-order and layer-matched rows."""
    run_snakemake(
        smoke_run,
        "--configfile", "configs/smoke.yaml", "configs/ablation.yaml",
        "--cores", "2", "results/minilm-l2/tables/A-ablation.csv",
    )  # fmt: skip
    results = smoke_run / "results/minilm-l2"
    table = pd.read_csv(results / "tables/A-ablation.csv")
    settings = ["paper", "sigma_0.3", "sigma_1", "sigma_1_per_layer", "sigma_1_prompt",
                "zero", "baseline"]  # fmt: skip
    assert table["setting"].tolist() == settings * 2
    assert table["eval_task"].tolist() == ["syn_sst2"] * 7 + ["syn_agnews"] * 7
    assert table.loc[table["kind"] != "gaussian", "sigma"].isna().all()
    assert_verdicts_follow_the_intervals(table)
    ablation = pd.read_parquet(results / "ablation/syn_sst2.parquet")
    curves = pd.read_parquet(results / "perturbation/syn_sst2.parquet")
    keys = ["order", "repeat", "trial", "rate"]
    mine = ablation[ablation["setting"] == "sigma_1"].set_index(keys)["accuracy"]
    theirs = curves[curves["order"].isin(["syn_sst2", "random_layer_matched"])]
    theirs = theirs.set_index(keys)["accuracy"]
    assert len(mine) == len(theirs) == 2 * (1 + 2) * 3  # trials x (own + 2 matched) x rates
    pd.testing.assert_series_equal(mine.sort_index(), theirs.sort_index())


def test_smoke_report_has_every_figure_table_and_the_config(smoke_run):
    """`snakemake --report` (run by `make run`): every figure and table, and the config,
    built without docutils warnings (a category title with a colon made one per paper);
    its first page the verdict summary."""
    built = run_snakemake(
        smoke_run, "--configfile", "configs/smoke.yaml", "--report", "report.html"
    )
    assert "WARNING/" not in built.stdout + built.stderr
    page = (smoke_run / "report.html").read_text()
    results = smoke_run / "results/minilm-l2"
    for path in [*results.glob("figures/*.png"), *results.glob("tables/A-T*.csv")]:
        assert path.name in page, f"{path.name} is not in the report"
    assert "Configuration of this run" in page
    for key in ("prompt_length", "label_noise", "minilm-l2", "syn_agnews"):
        assert key in page, key
    # The landing page opens on the verdicts (rule verdicts), every claim of both findings
    # tables listed there, before the description and the configuration.
    first = page.index("Verdicts: minilm-l2")
    assert first < page.index("About this report") < page.index("Configuration of this run")
    for table in ("findings", "B-findings"):
        for claim in pd.read_csv(results / f"tables/{table}.csv")["claim"]:
            shown = json.dumps(html.escape(claim))[1:-1]
            assert first < page.index(shown), claim
