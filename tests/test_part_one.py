"""Paper B's part 1 through one path: deactivation (B-T1, B-F5a/b) of a classification
and of a generation task by the same function, each through its TaskScorer
(skillneurons.paper_b.deactivation, skillneurons.paper_b.evaluation)."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import torch

from skillneurons.models.sites import ffn_sites
from skillneurons.paper_b.deactivation import deactivation_results, multitask_mixture
from skillneurons.paper_b.evaluation import deactivated
from skillneurons.paper_b.random_neurons import global_random_neurons, matched_random_neurons
from skillneurons.paper_b.scorers import classification_scorer, generation_scorer
from tiny_models import tiny, word_tokenizer

SPLITS = ("train", "dev", "test")


def classification(loaded):
    """Four test sentences of a sentiment task whose labels the tiny random model's
    verbalizer scores."""
    frame = pd.DataFrame(
        {"text_a": ["good", "bad", "very good", "not bad"], "text_b": [None] * 4,
         "label": [1, 0, 1, 0]}
    )  # fmt: skip
    return classification_scorer(
        loaded, dict.fromkeys(SPLITS, frame), ["Negative", "Positive"], "",
        max_length=16, batch_size=4,
    )  # fmt: skip


def generation(loaded):
    """Two prompts whose references are the words the tiny causal LM can write."""
    frame = pd.DataFrame({"source": ["good", "bad"], "target": ["very good", "not bad"]})
    scoring = {
        "instruction": "very",
        "budget": {"max_prompt_tokens": 8, "max_target_tokens": 4, "max_new_tokens": 2},
    }
    return generation_scorer(loaded, dict.fromkeys(SPLITS, frame), scoring, batch_size=2)


def by_hand(scorer, model, neurons):
    """The scorer's per-sample test scores with ``neurons`` zeroed as the output
    projections' inputs, by plain forward pre-hooks."""
    sites = ffn_sites(model)

    def zero(chosen):
        def hook(_, args):
            a = args[0].clone()
            a[..., torch.as_tensor(chosen)] = 0.0
            return (a,)

        return hook

    handles = [
        sites[layer].output_projection.register_forward_pre_hook(zero(chosen))
        for layer, chosen in neurons.items()
    ]
    try:
        return scorer.evaluate("test")[0]
    finally:
        for handle in handles:
            handle.remove()


def causal_tokenizer():
    """The tiny word tokenizer with an end-of-text token, as decoding needs."""
    tokenizer = word_tokenizer()
    tokenizer.eos_token = "[MASK]"
    return tokenizer


@pytest.mark.parametrize("kind", ["classification", "generation"])
def test_deactivation_of_either_kind_goes_through_its_scorer(kind):
    if kind == "classification":
        loaded = tiny("masked_lm", word_tokenizer())
    else:
        loaded = tiny("causal_lm", causal_tokenizer())
    build = classification if kind == "classification" else generation
    scorers = {"t": build(loaded), "u": build(loaded)}
    width = ffn_sites(loaded.model)[0].width
    neurons = {"t": {0: np.arange(width), 1: np.array([], np.int64)},
               "u": {0: np.array([0, 1]), 1: np.array([3])}}  # fmt: skip
    by_activations = deactivation_results(scorers, neurons, width=width, random_draws=2, seed=0)
    by_weights = deactivation_results(
        scorers, neurons, width=width, random_draws=2, seed=0, by="weights"
    )
    metric = {"classification": "accuracy", "generation": "rouge_l"}[kind]
    assert set(by_activations["metric"]) == {metric}
    assert by_activations[["condition", "source", "draw", "eval_task"]].values.tolist() == [
        ["original", "", 0, "t"], ["task", "t", 0, "t"], ["task", "u", 0, "t"],
        ["random", "t", 0, "t"], ["random", "t", 1, "t"],
        ["random_layer_matched", "t", 0, "t"], ["random_layer_matched", "t", 1, "t"],
        ["original", "", 0, "u"], ["task", "t", 0, "u"], ["task", "u", 0, "u"],
        ["random", "u", 0, "u"], ["random", "u", 1, "u"],
        ["random_layer_matched", "u", 0, "u"], ["random_layer_matched", "u", 1, "u"],
    ]  # fmt: skip
    # the two ways of deactivating give the same scores, sample by sample
    for a, b in zip(by_activations["sample_scores"], by_weights["sample_scores"], strict=True):
        np.testing.assert_array_equal(a, b)
    # by hand: as trained, and with all of layer 0 zeroed by plain hooks
    original = scorers["t"].evaluate("test")[0]
    off = by_hand(scorers["t"], loaded.model, {0: np.arange(width)})
    rows = by_activations.set_index(["condition", "source", "eval_task", "draw"])
    np.testing.assert_array_equal(rows.loc[("original", "", "t", 0), "sample_scores"], original)
    np.testing.assert_array_equal(rows.loc[("task", "t", "t", 0), "sample_scores"], off)
    assert rows.loc[("task", "t", "t", 0), "score"] == pytest.approx(off.mean())
    # random draw 1 of each kind (seed 0 + 1): paper B's over both layers, ours as many
    # per layer as t's (all of layer 0)
    for condition, draw_set in (
        ("random", global_random_neurons), ("random_layer_matched", matched_random_neurons)
    ):  # fmt: skip
        drawn = draw_set(neurons["t"], width, 1)
        expected = by_hand(scorers["t"], loaded.model, drawn)
        np.testing.assert_array_equal(
            rows.loc[(condition, "t", "t", 1), "sample_scores"], expected
        )
    assert len(global_random_neurons(neurons["t"], width, 1)[1]) > 0  # layer 1 drawn too
    if kind == "classification":  # 1.0 or 0.0 per sentence: the score is accuracy
        assert set(off) <= {0.0, 1.0} and len(off) == 4
    else:  # a ROUGE-L F1 per prompt
        assert len(off) == 2 and ((0 <= off) & (off <= 1)).all()


def test_classification_conditions_batched_score_as_one_pass_each():
    # B-T1's conditions of a classification task in few passes
    loaded = tiny("masked_lm", word_tokenizer())
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():  # larger weights, so that deactivation changes predictions
        for parameter in loaded.model.parameters():
            if parameter.dim() == 2:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.3)
    words = ["very", "not", "good", "bad"]
    texts = [" ".join(words[(i + j) % 4] for j in range(1 + i % 3)) for i in range(24)]
    frame = pd.DataFrame(
        {"text_a": texts, "text_b": [None] * 24, "label": [i % 2 for i in range(24)]}
    )
    scorers = {
        task: classification_scorer(
            loaded,
            dict.fromkeys(SPLITS, frame),
            ["Negative", "Positive"],
            "",
            max_length=16,
            batch_size=8,
        )  # fmt: skip
        for task in ("t", "u")
    }
    alone = {task: replace(scorer, evaluate_off=None) for task, scorer in scorers.items()}
    width = ffn_sites(loaded.model)[0].width
    neurons = {"t": {0: np.arange(0, width, 2), 1: np.arange(8)},
               "u": {0: np.array([0, 1]), 1: np.arange(width)}}  # fmt: skip
    args = {"neurons": neurons, "width": width, "random_draws": 3, "seed": 0}
    together = deactivation_results(scorers, **args)
    one_by_one = deactivation_results(alone, **args)
    assert together.drop(columns="sample_scores").equals(one_by_one.drop(columns="sample_scores"))
    for a, b in zip(together["sample_scores"], one_by_one["sample_scores"], strict=True):
        np.testing.assert_array_equal(a, b)
    original = together["sample_scores"][0]
    changed = [not np.array_equal(row, original) for row in together["sample_scores"]]
    assert sum(changed) >= 3  # deactivation changes predictions


def test_deactivated_restores_the_model_and_refuses_unknown_methods():
    loaded = tiny("masked_lm", word_tokenizer())
    before = {name: value.clone() for name, value in loaded.model.state_dict().items()}
    with deactivated(loaded.model, {0: np.array([1, 2])}, "weights"):
        assert not torch.equal(loaded.model.state_dict()[next(iter(before))], torch.tensor(0))
    for name, value in loaded.model.state_dict().items():
        assert torch.equal(value, before[name]), name
    with pytest.raises(ValueError, match="paper_b.deactivation.*activations"):
        with deactivated(loaded.model, {0: np.array([1])}, "bias"):
            pass


def test_a_multitask_model_takes_tasks_of_one_kind():
    scorers = {
        "c": classification(tiny("masked_lm", word_tokenizer())),
        "g": generation(tiny("causal_lm", causal_tokenizer())),
    }
    with pytest.raises(ValueError, match="tasks of one kind.*classification.*generation"):
        multitask_mixture(scorers)
