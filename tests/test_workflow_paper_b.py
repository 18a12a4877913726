"""Paper B's outputs on the smoke pipeline: every file of B-T1, B-T2, B-F5, AB-T1, AB-F1,
B-F2, B-F6, B-T8, B-T9, B-F3, B-T4, B-T5, B-F4 and the paper-B findings, with its
documented schema and the numbers that tie them."""

import numpy as np
import pandas as pd
import pytest
from verdict_checks import assert_verdicts_follow_the_intervals

from skillneurons.infra.io import read_json, read_metadata
from skillneurons.paper_b.continual import COLUMNS as CONTINUAL_COLUMNS
from skillneurons.paper_b.evaluation import COLUMNS as RESULT_COLUMNS
from skillneurons.paper_b.evaluation import RUN_COLUMNS
from skillneurons.paper_b.generalization import COLUMNS as GENERALIZATION_COLUMNS
from skillneurons.paper_b.relevance import COLUMNS as NEURON_COLUMNS
from skillneurons.reporting.findings import COLUMNS as FINDING_COLUMNS
from smoke_runs import completed_smoke_run

# End-to-end runs of the smoke pipeline (minutes): the slow tier.
pytestmark = pytest.mark.slow

TASKS = ["syn_sst2", "syn_tweet", "syn_agnews"]
LAYERS, WIDTH, HIDDEN = 2, 1536, 384  # minilm-l2
TOP = round(0.1 * LAYERS * WIDTH)  # paper_b.fraction 0.1 over all layers
DRAWS = 2  # configs/smoke.yaml: paper_b.random_draws


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return completed_smoke_run(tmp_path_factory) / "results/minilm-l2"


def accuracy_of(frame, condition, source, eval_task):
    rows = frame[
        (frame["condition"] == condition)
        & (frame["source"] == source)
        & (frame["eval_task"] == eval_task)
    ]
    return rows["score"].tolist()


def read_multitask_neurons(results, task):
    """``task``'s table of the multi-task model's neuron file (rule deactivation)."""
    from skillneurons.paper_b.relevance import read_multitask_neurons as read

    return read(results / "paper_b/classification/run0/multitask_neurons.parquet", task)


@pytest.mark.parametrize(
    "folder, identified_on",
    [
        ("task_neurons", "base model"),
        ("paper_b/classification/run0/multitask_neurons", "multitask model"),
        ("paper_b/prompt_tuned_neurons", "prompt-tuned model (trial 0)"),
        ("paper_b/prompt_tuned_neurons", "prompt-tuned model (trial 1)"),
    ],
)
def test_task_neuron_files(results, folder, identified_on):
    for task in TASKS:
        if folder.endswith("multitask_neurons"):
            path = results / f"{folder}.parquet"
            table = read_multitask_neurons(results, task)
        elif folder.endswith("prompt_tuned_neurons"):  # one file per prompt trial
            path = results / folder / task / f"trial{identified_on[-2]}.parquet"
            table = pd.read_parquet(path)
        else:
            path = results / folder / f"{task}.parquet"
            table = pd.read_parquet(path)
        assert tuple(table.columns) == NEURON_COLUMNS
        assert len(table) == LAYERS * WIDTH
        assert (table["rank"].to_numpy() == np.arange(len(table))).all()  # sorted by rank
        assert (np.diff(table["relevance"].to_numpy()) <= 0).all()
        assert (table["relevance"] >= 0).all()
        first_in_layer = table.groupby("layer")["rank_in_layer"].first()
        assert (first_in_layer == 0).all()
        metadata = read_metadata(path)
        assert metadata["identified_on"] == identified_on
        assert metadata["definition"] == "sample_abs"
        assert metadata["attribution_samples"] == 60
        assert metadata.get("task", task) == task and task in metadata.get("tasks", [task])


def test_deactivation_results_and_table_b_t1(results):
    frame = pd.read_parquet(results / "paper_b/classification/run0/deactivation.parquet")
    assert tuple(frame.columns) == RUN_COLUMNS and set(frame["metric"]) == {"accuracy"}
    metadata = read_metadata(results / "paper_b/classification/run0/deactivation.parquet")
    assert metadata["identify_on"] == "multitask"
    # per evaluated task: the original model, every task's neurons, the random draws of
    # both kinds (paper B's over all layers, ours layer-matched)
    assert len(frame) == len(TASKS) * (1 + len(TASKS) + 2 * DRAWS)
    for row in frame.itertuples():
        assert row.score == pytest.approx(np.mean(row.sample_scores))
        assert len(row.sample_scores) == 60  # the smoke test split
    metrics = read_json(results / "paper_b/classification/run0/multitask.json")
    assert metrics["tasks"] == TASKS and metrics["steps"] <= 12
    table = pd.read_csv(results / "tables/B-T1.csv")
    assert table.columns.tolist() == [
        "task",
        "original",
        "deactivate_random",
        "deactivate_random_std",
        "deactivate_random_layer_matched",
        "deactivate_random_layer_matched_std",
        "deactivate_task",
        "random_draws",
    ]
    assert table["task"].tolist() == [*TASKS, "mean"]
    for task, row in zip(TASKS, table.itertuples(), strict=False):
        assert row.original == pytest.approx(100 * accuracy_of(frame, "original", "", task)[0])
        assert row.deactivate_task == pytest.approx(
            100 * accuracy_of(frame, "task", task, task)[0]
        )
        random = accuracy_of(frame, "random", task, task)
        assert row.deactivate_random == pytest.approx(100 * np.mean(random))
        matched = accuracy_of(frame, "random_layer_matched", task, task)
        assert row.deactivate_random_layer_matched == pytest.approx(100 * np.mean(matched))
        assert row.random_draws == DRAWS == len(random) == len(matched)
    assert table["original"].iloc[-1] == pytest.approx(table["original"].iloc[:-1].mean())


def test_neuron_training_results_and_table_b_t2(results):
    zero_shot = pd.read_parquet(results / "paper_b/classification/zero_shot.parquet")
    assert tuple(zero_shot.columns) == RESULT_COLUMNS
    assert zero_shot["eval_task"].tolist() == TASKS
    for task in TASKS:
        frame = pd.read_parquet(results / f"paper_b/neuron_training/run0/{task}.parquet")
        assert tuple(frame.columns) == RUN_COLUMNS and set(frame["run"]) == {0}
        assert set(frame["source"]) == {task}
        # training the task's neurons and each random set evaluates every task
        trained = frame[frame["condition"] == "task"]
        assert trained["eval_task"].tolist() == TASKS
        for condition in ("random", "random_layer_matched"):
            randoms = frame[frame["condition"] == condition]
            assert randoms["eval_task"].tolist() == TASKS * DRAWS
        metrics = read_json(results / f"paper_b/neuron_training/run0/{task}.json")
        assert [run["condition"] for run in metrics["trainings"]] == [
            "task", *["random"] * DRAWS, *["random_layer_matched"] * DRAWS
        ]  # fmt: skip
        for run in metrics["trainings"]:
            assert run["neurons"] == TOP
            # BERT FFN: a neuron is its row of the input projection with its bias entry
            # and its column of the output projection
            assert run["trained_entries"] == TOP * (2 * HIDDEN + 1)
    table = pd.read_csv(results / "tables/B-T2.csv")
    assert table.columns.tolist() == [
        "task",
        "zero_shot",
        "train_random",
        "train_random_std",
        "train_random_layer_matched",
        "train_random_layer_matched_std",
        "train_task",
        "gain_random",
        "gain_random_layer_matched",
        "gain_task",
        "random_draws",
    ]
    own = table.iloc[: len(TASKS)]
    assert (own["gain_task"] == own["train_task"] - own["zero_shot"]).all()
    assert own["zero_shot"].tolist() == pytest.approx(100 * zero_shot["score"].to_numpy())


def test_task_specificity_matrices_and_figure_b_f5(results):
    deactivation = pd.read_parquet(results / "paper_b/classification/run0/deactivation.parquet")
    drop = pd.read_csv(results / "tables/B-F5a.csv").set_index("neurons_of")
    gain = pd.read_csv(results / "tables/B-F5c.csv").set_index("neurons_of")
    for matrix in (drop, gain):
        assert matrix.index.tolist() == matrix.columns.tolist() == TASKS
    for source in TASKS:
        for task in TASKS:
            original = accuracy_of(deactivation, "original", "", task)[0]
            deactivated = accuracy_of(deactivation, "task", source, task)[0]
            assert drop.loc[source, task] == pytest.approx(100 * (original - deactivated))
    # B-F5c's controls: random neurons (over all layers, B-F5c_random; layer-matched,
    # B-F5c_random_layer_matched) trained on the row's task
    zero_shot = pd.read_parquet(results / "paper_b/classification/zero_shot.parquet")
    for condition in ("random", "random_layer_matched"):
        control = pd.read_csv(results / f"tables/B-F5c_{condition}.csv").set_index("neurons_of")
        assert control.index.tolist() == control.columns.tolist() == TASKS
        for source in TASKS:
            frame = pd.read_parquet(results / f"paper_b/neuron_training/run0/{source}.parquet")
            for task in TASKS:
                random = np.mean(accuracy_of(frame, condition, source, task))
                assert control.loc[source, task] == pytest.approx(
                    100 * (random - accuracy_of(zero_shot, "zero_shot", "", task)[0])
                )
    for ext in ("png", "pdf"):
        assert (results / f"figures/B-F5.{ext}").stat().st_size > 1000


def test_comparison_table_ab_t1_and_curves_ab_f1(results):
    table = pd.read_csv(results / "tables/AB-T1.csv")
    assert table.columns.tolist() == [
        "task",
        "spearman",
        "spearman_layer_mean",
        "jaccard_top",
        "jaccard_chance",
        "top_neurons",
        "area_paper_a",
        "area_paper_b",
        "area_random_paper_a",
        "area_random_paper_b",
    ]
    assert table["task"].tolist() == [*TASKS, "mean"]
    assert table["jaccard_chance"].to_numpy() == pytest.approx(0.1 / 1.9)
    assert table["spearman"].between(-1, 1).all() and table["jaccard_top"].between(0, 1).all()
    for task in TASKS:
        agreement = read_json(results / f"paper_b/comparison/{task}.json")
        assert len(agreement["spearman_per_layer"]) == LAYERS
        assert agreement["top_neurons"] == TOP
        per_trial = agreement["trials"]  # configs/smoke.yaml: 2 prompt trials
        assert len(per_trial) == 2 and per_trial[0]["spearman"] != per_trial[1]["spearman"]
        assert agreement["spearman"] == pytest.approx(np.mean([t["spearman"] for t in per_trial]))
        row = table[table["task"] == task].iloc[0]
        assert row["spearman"] == pytest.approx(agreement["spearman"])
        curves = pd.read_parquet(results / f"paper_b/comparison/{task}.parquet")
        assert set(curves["order"]) == {"paper_a", "paper_b", "random_paper_a", "random_paper_b"}
        assert set(curves["kind"]) == {"zero"} and set(curves["trial"]) == {0, 1}
        unperturbed = curves[curves["rate"] == 0].groupby("trial")["accuracy"]
        assert (unperturbed.nunique() == 1).all()  # each trial's orders start from its model
        assert (
            len(read_metadata(results / f"paper_b/comparison/{task}.parquet")["sample_idx"]) == 16
        )
    for ext in ("png", "pdf"):
        assert (results / f"figures/AB-F1.{ext}").stat().st_size > 1000


def test_paper_b_findings_are_interval_decisions(results):
    findings = pd.read_csv(results / "tables/B-findings.csv")
    assert list(findings.columns) == FINDING_COLUMNS
    # B-T1, B-T2 (each against paper B's random sets and, ours, layer-matched ones),
    # both B-F5 diagonals, B-F5c's two controls; AB-T1's correlation and overlap;
    # AB-F1's three; §5: B-F2 (two), B-F6, B-T8 (two), B-T9, B-T4, B-F3's profile; §6:
    # B-T5 (seven, SeqLoRA's and W-NCFT's uniform-weight control included, and two "in
    # every order"), B-F4 (two: NCFT, W-NCFT retain more at every stage)
    assert len(findings) == 32
    assert (findings["paper"] == "§6, B-T5").sum() == 9
    assert (findings["paper"] == "§6, B-F4").sum() == 2
    for paper in (
        "§4.1, B-T1", "§4.1, B-T1 (ours: layer-matched random neurons)", "§4.2, B-T2",
        "§4.2, B-T2 (ours: layer-matched random neurons)", "A.4, B-F5c (control; ours)",
        "A.4, B-F5c (ours: the control with layer-matched random neurons)",
    ):  # fmt: skip
        row = findings[findings["paper"] == paper]
        assert len(row) == 1 and row["verdict"].iloc[0] != "not measured", paper
    assert findings["claim"].str.contains("SeqLoRA").sum() == 1
    assert findings["claim"].str.startswith("deactivating paper B's top neurons").sum() == 1
    assert_verdicts_follow_the_intervals(findings)
    # the AB rank claims resample configs/smoke.yaml's 2 prompt trials; the tasks are
    # fixed (the claim is the mean over these tasks, not over a population of tasks)
    alike = findings[findings["claim"].str.contains("rank neurons alike")].iloc[0]
    assert alike["runs"] == 2 and alike["resampled"].endswith(": trials 2; fixed: tasks 3")
    # one training per paper-B condition: none of its rows decides
    one = findings["resampled"].str.contains("training runs 1 (not resampled)", regex=False)
    one = findings[one]
    assert len(one) >= 15
    assert set(one["verdict"]) <= {"inconclusive", "not measured", "not decidable here"}
    # B-T4 has 2 models x 1 test task in the smoke config: too few points to decide
    similarity = findings[findings["paper"] == "§5.2, B-T4"].iloc[0]
    assert similarity["verdict"] == "not measured" and "at least 4" in similarity["note"]
    assert "(centroid, mean over layers)" in similarity["effect"]
    profile = findings[findings["paper"] == "§5.2, B-F3"].iloc[0]  # 2 profiles: too few
    assert profile["verdict"] == "not measured" and "at least 4" in profile["note"]


TRAIN, TEST = ["syn_sst2", "syn_agnews"], ["syn_tweet"]  # first task of each type trains


def test_generalization_results_and_tables_b_f2_b_f6(results):
    group = pd.read_parquet(results / "paper_b/generalization/run0/cls/proportions/group.parquet")
    assert tuple(group.columns) == ("run", *GENERALIZATION_COLUMNS)
    assert sorted(group["proportion"].unique()) == [0.1, 1.0]
    assert group["predicted_classes"].between(1, 4).all()  # at most a task's labels
    roles = dict(zip(group["eval_task"], group["role"], strict=False))
    assert roles == {"syn_sst2": "id", "syn_agnews": "id", "syn_tweet": "ood"}
    single = pd.read_parquet(
        results / "paper_b/generalization/run0/cls/proportions/syn_sst2.parquet"
    )
    assert set(single["trained"]) == {"syn_sst2"}
    assert dict(zip(single["eval_task"], single["role"], strict=False)) == {
        "syn_sst2": "id",
        "syn_agnews": "other",
        "syn_tweet": "ood",
    }
    metrics = read_json(results / "paper_b/generalization/run0/cls/proportions/group.json")
    full = metrics["trainings"][-1]
    assert full["proportion"] == 1.0 and full["neurons"] == {t: LAYERS * WIDTH for t in TRAIN}
    for stem in ("B-F2", "B-F6"):
        table = pd.read_csv(results / f"tables/{stem}.csv")
        assert table.columns.tolist()[:5] == ["group", "trained", "proportion", "id_mean",
                                              "ood_mean"]  # fmt: skip
        assert (table.groupby("trained")["proportion"].first() == 0.0).all()  # zero-shot
        for ext in ("png", "pdf"):
            assert (results / f"figures/{stem}.{ext}").stat().st_size > 1000
    row = pd.read_csv(results / "tables/B-F2.csv").query("proportion == 1.0").iloc[0]
    ood = group.query("proportion == 1.0 and role == 'ood'")["score"].mean()
    assert row["ood_mean"] == pytest.approx(100 * ood)


def test_overlap_and_controlled_tables_b_t8_b_t9(results):
    overlap = pd.read_csv(results / "tables/B-T8.csv")
    assert overlap["proportion"].tolist() == [0.1, 0.5, 1.0]
    assert overlap["overlap"].iloc[-1] == pytest.approx(100.0)
    assert overlap["test_neurons"].iloc[0] == TOP  # one test task
    controlled = pd.read_parquet(
        results / "paper_b/generalization/run0/cls-cls/controlled/q10.parquet"
    )
    assert tuple(controlled.columns) == ("run", *GENERALIZATION_COLUMNS)
    shares = controlled.drop_duplicates("trained", keep="first")
    assert shares["trained"].tolist() == ["natural", "drawn"]
    drawn = sorted(controlled.loc[controlled["trained"] == "drawn", "overlap"].unique())
    assert drawn[0] == 0.0 and 0 < drawn[-1] <= 1.0  # capped at the test tasks' neurons
    table = pd.read_csv(results / "tables/B-T9.csv")
    assert table.columns.tolist() == [
        "pair", "proportion", "trained", "overlap", "jaccard", "ood_mean", "id_mean",
        "single_class_tasks",
    ]  # fmt: skip
    assert table["trained"].tolist() == ["natural", "drawn", "drawn"]
    # the natural sets' Jaccard value is B-T8's overlap rate (Eq. 13) at q
    assert table["jaccard"].iloc[0] == pytest.approx(overlap["overlap"].iloc[0])
    assert (overlap["test_share"] >= overlap["overlap"]).all()  # |N_x| <= |N_x ∪ N_y|


def test_similarity_outputs_b_f3_b_t4(results):
    frame = pd.read_parquet(results / "paper_b/similarity/run0/syn_sst2.parquet")
    assert frame.columns.tolist() == [
        "run", "layer", "test_task", "definition", "similarity", "chance", "trained"
    ]  # fmt: skip
    assert set(frame["definition"]) == {"centroid", "norm_weighted_overlap"}
    assert len(frame) == LAYERS * len(TEST) * 2
    assert frame["similarity"].dropna().between(-1, 1).all()
    scores = pd.read_parquet(results / "paper_b/similarity/run0/syn_sst2_scores.parquet")
    assert scores["eval_task"].tolist() == ["syn_sst2", *TEST]
    points = pd.read_csv(results / "tables/B-T4_points.csv")
    assert len(points) == len(TRAIN) * len(TEST)
    table = pd.read_csv(results / "tables/B-T4.csv")
    assert table["test_task"].tolist() == [*TEST, "pooled"]
    assert table["pearson"].isna().all()  # two models: below four points
    layers = pd.read_csv(results / "tables/B-F3.csv")
    assert len(layers) == LAYERS * len(TEST) * 2  # one panel: the cls tests, all models
    assert set(zip(layers["test_group"], layers["models"], strict=True)) == {("cls", "all")}
    for ext in ("png", "pdf"):
        assert (results / f"figures/B-F3.{ext}").stat().st_size > 1000


def test_continual_results_and_tables_b_t5_b_f4(results):
    folder = results / "paper_b/continual/run0"  # paper_b.runs: 1
    seqft = pd.read_parquet(folder / "order1/seqft.parquet")
    ncft = pd.read_parquet(folder / "order1/ncft.parquet")
    seqlora = pd.read_parquet(folder / "order1/seqlora.parquet")
    assert tuple(seqft.columns) == tuple(ncft.columns) == ("run", *CONTINUAL_COLUMNS)
    assert tuple(seqlora.columns) == ("run", *CONTINUAL_COLUMNS)
    # after stage j the first j tasks of the order (paper_b.tasks) are tested
    tested = [[stage, task] for stage in (1, 2, 3) for task in TASKS[:stage]]
    assert seqft[["stage", "eval_task"]].values.tolist() == tested
    assert seqlora[["stage", "eval_task"]].values.tolist() == tested
    assert set(seqlora["method"]) == {"seqlora"}
    stages = read_json(folder / "order1/seqlora.json")["stages"]
    assert [stage["task"] for stage in stages] == TASKS
    assert len({stage["trained_parameters"] for stage in stages}) == 1  # one adapter set
    for method in ("ncft", "wncft", "wncft_uniform"):
        rows = ncft[ncft["method"] == method]
        assert rows[["stage", "eval_task"]].values.tolist() == tested
    first = ncft[ncft["stage"] == 1]  # one stage learnt: W-NCFT (uniform too) is NCFT
    assert (first["correct"].iloc[0] == first["correct"].iloc[1]).all()
    assert (first["correct"].iloc[0] == first["correct"].iloc[2]).all()
    stages = read_json(folder / "order1/ncft.json")["stages"]
    assert [stage["neurons"] for stage in stages] == [TOP] * 3
    assert sum(stages[-1]["wncft_weights"]["syn_sst2"]) == pytest.approx(1.0)
    own = {t: pd.read_parquet(folder / f"per_task/{t}.parquet")["accuracy"].iloc[0] for t in TASKS}
    table = pd.read_csv(results / "tables/B-T5.csv")
    measured = table[table["source"] == "measured"]
    assert measured["method"].tolist() == [
        "SeqFT", "SeqLoRA", "NCFT", "W-NCFT", "W-NCFT, uniform weights", "Per-task FT"
    ]  # fmt: skip
    assert (table["source"] != "measured").sum() == 2  # EPI, O-LoRA quoted
    assert measured.iloc[1]["cl"] == pytest.approx(
        100 * seqlora.loc[seqlora["stage"] == 3, "accuracy"].mean()
    )
    final = seqft.loc[seqft["stage"] == 3, "accuracy"].mean()
    assert measured.iloc[0]["cl"] == pytest.approx(100 * final)
    assert measured.iloc[-1]["cl"] == pytest.approx(100 * np.mean(list(own.values())))
    fg = pd.read_csv(results / "tables/B-F4.csv")
    assert fg["stage"].tolist() == [2, 3] * 5
    a_12 = seqft.query("stage == 2 and eval_task == 'syn_sst2'")["accuracy"].iloc[0]
    assert fg.iloc[0]["fg"] == pytest.approx(100 * a_12 / own["syn_sst2"])
    matrix = pd.read_csv(results / "tables/B-T5_matrix.csv")
    assert matrix.columns.tolist()[:3] == ["order", "method", "task"]
    for ext in ("png", "pdf"):
        assert (results / f"figures/B-F4.{ext}").stat().st_size > 1000
