"""Transferability indicator (paper A §6.2): pairs, activation states, ON and Spearman."""

import math
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
import pandas as pd
import pytest
import torch

from skillneurons.models.encoding import encode_split
from skillneurons.models.prompted import PromptedClassifier, write_prompt
from skillneurons.models.training import accuracy
from skillneurons.neurons.hooks import capture_activations
from skillneurons.neurons.ranking import Ranking, ranking_table
from skillneurons.paper_a.transfer import (
    activation_state,
    indicator_correlations,
    overlap_rate,
    pairs_table,
    pooled_spearman,
    scatter_points,
    skill_neuron_mask,
    transfer_evaluation,
    transfer_matrix,
    transfer_pairs,
)
from skillneurons.reporting.figures import transfer_scatter
from tiny_models import tiny, word_tokenizer

BINARY = ["Negative", "Positive"]
WORDS = {"a": BINARY, "b": BINARY, "c": ["Negative", "very", "Positive"], "d": BINARY}


def test_transfer_pairs_share_label_words():
    pairs = transfer_pairs(WORDS)
    assert ("b", "a") in pairs and ("a", "a") in pairs and ("d", "b") in pairs
    assert not any("c" in pair for pair in pairs if pair != ("c", "c"))
    assert len(pairs) == 3 * 3 + 1
    assert len(transfer_pairs(WORDS, include_self=False)) == 3 * 2


def test_overlap_rate_by_hand():
    a = np.array([[[1, 1, 0, 0, 1]]], dtype=bool)  # [layers 1, positions 1, neurons 5]
    b = np.array([[[1, 0, 1, 0, 1]]], dtype=bool)
    assert overlap_rate(a, b) == pytest.approx(2 / math.sqrt(3 * 3))
    assert overlap_rate(a, b, measure="jaccard") == pytest.approx(2 / 4)
    only = np.array([[True, True, False, False, False]])
    assert overlap_rate(a, b, only) == pytest.approx(1 / math.sqrt(2 * 1))
    assert math.isnan(overlap_rate(a, np.zeros_like(b)))
    with pytest.raises(ValueError, match="unknown"):
        overlap_rate(a, b, measure="dice")


def test_activation_state_reads_the_empty_input_prompt_sequence():
    loaded = tiny("masked_lm", word_tokenizer())
    classifier = PromptedClassifier(loaded, BINARY, prompt_length=3, seed=1)
    state = activation_state(classifier, "answer")
    assert state.shape == (2, 1, 32) and state.dtype == bool
    assert classifier.training and not loaded.model.training  # modes left as they were
    embed = loaded.model.get_input_embeddings()
    inputs = torch.cat([embed(classifier.mask_id)[None], classifier.prompts[None]], dim=1)
    with torch.no_grad(), capture_activations(loaded.model) as capture:
        loaded.model.base_model(inputs_embeds=inputs, attention_mask=torch.ones(1, 4))
    manual = capture.stacked()[0] > 0  # [layers, 4 positions, neurons]
    assert np.array_equal(state[:, 0], manual[:, 0].numpy())
    prompts = activation_state(classifier, "prompts")
    assert np.array_equal(prompts, manual[:, 1:].numpy())
    causal = PromptedClassifier(tiny("causal_lm", word_tokenizer()), BINARY, prompt_length=3)
    assert activation_state(causal).shape == (2, 1, 64)


def ranking_of(pred):
    zeros = np.zeros_like(pred)
    return Ranking(ranking_table({None: pred}, {None: zeros}, {None: zeros.astype(np.int64)}))


def test_skill_neuron_mask_takes_the_top_fraction():
    pred = np.random.default_rng(0).random((2, 10))
    mask = skill_neuron_mask(ranking_of(pred), 0.2, per_layer=False)
    assert mask.sum() == 4
    assert mask[pred >= np.sort(pred.ravel())[-4]].all()
    per_layer = skill_neuron_mask(ranking_of(pred), 0.2, per_layer=True)
    assert per_layer.sum(axis=1).tolist() == [2, 2]


def pairs_frame(rows):
    return pd.DataFrame(
        rows, columns=["source", "target", "trial", "transfer_accuracy", "on_all", "on_skill"]
    )


def test_indicator_correlations_per_target_and_average():
    rows = []
    for trial in (0, 1):
        for rank, source in enumerate(["a", "b", "c"]):
            # target t: ON over all neurons agrees with accuracy, ON over skill neurons is reversed
            rows.append((source, "t", trial, 0.5 + 0.1 * rank, 0.1 * rank, 1 - 0.1 * rank))
        rows.append(("t", "t", trial, 0.99, 1.0, 1.0))  # self-transfer: left out by default
        rows.append(("a", "u", trial, 0.6, 0.2, 0.3))  # only one source: no correlation
    table = indicator_correlations(pairs_frame(rows))
    by_target = table.set_index("target")
    assert by_target.loc["t", "spearman_all"] == pytest.approx(1.0)
    assert by_target.loc["t", "spearman_skill"] == pytest.approx(-1.0)
    assert by_target.loc["t", "sources"] == 3
    assert math.isnan(by_target.loc["u", "spearman_all"])
    assert by_target.loc["average", "spearman_all"] == pytest.approx(1.0)
    assert by_target.loc["pooled", "spearman_skill"] == pytest.approx(-1.0)  # only t counts
    assert by_target.loc["pooled", "sources"] == 3
    assert table["target"].tolist() == ["t", "u", "average", "pooled"]
    with_self = indicator_correlations(pairs_frame(rows), include_self=True).set_index("target")
    assert with_self.loc["t", "sources"] == 4


def test_pooled_spearman_weights_targets_by_their_rank_variance():
    # target t: 3 sources in agreeing order (rho +1); v: 2 sources reversed (rho -1).
    # Centred ranks: t x = y = (-1, 0, 1); v x = (-.5, .5), y = (.5, -.5), so the
    # pooled correlation is (2 - 0.5) / sqrt(2.5 * 2.5) = 0.6, i.e. (24 - 6) / 30.
    rows = [(s, "t", 0, 0.5 + 0.1 * r, 0.1 * r, 0.0) for r, s in enumerate("abc")]
    rows += [("a", "v", 0, 0.7, 0.1, 0.0), ("b", "v", 0, 0.6, 0.2, 0.0)]
    rows += [("a", "w", 0, 0.9, 0.3, 0.0)]  # one source: no weight
    table = indicator_correlations(pairs_frame(rows)).set_index("target")
    assert table.loc["pooled", "spearman_all"] == pytest.approx(0.6)
    assert table.loc["pooled", "sources"] == 5
    assert math.isnan(table.loc["pooled", "spearman_skill"])  # ON over skill neurons all tied
    assert table.loc["average", "spearman_all"] == pytest.approx(1.0)  # t only (3+ sources)
    groups = [frame for _, frame in pairs_frame(rows).groupby("target")]
    assert math.isnan(pooled_spearman(groups[2:], "on_all", "transfer_accuracy"))


def test_pairs_table_compares_same_trial_prompts_on_target_skill_neurons():
    on = np.array([[[1, 1, 0, 0]]], dtype=bool)
    off = np.array([[[0, 0, 1, 1]]], dtype=bool)
    states = {("a", 0): on, ("b", 0): on, ("a", 1): on, ("b", 1): off}
    masks = {"a": np.array([[1, 0, 0, 0]], bool), "b": np.array([[1, 1, 1, 1]], bool)}
    accuracies = {("a", "b", 0): 0.7, ("a", "b", 1): 0.6, ("b", "a", 1): 0.5}
    table = pairs_table(accuracies, states, masks)
    assert list(table.columns) == [
        "source",
        "target",
        "trial",
        "transfer_accuracy",
        "on_all",
        "on_skill",
    ]
    assert table["on_all"].tolist() == [1.0, 0.0, 0.0]
    assert math.isnan(table["on_skill"].iloc[2])  # target a's skill neuron is off for b
    matrix = transfer_matrix(table)
    assert matrix.columns.tolist() == ["source", "b", "a"]  # targets in table order
    assert matrix.set_index("source").loc["a", "b"] == pytest.approx(0.65)


def test_transfer_evaluation_runs_source_prompts_with_target_words(tmp_path):
    loaded = tiny("masked_lm", word_tokenizer())
    texts = ["very good", "not good bad", "good", "bad", "very bad", "good good"]
    split = encode_split(loaded.tokenizer, texts, [None] * 6, [1, 0, 1, 0, 0, 1], 16)
    files = {}
    for task, seed in (("a", 1), ("b", 2)):
        classifier = PromptedClassifier(loaded, BINARY, prompt_length=2, seed=seed)
        files[(task, 0)] = str(tmp_path / f"{task}.safetensors")
        write_prompt(files[(task, 0)], classifier, {"task": task})
    words = {"a": BINARY, "b": BINARY}
    accuracies, states = transfer_evaluation(
        loaded, files, {"a": split, "b": split}, words, batch_size=4
    )
    assert set(accuracies) == {(s, t, 0) for s in "ab" for t in "ab"}
    direct = PromptedClassifier(loaded, BINARY, prompt_length=2, seed=2)
    assert accuracies[("b", "a", 0)] == accuracy(direct, split, 4, loaded.tokenizer.pad_token_id)
    assert np.array_equal(states[("b", 0)], activation_state(direct))
    pairs = pairs_table(accuracies, states, {t: np.ones((2, 32), bool) for t in "ab"})
    figure = transfer_scatter(scatter_points(pairs), indicator_correlations(pairs), "test")
    assert len(figure.axes) == 2
