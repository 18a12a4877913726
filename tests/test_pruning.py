"""Pruning to skill neurons (paper A §6.1): folding, shrinking, saving, speed and FLOPs."""

import copy
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
import pandas as pd
import pytest
import torch
import transformers

from skillneurons.infra.timing import interleaved_times
from skillneurons.models.encoding import encode_split
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites, output_bias, output_weight, shrink_site
from skillneurons.models.training import TrainingSettings
from skillneurons.neurons.hooks import NeuronEdit, edit_activations
from skillneurons.neurons.ranking import Ranking, ranking_table
from skillneurons.paper_a.pruning import (
    PrunedTrialFiles,
    PruningSettings,
    folded_bias_shift,
    frozen_values,
    kept_neurons,
    load_pruned_model,
    parameter_count,
    prune_model,
    prune_trial,
    pruned_layers,
    pruning_table,
    retune_prompts,
    retuning_settings,
    save_pruned_model,
)
from skillneurons.paper_a.speed import (
    compare_speed,
    elementwise_ops,
    floor_classifier,
    forward_flops,
    kept_share,
)
from tiny_models import FAMILIES as MODELS
from tiny_models import tiny, word_tokenizer

IDS = torch.randint(3, 50, (2, 5), generator=torch.Generator().manual_seed(1))


def family_model(name):
    torch.manual_seed(0)
    return MODELS[name][0]().eval()


def output(model):
    with torch.no_grad():
        return model(input_ids=IDS)[0]


def binary_ranking(pred):
    zeros = np.zeros_like(pred)
    return Ranking(ranking_table({None: pred}, {None: zeros}, {None: zeros.astype(np.int64)}))


@pytest.mark.parametrize("name", list(MODELS))
def test_keeping_every_neuron_leaves_outputs_unchanged(name):
    model = family_model(name)
    before = output(model)
    sites = ffn_sites(model)
    ranking = binary_ranking(np.random.default_rng(0).random((len(sites), sites[0].width)))
    layers = pruned_layers(len(sites), 1.0)
    kept = kept_neurons(ranking, layers, keep=1.0, per_layer=True)
    values = torch.full((len(sites), sites[0].width), 5.0)  # nothing is frozen: unused
    widths = prune_model(model, kept, values)
    assert widths == [site.width for site in sites]
    assert ffn_sites(model)[0].output_projection is not sites[0].output_projection
    torch.testing.assert_close(output(model), before, rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", list(MODELS))
def test_folded_bias_equals_setting_frozen_neurons_to_their_constant(name):
    model = family_model(name)
    width = ffn_sites(model)[1].width
    frozen = torch.tensor([1, 4, width - 1])
    constants = torch.tensor([0.7, -0.3, 1.9])
    edits = {1: NeuronEdit(frozen, "set", constants)}
    with edit_activations(model, edits):
        expected = output(model)
    values = torch.zeros(2, width)
    values[1, frozen] = constants
    values[1, 2] = 100.0  # a kept neuron's value must not be folded
    kept = {1: np.setdiff1d(np.arange(width), frozen.numpy())}
    widths = prune_model(model, kept, values)
    assert widths[1] == width - 3
    torch.testing.assert_close(output(model), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")
def test_layer_without_kept_neurons_outputs_its_folded_constant():
    model = family_model("bert-base")
    width = ffn_sites(model)[0].width
    constants = torch.linspace(-1.0, 1.0, width)
    with edit_activations(model, {0: NeuronEdit(torch.arange(width), "set", constants)}):
        expected = output(model)
    values = torch.stack([constants, torch.zeros(width)])
    assert prune_model(model, {0: np.array([], dtype=np.int64)}, values)[0] == 0
    torch.testing.assert_close(output(model), expected, rtol=1e-5, atol=1e-5)


def test_folded_bias_shift_by_hand():
    weight = torch.arange(12, dtype=torch.float32).reshape(3, 4)  # V^T [hidden 3, width 4]
    values = torch.tensor([1.0, 2.0, 3.0, 4.0])
    shift = folded_bias_shift(weight, torch.tensor([0, 2]), values)
    expected = 2.0 * weight[:, 1] + 4.0 * weight[:, 3]  # frozen neurons 1 and 3, once each
    assert torch.equal(shift, expected)
    assert torch.equal(folded_bias_shift(weight, torch.arange(4), values), torch.zeros(3))


def test_shrink_site_slices_rows_columns_and_shifts_bias():
    model = family_model("bert-base")
    site = ffn_sites(model)[0]
    k, v, b2 = (
        site.input_projections[0].weight.clone(),
        output_weight(site).clone(),
        output_bias(site).clone(),
    )
    shift = torch.arange(16, dtype=torch.float32)
    new = shrink_site(model, 0, torch.tensor([5, 2]), shift)
    assert new.width == 2
    assert torch.equal(new.input_projections[0].weight, k[[5, 2]])
    assert torch.equal(output_weight(new), v[:, [5, 2]])
    assert torch.equal(output_bias(new), b2 + shift)
    gpt2 = family_model("gpt2")
    before = output_weight(ffn_sites(gpt2)[0]).clone()
    assert torch.equal(
        output_weight(shrink_site(gpt2, 0, torch.tensor([3]), torch.zeros(16))), before[:, [3]]
    )
    with pytest.raises(ValueError, match="must lie in"):
        shrink_site(model, 1, torch.tensor([999]), torch.zeros(16))


def test_pruned_layers_scale_with_depth():
    assert pruned_layers(12, 0.75) == list(range(3, 12))  # paper: top 9 of 12
    assert pruned_layers(6, 0.75) == [1, 2, 3, 4, 5]
    assert pruned_layers(2, 0.75) == [0, 1]
    assert pruned_layers(4, 0.0) == []


def test_kept_neurons_per_layer_and_global():
    pred = np.zeros((3, 10))
    pred[0] = np.linspace(0.9, 0.5, 10)  # layer 0 holds the best neurons
    pred[1] = np.linspace(0.5, 0.8, 10)
    pred[2] = 0.6
    ranking = binary_ranking(pred)
    per_layer = kept_neurons(ranking, [1, 2], keep=0.2, per_layer=True)
    assert list(per_layer) == [1, 2]
    assert per_layer[1].tolist() == [8, 9] and per_layer[2].tolist() == [0, 1]  # ties: order
    together = kept_neurons(ranking, [1, 2], keep=0.2, per_layer=False)
    assert together[1].tolist() == [6, 7, 8, 9] and together[2].tolist() == []
    three_way = Ranking(
        ranking_table(
            {"a": pred, "b": pred[::-1].copy()},
            {"a": np.zeros_like(pred), "b": np.zeros_like(pred)},
            {"a": np.zeros((3, 10), np.int64), "b": np.zeros((3, 10), np.int64)},
        )
    )
    kept = kept_neurons(three_way, [0], keep=0.2, per_layer=True)
    assert kept[0].tolist() == [0, 1]  # subtask a's best of layer 0, then subtask b's (0.6s)


def test_roberta_base_shape_keeps_two_thirds_of_its_parameters():
    """Paper A §6.1: 2% of neurons in the top 9 of 12 layers leave 66.6% of parameters."""
    with torch.device("meta"):
        model = transformers.RobertaForMaskedLM(transformers.RobertaConfig())
    total = parameter_count(model)
    ranking = binary_ranking(np.random.default_rng(0).random((12, 3072)))
    kept = kept_neurons(ranking, pruned_layers(12, 0.75), keep=0.02, per_layer=True)
    assert {len(neurons) for neurons in kept.values()} == {61}
    widths = prune_model(model, kept, torch.zeros(12, 3072, device="meta"))
    assert widths == [3072] * 3 + [61] * 9
    assert parameter_count(model) / total == pytest.approx(0.666, abs=0.001)


def test_frozen_values_choices():
    prompt = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    input_mean_max = torch.stack([torch.ones(2, 4), 9 * torch.ones(2, 4)], dim=1)
    baselines = {"prompt": prompt, "input_mean_max": input_mean_max}
    assert torch.equal(frozen_values(baselines, "prompt_mean"), prompt.mean(dim=1))
    assert torch.equal(frozen_values(baselines, "input_mean"), torch.ones(2, 4))
    with pytest.raises(ValueError, match="unknown"):
        frozen_values(baselines, "median")


def saved_tiny_model(folder):
    loaded = tiny("masked_lm", word_tokenizer())
    loaded.model.save_pretrained(folder)
    loaded.tokenizer.save_pretrained(folder)
    return {"source": str(folder)}


def saved_tiny_llama(folder):
    """A tiny random Llama (gated MLP, no biases) saved as a local model directory."""
    torch.manual_seed(0)
    model = MODELS["llama"][0]().eval()
    model.save_pretrained(folder)
    word_tokenizer().save_pretrained(folder)
    return {"source": str(folder)}


@pytest.mark.parametrize("family", ["bert", "llama"])
def test_pruned_model_saves_and_reloads_without_pickles(tmp_path, family):
    base = (saved_tiny_model if family == "bert" else saved_tiny_llama)(tmp_path / "base")
    loaded, _ = load_pruned_model_inputs(base)
    width = ffn_sites(loaded.model)[1].width
    kept = {1: np.array([0, 3, 7, width - 2])}
    values = torch.randn(2, width, generator=torch.Generator().manual_seed(0))
    prune_model(loaded.model, kept, values)
    # Llama's down_proj has no bias: the frozen neurons' constant needs one, saved too.
    assert output_bias(ffn_sites(loaded.model)[1]) is not None
    config = {"base": base, "keep": 0.125}
    save_pruned_model(tmp_path / "m.safetensors", tmp_path / "m.json", loaded.model, kept, config)
    reloaded, meta = load_pruned_model(tmp_path / "m.safetensors", tmp_path / "m.json")
    assert meta["widths"] == [width, 4] and meta["pruned_layers"] == [1]
    assert meta["keep"] == 0.125
    ids = torch.tensor([[2, 5, 6, 7]])
    with torch.no_grad():
        torch.testing.assert_close(
            reloaded.model(input_ids=ids)[0], loaded.model(input_ids=ids)[0]
        )
    again, _ = load_pruned_model(tmp_path / "m.safetensors", tmp_path / "m.json", base=reloaded)
    assert [site.width for site in ffn_sites(again.model)] == [width, 4]


def load_pruned_model_inputs(base):
    from skillneurons.models.loading import load_model

    loaded = load_model(**base)
    return loaded, parameter_count(loaded.model)


def tiny_split(tokenizer, count=12):
    texts = ["very good" if i % 2 else "not good bad" for i in range(count)]
    return encode_split(tokenizer, texts, [None] * count, [i % 2 for i in range(count)], 16)


def test_retuning_starts_from_the_given_prompts_and_trains_only_them():
    loaded = tiny("masked_lm", word_tokenizer())
    prune_model(loaded.model, {1: np.array([0, 1, 2])}, torch.zeros(2, 32))
    split = tiny_split(loaded.tokenizer)
    encoded = {"train": split, "dev": split, "test": split}
    initial = torch.full((3, 16), 0.5)
    training = TrainingSettings(learning_rate=0.0, batch_size=4, max_steps=2, eval_every=2)
    classifier, metrics = retune_prompts(
        loaded, encoded, label_words=["Negative", "Positive"], prompt_length=3,
        init_std=0.03, initial_prompts=initial, training=training,
    )  # fmt: skip
    assert torch.equal(classifier.prompts.detach(), initial)  # lr 0: still the given prompts
    assert [name for name, p in classifier.named_parameters() if p.requires_grad] == ["prompts"]
    assert metrics["steps"] == 2 and 0.0 <= metrics["test_accuracy"] <= 1.0


def test_prune_trial_writes_a_reloadable_model_its_prompt_and_metrics(tmp_path):
    """Paper A §6.1: the config's ``pruning`` block and ``ranking.scope`` reach the kept
    neurons, the frozen values, the re-tuning and the files."""
    from skillneurons.infra.io import read_json, read_tensors

    base = saved_tiny_model(tmp_path / "base")
    loaded, original = load_pruned_model_inputs(base)
    split = tiny_split(loaded.tokenizer)
    encoded = {"train": split, "dev": split, "test": split}
    pruning = {"layers_fraction": 0.5, "keep": 0.25, "frozen_baseline": "prompt_mean",
               "prompt_init": "tuned", "max_steps": 2, "eval_every": 2, "patience": 1}  # fmt: skip
    prompt_tuning = {"learning_rate": 0.0, "batch_size": 4, "eval_batch_size": 8,
                     "init_std": 0.03, "max_length": 16}  # fmt: skip
    settings = PruningSettings.from_config(pruning, per_layer=True, init_std=0.03)
    assert settings == PruningSettings(0.5, 0.25, "prompt_mean", "tuned", True, 0.03)
    training = retuning_settings(prompt_tuning, pruning, seed=7)
    assert (training.max_steps, training.learning_rate, training.seed) == (2, 0.0, 7)
    baselines = {"prompt": torch.ones(2, 3, 32), "input_mean_max": torch.zeros(2, 2, 32)}
    tuned = torch.full((3, 16), 0.5)
    names = ("m.safetensors", "m.json", "p.safetensors", "metrics.json")
    files = PrunedTrialFiles(*(str(tmp_path / name) for name in names))
    identity = {"model": "tiny", "task": "sst2", "trial": 0}
    metrics = prune_trial(
        loaded, binary_ranking(np.tile(np.linspace(0.9, 0.1, 32), (2, 1))), baselines, tuned,
        encoded, files, settings=settings, training=training,
        label_words=["Negative", "Positive"], identity=identity, base_settings=base,
    )  # fmt: skip
    assert metrics["seed"] == 7 and metrics["steps"] == 2 and metrics["trial"] == 0
    assert metrics["original_parameters"] == original == parameter_count(loaded.model)
    assert read_json(files.metrics) == metrics
    config = read_json(files.config)
    assert (config["keep"], config["layers_fraction"], config["frozen_baseline"]) == (
        0.25, 0.5, "prompt_mean")  # fmt: skip
    assert config["pruned_layers"] == [1] and config["widths"] == [32, 8]  # 25% of 32, top half
    assert read_tensors(files.model)["kept/1"].tolist() == list(range(8))  # the best 8
    torch.testing.assert_close(read_tensors(files.prompt)["prompts"], tuned)  # lr 0, tuned
    reloaded, _ = load_pruned_model(files.model, files.config)
    assert parameter_count(reloaded.model) == metrics["parameters"] < original


def test_forward_flops_by_hand():
    loaded = tiny("masked_lm", word_tokenizer())  # hidden 16, FFN 32, 2 layers
    classifier = PromptedClassifier(loaded, ["Negative", "Positive"], 3)
    vocab, t = len(loaded.tokenizer), 7
    layer = 4 * (2 * t * 16 * 16) + 2 * (2 * t * 16 * 32) + 4 * t * t * 16
    head = 2 * 16 * 16 + 2 * 16 * vocab  # transform + decoder, at [MASK] only
    assert forward_flops(classifier, t) == 2 * layer + head
    prune_model(loaded.model, {0: np.array([0, 1]), 1: np.array([5])}, torch.zeros(2, 32))
    saved = 2 * (2 * t * 16 * 30) + 2 * (2 * t * 16 * 31)
    assert forward_flops(classifier, t) == 2 * layer + head - saved


def test_elementwise_ops_and_work_bound_by_hand():
    loaded = tiny("masked_lm", word_tokenizer())  # hidden 16, FFN 32, 2 heads, 2 layers
    classifier = PromptedClassifier(loaded, ["Negative", "Positive"], 3)
    t = 7
    # Per block: 2 LayerNorms (5 per element), softmax over 2 heads, GELU, 2 residuals.
    block = 2 * 5 * t * 16 + 2 * t * t + t * 32 + 2 * t * 16
    # Embeddings: word + position + token type tables summed, their LayerNorm; the
    # head's LayerNorm at [MASK] only.
    outside = 2 * t * 16 + 5 * t * 16 + 5 * 16
    assert elementwise_ops(classifier, t) == 2 * block + outside == 4196
    flops = forward_flops(classifier, t)
    prune_model(loaded.model, {0: np.array([0, 1]), 1: np.array([5])}, torch.zeros(2, 32))
    assert elementwise_ops(classifier, t) == 4196 - t * 30 - t * 31  # GELU of kept only
    pruned_flops = forward_flops(classifier, t)
    assert flops - pruned_flops == 2 * (2 * t * 16 * 30) + 2 * (2 * t * 16 * 31)
    # Both models do the same 4196 - 427 operations pruning cannot remove: a lower bound.
    work_bound = (flops + 4196) / (pruned_flops + 4196 - 427)
    assert 1 < work_bound < flops / pruned_flops


def test_interleaved_times_calls_each_run_in_turns():
    calls = []
    times = interleaved_times(
        {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 3, 1
    )
    assert calls == ["a", "b"] * 4
    assert [len(v["wall"]) for v in times.values()] == [3, 3]
    assert [len(v["cpu"]) for v in times.values()] == [3, 3]


def test_compare_speed_reports_ratio_of_medians():
    loaded = tiny("masked_lm", word_tokenizer())
    unpruned = PromptedClassifier(loaded, ["Negative", "Positive"], 2)
    small = tiny("masked_lm", word_tokenizer())
    prune_model(small.model, {0: np.array([0]), 1: np.array([0])}, torch.zeros(2, 32))
    pruned = PromptedClassifier(small, ["Negative", "Positive"], 2)
    batch = tiny_split(loaded.tokenizer).batch(range(4), loaded.tokenizer.pad_token_id)
    result = compare_speed(unpruned, pruned, batch, repeats=3, warmup=1)
    assert result["speedup"] == pytest.approx(
        result["unpruned_median_s"] / result["pruned_median_s"]
    )
    assert result["flop_bound"] > 1.0 and result["seq_len"] == 3 + batch["input_ids"].shape[1]
    assert result["efficiency"] == pytest.approx(result["speedup"] / result["flop_bound"])
    assert 1.0 < result["work_bound"] < result["flop_bound"]
    assert result["work_efficiency"] == pytest.approx(result["speedup"] / result["work_bound"])
    cpu = result["unpruned_cpu_median_s"] / result["pruned_cpu_median_s"]
    assert result["cpu_speedup"] == pytest.approx(cpu)
    full, least = result["unpruned_median_s"], result["floor_median_s"]
    assert result["kept_share"] == pytest.approx(2 / 64)  # 1 of 32 neurons in each layer
    assert result["time_bound"] == pytest.approx(full / (least + (full - least) / 32))
    assert result["time_efficiency"] == pytest.approx(result["speedup"] / result["time_bound"])


def test_floor_classifier_removes_the_kept_neurons_of_the_pruned_layers_only():
    words = ["Negative", "Positive"]
    unpruned = PromptedClassifier(tiny("masked_lm", word_tokenizer()), words, 2)
    small = tiny("masked_lm", word_tokenizer())
    prune_model(small.model, {1: np.array([0, 5, 9])}, torch.ones(2, 32))
    pruned = PromptedClassifier(small, words, 2)
    assert kept_share(unpruned, pruned) == pytest.approx(3 / 32)
    assert kept_share(unpruned, unpruned) == 1.0  # keep: 1.0, nothing removed
    floor = floor_classifier(unpruned, pruned)
    assert [site.width for site in ffn_sites(floor.backbone)] == [32, 0]
    assert [site.width for site in ffn_sites(pruned.backbone)] == [32, 3]  # untouched
    # zero width = the kept neurons' output columns at zero, the folded bias kept
    silenced = copy.deepcopy(pruned)
    with torch.no_grad():
        output_weight(ffn_sites(silenced.backbone)[1]).zero_()
    batch = tiny_split(word_tokenizer()).batch(range(4), unpruned.pad_id)
    inputs = {key: value for key, value in batch.items() if key != "labels"}
    with torch.inference_mode():
        torch.testing.assert_close(floor(**inputs), silenced(**inputs))
        assert not torch.allclose(floor(**inputs), pruned(**inputs))
    same = compare_speed(unpruned, unpruned, batch, repeats=1, warmup=0)
    assert same["kept_share"] == 1.0 and same["time_bound"] == pytest.approx(1.0)


def test_pruning_table_rows():
    prompt = [
        {"task": "t1", "trial": 0, "test_accuracy": 0.8},
        {"task": "t1", "trial": 1, "test_accuracy": 0.9},
    ]
    pruned = [
        {"task": "t1", "trial": 0, "test_accuracy": 0.7, "parameter_fraction": 0.6},
        {"task": "t1", "trial": 1, "test_accuracy": 0.8, "parameter_fraction": 0.6},
    ]
    speed = {
        "t1": [
            {
                "speedup": 1.5,
                "cpu_speedup": 1.4,
                "flop_bound": 1.6,
                "work_bound": 1.5,
                "time_bound": 1.4,
            },
            {
                "speedup": 1.7,
                "cpu_speedup": 1.6,
                "flop_bound": 1.6,
                "work_bound": 1.7,
                "time_bound": 1.8,
            },
        ]
    }
    table = pruning_table(prompt, pruned, speed)
    row = table.iloc[0]
    assert row["prompt_tuning"] == "85.0 ± 7.1" and row["pruned"] == "75.0 ± 7.1"
    assert row["parameter_fraction"] == pytest.approx(0.6)
    assert row["speedup"] == pytest.approx(1.6) and row["flop_bound"] == pytest.approx(1.6)
    assert row["efficiency"] == pytest.approx(1.0) and row["cpu_speedup"] == pytest.approx(1.5)
    assert row["work_bound"] == pytest.approx(1.6) and row["work_efficiency"] == pytest.approx(1.0)
    assert row["time_bound"] == pytest.approx(1.6) and row["time_efficiency"] == pytest.approx(1.0)
    assert isinstance(table, pd.DataFrame) and list(table["task"]) == ["t1"]
