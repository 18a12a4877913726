"""Paper B's generation rules on a causal LM (a tiny random GPT-2 saved as a local model
folder): two synthetic twins' splits, their task neurons, Tables B-T1's and B-T2's
generation rows, Figure B-F5's generation panels (b, d) and B-T8's generation group
(one training and one test task)."""

import json
import re

import pandas as pd
import pytest
import yaml
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

from conftest import rerun_sharded, run_snakemake
from skillneurons.data.synthetic.generation_twins import generate_generation_task
from skillneurons.paper_b.generation_scoring import generation_prompts
from skillneurons.paper_b.instructions import INSTRUCTIONS
from skillneurons.paper_b.relevance import read_multitask_neurons
from smoke_runs import copy_run

# End-to-end runs of the smoke pipeline (minutes): the slow tier.
pytestmark = pytest.mark.slow

# Both data-to-text twins: the first trains, the second is the out-of-domain test task.
TASK, TEST_TASK, MODEL = "syn_e2e", "syn_commongen", "tiny-gpt2"
CONFIG = {
    "models": [MODEL],
    "model_definitions": {MODEL: {"source": f"models/{MODEL}"}},
    "paper_b": {
        "runs": 1,  # (the default's 3 runs triple the trainings)
        "random_draws": 2,
        # no classification group: B-T8 and §5's experiments on the generation group alone
        "generalization": {
            "train_tasks": [],
            "overlap_proportions": [0.1, 0.5],
            "proportions": [0.1, 1.0],
            "training": {"batch_size": 4, "max_steps": 4, "eval_every": 2},
            "model_training": {"batch_size": 4, "max_steps": 4, "eval_every": 2},
        },
        "generation": {
            "tasks": [TASK, TEST_TASK],
            "models": [MODEL],
            "sizes": {"train": 16, "dev": 4, "test": 6},
            "training": {"batch_size": 4, "max_steps": 4, "eval_every": 2},
            "multitask": {"batch_size": 4, "max_steps": 4, "eval_every": 2},
        },
    },
}


def save_tiny_gpt2(folder) -> None:
    """A random 2-layer GPT-2 with a word-level vocabulary covering the twins' words
    (the split rule draws its rows with the config's seed, 42, from these 26)."""
    texts = []
    for task in (TASK, TEST_TASK):
        rows = generate_generation_task(task, 26, seed=42)
        texts += generation_prompts(rows["source"], INSTRUCTIONS["data_to_text"])
        texts += list(rows["target"])
    splitter = pre_tokenizers.Whitespace()
    words = sorted({w for text in texts for w, _ in splitter.pre_tokenize_str(text)})
    core = Tokenizer(
        models.WordLevel(
            {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[EOS]", *words])}, unk_token="[UNK]"
        )
    )
    core.pre_tokenizer = splitter
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="[PAD]", unk_token="[UNK]", eos_token="[EOS]"
    )
    config = GPT2Config(vocab_size=len(tokenizer), n_embd=16, n_layer=2, n_head=2, n_positions=256)
    GPT2LMHeadModel(config).save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)


@pytest.fixture(scope="module")
def generation_run(tmp_path_factory):
    from conftest import make_sandbox

    sandbox = make_sandbox(tmp_path_factory.mktemp("generation") / "work")
    save_tiny_gpt2(sandbox / "models" / MODEL)
    (sandbox / "gen.yaml").write_text(yaml.safe_dump(CONFIG))
    plan = run_snakemake(sandbox, "-n", "paper_b", "--configfile", "gen.yaml")
    run_snakemake(
        sandbox, f"results/{MODEL}/tables/B-T2_generation.csv",
        f"results/{MODEL}/tables/B-T8.csv", f"results/{MODEL}/tables/B-F5d.csv",
        f"results/{MODEL}/tables/B-T1_generation.csv", f"results/{MODEL}/tables/B-F2.csv",
        f"results/{MODEL}/tables/B-T9.csv", f"results/{MODEL}/tables/B-T4.csv",
        "--configfile", "gen.yaml", "--cores", "2",
    )  # fmt: skip
    return sandbox, plan.stdout


def test_the_generation_rules_are_paper_b_targets_of_the_causal_model(generation_run):
    _, plan = generation_run
    # the generation tasks go through the classification tasks' rules (task_neurons,
    # deactivation, zero_shot, neuron_training): a job of each kind for deactivation
    for rule, jobs in (
        ("generation_split", 2),
        ("generation_training_table", 1),
        ("figure_generation_specificity", 1),
        ("deactivation", 2),
        ("zero_shot", 2),
        ("generation_deactivation_table", 1),
    ):
        assert re.search(rf"^{rule}\s+{jobs}$", plan, re.M), rule
    for rule in ("task_neurons", "neuron_training"):
        assert re.search(rf"^{rule}\s+\d+$", plan, re.M), rule


def test_splits_keep_the_configured_sizes(generation_run):
    sandbox, _ = generation_run
    sizes = {"train": 16, "dev": 4, "test": 6}
    for split, size in sizes.items():
        frame = pd.read_parquet(sandbox / f"data/generation/{TASK}/{split}.parquet")
        assert list(frame.columns) == ["source", "target"] and len(frame) == size


def test_the_training_results_and_the_table(generation_run):
    sandbox, _ = generation_run
    folder = sandbox / f"results/{MODEL}/paper_b/neuron_training/run0"
    results = pd.read_parquet(folder / f"{TASK}.parquet")
    zero_shot = pd.read_parquet(sandbox / f"results/{MODEL}/paper_b/generation/zero_shot.parquet")
    assert zero_shot["eval_task"].tolist() == [TASK, TEST_TASK]
    assert set(zero_shot["condition"]) == {"zero_shot"}
    # each training, random ones of both kinds too (B-F5d's controls), is scored on both
    # tasks
    assert results["condition"].tolist() == [
        "task", "task", *["random"] * 4, *["random_layer_matched"] * 4
    ]  # fmt: skip
    assert results["eval_task"].tolist() == [TASK, TEST_TASK] * 5
    assert results["draw"].tolist() == [0, 0, 0, 0, 1, 1, 0, 0, 1, 1]
    assert set(results["metric"]) == {"rouge_l"}
    assert all(len(scores) == 6 for scores in results["sample_scores"])
    assert results["score"].between(0, 1).all()
    for mean, scores in zip(results["score"], results["sample_scores"], strict=True):
        assert mean == pytest.approx(sum(scores) / len(scores))
    neurons = pd.read_parquet(sandbox / f"results/{MODEL}/task_neurons/{TASK}.parquet")
    assert list(neurons.columns) == ["layer", "neuron", "relevance", "rank", "rank_in_layer"]
    assert len(neurons) == 2 * 64 and (neurons["relevance"] >= 0).all()  # 2 layers x 4 x 16
    metrics = json.loads((folder / f"{TASK}.json").read_text())
    trained = [run["neurons"] for run in metrics["trainings"]]
    assert trained == [13] * 5  # the top 10% of 128 (rounded), and as many random
    table = pd.read_csv(sandbox / f"results/{MODEL}/tables/B-T2_generation.csv")
    assert table["task"].tolist() == [TASK, TEST_TASK, "mean"]
    row = table.iloc[0]
    assert row["zero_shot"] == pytest.approx(100 * zero_shot["score"].iloc[0])
    assert row["train_task"] == pytest.approx(100 * results["score"].iloc[0])
    assert row["train_random"] == pytest.approx(100 * results["score"].iloc[[2, 4]].mean())
    assert row["train_random_layer_matched"] == pytest.approx(
        100 * results["score"].iloc[[6, 8]].mean()
    )


def test_the_generation_panel_of_figure_5_is_the_gain_over_each_tasks_zero_shot(generation_run):
    sandbox, _ = generation_run
    folder = sandbox / f"results/{MODEL}/paper_b/neuron_training/run0"
    results = pd.concat(pd.read_parquet(folder / f"{t}.parquet") for t in (TASK, TEST_TASK))
    zero_shot = pd.read_parquet(sandbox / f"results/{MODEL}/paper_b/generation/zero_shot.parquet")
    zero_shot = zero_shot.set_index("eval_task")["score"]
    trained = results[results["condition"] == "task"]
    matrix = pd.read_csv(sandbox / f"results/{MODEL}/tables/B-F5d.csv").set_index("neurons_of")
    assert sorted(matrix.columns) == sorted([TASK, TEST_TASK]) and len(trained) == 4
    for row in trained.itertuples():
        expected = 100 * (row.score - zero_shot[row.eval_task])
        assert matrix.loc[row.source, row.eval_task] == pytest.approx(expected, abs=0.05)
    # the controls: random neurons (over all layers; layer-matched) trained on the row's
    # task, mean over the 2 draws
    for condition in ("random", "random_layer_matched"):
        control = pd.read_csv(sandbox / f"results/{MODEL}/tables/B-F5d_{condition}.csv")
        control = control.set_index("neurons_of")
        random = results[results["condition"] == condition]
        means = random.groupby(["source", "eval_task"])["score"].mean()
        assert len(means) == 4
        for (source, task), mean in means.items():
            expected = 100 * (mean - zero_shot[task])
            assert control.loc[source, task] == pytest.approx(expected, abs=0.05)
    assert (sandbox / f"results/{MODEL}/figures/B-F5_generation.png").stat().st_size > 0


def test_the_multitask_models_deactivation_rows_table_and_panel(generation_run):
    sandbox, _ = generation_run
    folder = sandbox / f"results/{MODEL}/paper_b/generation/run0"
    results = pd.read_parquet(folder / "deactivation.parquet")
    conditions = ["original", "task", "task", *["random"] * 2, *["random_layer_matched"] * 2]
    assert results["condition"].tolist() == conditions * 2  # 2 random draws of each kind
    assert results["eval_task"].tolist() == [TASK] * 7 + [TEST_TASK] * 7
    assert all(len(scores) == 6 for scores in results["sample_scores"])
    metrics = json.loads((folder / "multitask.json").read_text())
    assert metrics["tasks"] == [TASK, TEST_TASK] and metrics["steps"] <= 4
    assert metrics["metric"] == "rouge_l"
    for task in (TASK, TEST_TASK):
        neurons = read_multitask_neurons(folder / "multitask_neurons.parquet", task)
        assert len(neurons) == 2 * 64 and (neurons["relevance"] >= 0).all()
    table = pd.read_csv(sandbox / f"results/{MODEL}/tables/B-T1_generation.csv")
    assert table["task"].tolist() == [TASK, TEST_TASK, "mean"]
    own = results[(results["condition"] == "task") & (results["source"] == results["eval_task"])]
    assert table["deactivate_task"].iloc[:2].tolist() == pytest.approx(
        (100 * own["score"]).tolist()
    )
    drop = pd.read_csv(sandbox / f"results/{MODEL}/tables/B-F5b.csv").set_index("neurons_of")
    original = results[results["condition"] == "original"].set_index("eval_task")["score"]
    for row in results[results["condition"] == "task"].itertuples():
        expected = -100 * (row.score - original[row.eval_task])
        assert drop.loc[row.source, row.eval_task] == pytest.approx(expected, abs=0.05)


def test_the_multitask_model_sharded_with_fsdp_deactivates_as_one_process(
    generation_run, tmp_path_factory
):
    one, _ = generation_run
    two = copy_run(one, tmp_path_factory.mktemp("fsdp") / "run")
    results = f"results/{MODEL}/paper_b/generation/run0/deactivation.parquet"
    rerun_sharded(two, ["deactivation"], [results], "--configfile", "gen.yaml")
    pd.testing.assert_frame_equal(pd.read_parquet(two / results), pd.read_parquet(one / results))


def test_the_generation_groups_neuron_overlap(generation_run):
    sandbox, _ = generation_run
    folder = sandbox / f"results/{MODEL}/task_neurons"
    tables = {task: pd.read_parquet(folder / f"{task}.parquet") for task in (TASK, TEST_TASK)}
    top = {task: frame[frame["rank"] < 13] for task, frame in tables.items()}  # 10% of 128
    ids = {task: set(frame["layer"] * 64 + frame["neuron"]) for task, frame in top.items()}
    table = pd.read_csv(sandbox / f"results/{MODEL}/tables/B-T8.csv")
    assert table["pair"].tolist() == ["gen-gen", "gen-gen"]
    row = table.iloc[0]
    assert row["train_neurons"] == row["test_neurons"] == 13
    shared = len(ids[TASK] & ids[TEST_TASK]) / len(ids[TASK] | ids[TEST_TASK])
    assert row["overlap"] == pytest.approx(100 * shared)


def test_the_generation_groups_proportion_sweeps_b_f2_b_f6(generation_run):
    sandbox, _ = generation_run
    folder = sandbox / f"results/{MODEL}/paper_b/generalization/run0/gen/proportions"
    group = pd.read_parquet(folder / "group.parquet")
    assert set(group["group"]) == set(group["eval_group"]) == {"gen"}
    assert set(group["metric"]) == {"rouge_l"} and (group["predicted_classes"] == 0).all()
    assert group["eval_task"].tolist() == [TASK, TEST_TASK] * 2  # shares 0.1 and 1.0
    assert group["role"].tolist() == ["id", "ood"] * 2
    for mean, scores in zip(group["score"], group["sample_scores"], strict=True):
        assert len(scores) == 6 and mean == pytest.approx(scores.mean())
    metrics = json.loads((folder / "group.json").read_text())
    assert [run["neurons"][TASK] for run in metrics["trainings"]] == [13, 128]
    zero_shot = (
        pd.read_parquet(sandbox / f"results/{MODEL}/paper_b/generation/zero_shot.parquet")
        .set_index("eval_task")
        .loc[TEST_TASK]
    )
    table = pd.read_csv(sandbox / f"results/{MODEL}/tables/B-F2.csv")
    assert table["proportion"].tolist() == [0.0, 0.1, 1.0]
    assert table["ood_mean"].iloc[0] == pytest.approx(100 * zero_shot["score"])
    assert table["ood_mean"].iloc[-1] == pytest.approx(100 * group["score"].iloc[-1])
    # One training task: B-F6's sweep is B-F2's training, run once.
    assert not (folder / f"{TASK}.parquet").exists()
    single = pd.read_csv(sandbox / f"results/{MODEL}/tables/B-F6.csv")
    assert set(single["trained"]) == {TASK} and len(single) == 3
    columns = ["proportion", "id_mean", "ood_mean"]
    assert single[columns].values.tolist() == table[columns].values.tolist()


def test_the_generation_groups_controlled_overlap_b_t10(generation_run):
    sandbox, _ = generation_run
    folder = sandbox / f"results/{MODEL}/paper_b/generalization/run0/gen-gen/controlled"
    results = pd.read_parquet(folder / "q10.parquet")
    assert results["trained"].drop_duplicates().tolist() == ["natural", "drawn"]
    drawn = results[(results["trained"] == "drawn") & (results["role"] == "ood")]
    assert len(drawn) == 2 and drawn["overlap"].max() == pytest.approx(1.0)
    table = pd.read_csv(sandbox / f"results/{MODEL}/tables/B-T9.csv")
    assert set(table["pair"]) == {"gen-gen"} and len(table) == 3


def test_the_generation_similarity_model_b_f3_b_t4(generation_run):
    sandbox, _ = generation_run
    folder = sandbox / f"results/{MODEL}/paper_b/similarity/run0"
    frame = pd.read_parquet(folder / f"{TASK}.parquet")
    assert set(frame["test_task"]) == {TEST_TASK} and len(frame) == 2 * 2  # layers x defs
    assert frame["similarity"].dropna().between(-1, 1).all()
    scores = pd.read_parquet(folder / f"{TASK}_scores.parquet")
    assert scores["eval_task"].tolist() == [TASK, TEST_TASK]
    assert set(scores["metric"]) == {"rouge_l"}
    metrics = json.loads((folder / f"{TASK}.json").read_text())
    assert metrics["steps"] <= 4 and metrics["trained_parameters"] > 0
    points = pd.read_csv(sandbox / f"results/{MODEL}/tables/B-T4_points.csv")
    assert points["score"].iloc[0] == pytest.approx(100 * scores["score"].iloc[1])
    layers = pd.read_csv(sandbox / f"results/{MODEL}/tables/B-F3.csv")
    assert layers[["test_group", "models"]].drop_duplicates().values.tolist() == [["gen", "all"]]
    expected = frame["similarity"].tolist()
    assert layers["similarity"].tolist() == pytest.approx(expected, nan_ok=True)
