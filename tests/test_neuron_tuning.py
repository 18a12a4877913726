"""Paper B's neurons on the seam, on tiny random models of every family: where a
neuron's parameters live, neuron-only fine-tuning (every other entry bit-identical),
deactivation by activations or weights, relevance against a hand computation, and the
two kinds of random neuron sets (paper B's drawn over all layers, ours layer-matched)."""

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr
from transformers.pytorch_utils import Conv1D

from skillneurons.models.neuron_deltas import NeuronDeltas
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites, neuron_parameters, output_weight
from skillneurons.neurons.hooks import NeuronEdit, capture_activations, edit_activations
from skillneurons.neurons.relevance_table import task_neurons
from skillneurons.paper_b.random_neurons import (
    GLOBAL_STREAM,
    global_random_neurons,
    matched_random_neurons,
    random_sets,
)
from skillneurons.paper_b.relevance import relevance, relevance_table
from tiny_models import BATCH, FAMILIES, SEQ, VOCAB, tiny, word_tokenizer

CHOSEN = {0: [1, 4], 1: [0, 2, 5]}


def family_model(name):
    torch.manual_seed(0)
    return FAMILIES[name][0]().eval()


def ids():
    return torch.randint(3, VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(1))


def test_neuron_parameters_sit_in_the_storage_layout():
    gpt2 = family_model("gpt2")  # Conv1D: weights stored [in, out]
    site = ffn_sites(gpt2)[0]
    places = neuron_parameters(site, torch.tensor([3]))
    (down, down_axis), (up, up_axis), (bias, _) = places
    assert (down_axis, up_axis) == (1, 0)
    with torch.no_grad():
        up[3] = 7.0  # row 3 of the logical [out, in] view: column 3 of the [in, out] storage
        down[:, 3] = 9.0
    assert (site.input_projections[0].weight[:, 3] == 7.0).all()
    assert (site.output_projection.weight[3, :] == 9.0).all()
    assert bias is site.input_projections[0].bias
    llama = family_model("llama")  # gated: gate and up rows, no biases
    assert len(neuron_parameters(ffn_sites(llama)[0], torch.tensor([0]))) == 3
    assert len(neuron_parameters(ffn_sites(llama)[0], torch.tensor([0]), output_only=True)) == 1


def entry_masks(model, neurons, output_only=False):
    """Per parameter name, True at the entries of the chosen neurons, by hand: rows of a
    Linear input projection and columns of a Linear output projection (GPT-2's Conv1D
    stores [in, out]: the other way round), input biases; never the output bias."""
    masks = {name: torch.zeros_like(p, dtype=torch.bool) for name, p in model.named_parameters()}
    names = {id(p): name for name, p in model.named_parameters()}
    for site in ffn_sites(model):
        index = torch.tensor(neurons.get(site.layer, []), dtype=torch.long)
        down = site.output_projection
        conv = isinstance(down, Conv1D)
        mask = masks[names[id(down.weight)]]
        if conv:
            mask[index] = True
        else:
            mask[:, index] = True
        if output_only:
            continue
        for module in site.input_projections:
            mask = masks[names[id(module.weight)]]
            if isinstance(module, Conv1D):
                mask[:, index] = True
            else:
                mask[index] = True
            if module.bias is not None:
                masks[names[id(module.bias)]][index] = True
    return masks


@pytest.mark.parametrize("name", list(FAMILIES))
def test_neuron_only_training_moves_only_the_chosen_neurons(name):
    model = family_model(name)
    before = {key: value.clone() for key, value in model.state_dict().items()}
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    inputs = ids()
    with torch.no_grad():
        base = model(input_ids=inputs)[0]
    deltas = NeuronDeltas(model, CHOSEN)
    with torch.no_grad():
        torch.testing.assert_close(model(input_ids=inputs)[0], base, rtol=0, atol=0)
    optimizer = torch.optim.Adam(deltas.parameters(), lr=0.05)
    for _ in range(3):
        loss = model(input_ids=inputs)[0].square().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        hooked = model(input_ids=inputs)[0]
    deltas.fold()
    with torch.no_grad():
        torch.testing.assert_close(model(input_ids=inputs)[0], hooked, rtol=1e-5, atol=1e-5)
    masks = entry_masks(model, CHOSEN)
    changed_neuron_entries = 0
    for key, value in model.state_dict().items():
        mask = masks.get(key)
        if mask is None:  # buffers
            assert torch.equal(value, before[key]), key
            continue
        assert torch.equal(value[~mask], before[key][~mask]), f"{name}: {key} moved"
        changed_neuron_entries += int((value[mask] != before[key][mask]).sum())
    assert changed_neuron_entries > 0


@pytest.mark.parametrize("name", list(FAMILIES))
def test_folded_deltas_compute_the_hooked_function_and_restore_the_weights(name):
    model = family_model(name)
    before = {key: value.clone() for key, value in model.state_dict().items()}
    deltas = NeuronDeltas(model, CHOSEN)
    with torch.no_grad():
        for parameter in deltas.parameters():
            parameter.normal_(std=0.1)
        hooked = model(input_ids=ids())[0]
        with deltas.folded():
            folded = model(input_ids=ids())[0]
            changed = [k for k, v in model.state_dict().items() if not torch.equal(v, before[k])]
            for parameter in deltas.parameters():
                parameter.mul_(2.0)  # the hooks are detached: the deltas play no part
            assert torch.equal(model(input_ids=ids())[0], folded)
            for parameter in deltas.parameters():
                parameter.mul_(0.5)  # exact: a power of two
        assert changed  # the deltas were in the weights
        torch.testing.assert_close(folded, hooked, rtol=1e-5, atol=1e-5)
        assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())
        assert torch.equal(model(input_ids=ids())[0], hooked)  # the hooks are back


def test_output_only_trains_the_output_columns_alone():
    model = family_model("bert-base")
    before = {key: value.clone() for key, value in model.state_dict().items()}
    deltas = NeuronDeltas(model, CHOSEN, output_only=True)
    assert deltas.entries() == sum(len(v) for v in CHOSEN.values()) * 16  # hidden 16
    with torch.no_grad():
        for parameter in deltas.parameters():
            parameter.fill_(0.5)
    deltas.fold()
    masks = entry_masks(model, CHOSEN, output_only=True)
    for key, value in model.state_dict().items():
        if key in masks:
            assert torch.equal(value[~masks[key]], before[key][~masks[key]]), key
    after = model.state_dict()
    moved = [key for key in after if not torch.equal(after[key], before[key])]
    assert moved and all("output.dense.weight" in key for key in moved)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_deactivating_by_activations_equals_zeroing_the_output_columns(name):
    model = family_model(name)
    inputs = ids()
    edits = {layer: NeuronEdit(neurons, "set", 0.0) for layer, neurons in CHOSEN.items()}
    with torch.no_grad(), edit_activations(model, edits):
        by_activations = model(input_ids=inputs)[0]
    with torch.no_grad():
        for site in ffn_sites(model):
            output_weight(site)[:, CHOSEN[site.layer]] = 0.0
        by_weights = model(input_ids=inputs)[0]
    torch.testing.assert_close(by_activations, by_weights, rtol=1e-5, atol=1e-6)


def classifier_and_split():
    loaded = tiny("masked_lm", word_tokenizer())
    classifier = PromptedClassifier(loaded, ["Negative", "Positive"], prompt_length=0)
    from skillneurons.models.encoding import encode_split

    texts = ["very good", "not good bad", "bad", "very very good", "not bad"]
    split = encode_split(loaded.tokenizer, texts, [None] * 5, [1, 0, 0, 1, 1], 16)
    return classifier, split


def per_sample_products(classifier, split):
    """``[samples, layers, neurons]`` Σ_t g a, sample by sample (the hand computation)."""
    out = []
    for row in range(len(split)):
        batch = split.batch([row], classifier.pad_id)
        with capture_activations(classifier, keep_grad=True) as capture:
            loss = torch.nn.functional.cross_entropy(classifier(**batch), batch["labels"])
            loss.backward()
        layers = [capture.activations[layer] for layer in capture.layers]
        out.append(torch.stack([(a.grad * a).sum(1)[0] for a in layers]).detach().double())
    return torch.stack(out).numpy()


def test_relevance_equals_the_hand_computation_under_every_definition():
    classifier, split = classifier_and_split()
    products = per_sample_products(classifier, split)
    np.testing.assert_allclose(
        relevance(classifier, split, 2, "sample_abs"),
        np.abs(products).mean(0),
        rtol=1e-4,
        atol=1e-9,
    )
    np.testing.assert_allclose(
        relevance(classifier, split, 2, "dataset_abs"),
        np.abs(products.sum(0)) / 5,
        rtol=1e-4,
        atol=1e-9,
    )
    token = relevance(classifier, split, 2, "token_abs")
    assert (token >= relevance(classifier, split, 2, "sample_abs") - 1e-12).all()
    # Two samples: a seeded, label-stratified draw (rows 1 and 4, labels 0 and 1).
    drawn = relevance(classifier, split, 5, "sample_abs", max_samples=2, seed=0)
    np.testing.assert_allclose(drawn, np.abs(products[[1, 4]]).mean(0), rtol=1e-4, atol=1e-9)
    assert all(p.grad is None for p in classifier.parameters())


def test_first_order_relevance_follows_the_loss_change_of_zeroing_a_neuron():
    classifier, split = classifier_and_split()
    one = split.batch([0], classifier.pad_id)
    single = type(split)([split.input_ids[0]], None, split.labels[:1])

    def loss(edits=None):
        with torch.no_grad(), edit_activations(classifier, edits or {}):
            return float(torch.nn.functional.cross_entropy(classifier(**one), one["labels"]))

    base = loss()
    layer = 1
    change = np.array([loss({layer: NeuronEdit([j], "set", 0.0)}) - base for j in range(32)])
    first_order = -per_sample_products(classifier, single)[0, layer]  # ΔL ≈ -g·a
    assert spearmanr(np.abs(change), np.abs(first_order)).statistic > 0.9
    top = np.argsort(-np.abs(first_order))[:8]
    assert (np.sign(change[top]) == np.sign(first_order[top])).all()
    scores = relevance(classifier, single, 1)
    assert np.argmax(scores[layer]) == np.argmax(np.abs(change))


def test_top_fraction_and_matched_random_neurons():
    values = np.array([[0.1, 0.9, 0.3, 0.4], [0.8, 0.2, 0.7, 0.0]])
    table = relevance_table(values, "t", seed=0)
    assert table["relevance"].is_monotonic_decreasing
    chosen = task_neurons(table, 0.25)  # 2 of 8 neurons
    assert {k: v.tolist() for k, v in chosen.items()} == {0: [1], 1: [0]}
    per_layer = task_neurons(table, 0.5, per_layer=True)
    assert {k: v.tolist() for k, v in per_layer.items()} == {0: [1, 3], 1: [0, 2]}
    # Ties fall by the seeded key, not by index: both orders of a tied pair occur.
    tied = np.zeros((1, 2))
    firsts = {int(relevance_table(tied, f"task{i}", seed=0)["neuron"].iloc[0]) for i in range(20)}
    assert firsts == {0, 1}
    random = matched_random_neurons({0: np.array([1, 2]), 1: np.array([3])}, 4, seed=5)
    assert [len(random[0]), len(random[1])] == [2, 1]
    again = matched_random_neurons({0: np.array([1, 2]), 1: np.array([3])}, 4, seed=5)
    assert all(np.array_equal(random[layer], again[layer]) for layer in (0, 1))


#: A task set of 7 neurons piled into layer 0 of three 12-wide layers.
PILED = {0: np.array([1, 2, 5, 7, 9, 11]), 1: np.array([3]), 2: np.array([], np.int64)}


def as_lists(neurons):
    return {layer: chosen.tolist() for layer, chosen in neurons.items()}


def test_paper_bs_random_sets_have_the_task_sets_count_drawn_over_all_layers():
    drawn = global_random_neurons(PILED, 12, seed=5)
    # 7 neurons in all, as the task's, but 2 / 4 / 1 per layer where it has 6 / 1 / 0
    assert as_lists(drawn) == {0: [4, 9], 1: [0, 1, 9, 11], 2: [0]}
    # by hand: 7 of the 36 flat indices from the seed's own stream, layer = index // 12
    flat = np.random.default_rng([5, GLOBAL_STREAM]).choice(36, size=7, replace=False)
    assert as_lists(drawn) == {n: sorted(flat[flat // 12 == n] % 12) for n in range(3)}
    assert as_lists(global_random_neurons(PILED, 12, seed=5)) == as_lists(drawn)  # seeded
    assert as_lists(global_random_neurons(PILED, 12, seed=6)) != as_lists(drawn)
    # uniform over the neurons: over 2000 seeds every layer averages 7/3 neurons
    counts = np.array([[len(global_random_neurons(PILED, 12, s)[n]) for n in range(3)]
                       for s in range(2000)])  # fmt: skip
    assert (counts.sum(axis=1) == 7).all()
    assert counts.mean(axis=0) == pytest.approx([7 / 3] * 3, abs=0.1)
    assert (counts[:, 0] != 6).mean() > 0.9  # rarely the task's own 6 in layer 0
    with pytest.raises(ValueError, match=r"every layer of the model from 0; got layers \[1\]"):
        global_random_neurons({1: np.array([0])}, 12, seed=0)


def test_each_draw_makes_both_kinds_and_the_layer_matched_sets_are_as_before():
    sets = list(random_sets(PILED, 12, draws=2, seed=5))
    assert [(kind, draw) for kind, draw, _ in sets] == [
        ("random", 0), ("random", 1), ("random_layer_matched", 0), ("random_layer_matched", 1)
    ]  # fmt: skip
    assert as_lists(sets[0][2]) == {0: [4, 9], 1: [0, 1, 9, 11], 2: [0]}
    assert as_lists(sets[1][2]) == as_lists(global_random_neurons(PILED, 12, seed=6))
    # the layer-matched draw d is what earlier versions drew: default_rng(seed + d), one
    # choice per layer in turn
    for draw in (0, 1):
        generator = np.random.default_rng(5 + draw)
        before = {n: sorted(generator.choice(12, size=len(c), replace=False))
                  for n, c in PILED.items()}  # fmt: skip
        assert as_lists(sets[2 + draw][2]) == before
    assert as_lists(sets[2][2]) == {0: [0, 4, 5, 6, 8, 11], 1: [4], 2: []}


def test_random_trainings_are_tested_on_every_task_for_b_f5cs_control():
    import pandas as pd

    from skillneurons.models.training import TrainingSettings
    from skillneurons.paper_b.evaluation import RUN_COLUMNS
    from skillneurons.paper_b.neuron_training import neuron_training_results
    from skillneurons.paper_b.scorers import classification_scorer

    tokenizer = word_tokenizer()
    loaded = tiny("masked_lm", tokenizer)

    def frame(texts, labels):
        return pd.DataFrame({"text_a": texts, "text_b": [None] * len(texts), "label": labels})

    sentiment = frame(["good", "bad", "very good"], [1, 0, 1])
    negation = frame(["not bad", "bad", "not good", "good"], [1, 0, 1, 0])
    scorers = {
        task: classification_scorer(
            loaded,
            dict.fromkeys(("train", "dev", "test"), split),
            words,
            "",
            max_length=16,
            batch_size=4,
        )  # fmt: skip
        for task, split, words in [
            ("sentiment", sentiment, ["Negative", "Positive"]),
            ("negation", negation, ["bad", "good"]),
        ]
    }
    before = {name: value.clone() for name, value in loaded.model.state_dict().items()}
    training = TrainingSettings(learning_rate=1e-2, batch_size=2, max_steps=2, eval_every=2,
                                patience=1, seed=0)  # fmt: skip
    frame, metrics = neuron_training_results(
        scorers, "sentiment", {0: np.array([0, 1, 2]), 1: np.array([5])}, width=32,
        training=training, random_draws=2, seed=0, run=1, progress=False,
    )  # fmt: skip
    # one training run's results (paper_b.runs): run first
    assert tuple(frame.columns) == RUN_COLUMNS and set(frame["run"]) == {1}
    assert metrics["run"] == 1
    # the task's neurons and each random draw of both kinds: every task tested (B-F5c
    # and its controls)
    assert frame[["condition", "draw", "eval_task"]].values.tolist() == [
        ["task", 0, "sentiment"], ["task", 0, "negation"],
        ["random", 0, "sentiment"], ["random", 0, "negation"],
        ["random", 1, "sentiment"], ["random", 1, "negation"],
        ["random_layer_matched", 0, "sentiment"], ["random_layer_matched", 0, "negation"],
        ["random_layer_matched", 1, "sentiment"], ["random_layer_matched", 1, "negation"],
    ]  # fmt: skip
    assert set(frame["source"]) == {"sentiment"} and set(frame["metric"]) == {"accuracy"}
    assert [len(c) for c in frame["sample_scores"]] == [3, 4] * 5
    assert all(set(c) <= {0.0, 1.0} for c in frame["sample_scores"])
    assert frame["score"].tolist() == pytest.approx([np.mean(c) for c in frame["sample_scores"]])
    assert [run["neurons"] for run in metrics["trainings"]] == [4] * 5
    assert [run["condition"] for run in metrics["trainings"]] == [
        "task", "random", "random", "random_layer_matched", "random_layer_matched"
    ]  # fmt: skip
    for name, value in loaded.model.state_dict().items():  # the deltas removed
        assert torch.equal(value, before[name]), name
