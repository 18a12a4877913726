"""Houlsby adapters and BitFit on the verbalizer classifier (paper A, §5)."""

import pandas as pd
import pytest
import torch

from skillneurons.models.adapters import HoulsbyAdapters
from skillneurons.models.encoding import encode_split
from skillneurons.models.sites import attention_outputs, ffn_sites
from skillneurons.models.training import TrainingSettings, train, trainable_state
from skillneurons.neurons.hooks import capture_activations
from skillneurons.paper_a import tuning_methods
from skillneurons.paper_a.tuning_methods import (
    accuracy_table,
    average_importance,
    bitfit_parameters,
    load_method_classifier,
    method_classifier,
    write_tuned,
)
from tiny_models import tiny, word_tokenizer

LABEL_WORDS = ["Negative", "Positive"]
ADAPTER = {"adapter_size": 4, "adapter_init_std": 0.01}


@pytest.fixture
def tokenizer():
    return word_tokenizer()


@pytest.fixture
def split(tokenizer):
    texts = ["good", "very good", "bad", "not good", "very bad", "not bad", "good good", "bad"]
    labels = [1, 1, 0, 0, 0, 1, 1, 0]
    return encode_split(tokenizer, texts, [None] * len(texts), labels, max_length=8)


def logits(classifier, split):
    with torch.no_grad():
        return classifier(**split.batch(list(range(len(split))), classifier.pad_id))


@pytest.mark.parametrize("kind", ["encoder", "masked_lm", "causal_lm"])
def test_adapters_are_the_identity_when_the_up_projection_is_zero(tokenizer, split, kind):
    classifier = method_classifier(tiny(kind, tokenizer), "bitfit", LABEL_WORDS, **ADAPTER)
    before = logits(classifier, split)
    adapters = HoulsbyAdapters(classifier.backbone, size=4, init_std=0.01, seed=0)
    near = logits(classifier, split)
    assert torch.allclose(near, before, atol=1e-3) and not torch.equal(near, before)
    with torch.no_grad():
        for adapter in [*adapters.attention, *adapters.ffn]:
            adapter.up.weight.zero_()
    assert torch.equal(logits(classifier, split), before)
    adapters.remove()
    with torch.no_grad():
        adapters.ffn[0].up.bias.copy_(torch.linspace(-1.0, 1.0, 16))
    assert torch.equal(logits(classifier, split), before)  # removed: no effect


def test_adapters_sit_after_both_output_projections_of_every_layer(tokenizer, split):
    classifier = method_classifier(tiny("encoder", tokenizer), "adapter", LABEL_WORDS, **ADAPTER)
    backbone = classifier.backbone
    assert len(classifier.adapters.attention) == len(classifier.adapters.ffn) == 2
    calls = []
    for module in attention_outputs(backbone) + [s.output_projection for s in ffn_sites(backbone)]:
        module.register_forward_hook(lambda m, i, o: calls.append(o.shape))
    batch = split.batch([0, 1], classifier.pad_id)
    with capture_activations(classifier) as capture:
        classifier(**batch)
    first = capture.stacked().clone()
    assert len(calls) == 4
    # An FFN adapter in layer 0 acts after layer 0's neurons: they are unchanged,
    # layer 1's neurons (downstream) change. (A non-constant shift: LayerNorm would
    # cancel a constant one.)
    with torch.no_grad():
        bias = classifier.adapters.ffn[0].up.bias
        bias.copy_(torch.linspace(-1.0, 1.0, len(bias)))
    with capture_activations(classifier) as capture:
        classifier(**batch)
    second = capture.stacked()
    assert torch.equal(second[:, 0], first[:, 0])
    assert not torch.allclose(second[:, 1], first[:, 1])


def test_bitfit_gives_gradients_to_the_encoder_biases_only(tokenizer, split):
    classifier = method_classifier(tiny("masked_lm", tokenizer), "bitfit", LABEL_WORDS, **ADAPTER)
    batch = split.batch(list(range(len(split))), classifier.pad_id)
    loss = torch.nn.functional.cross_entropy(classifier(**batch), batch["labels"])
    loss.backward()
    biases = {id(p) for p in bitfit_parameters(classifier)}
    assert len(biases) > 10
    for name, parameter in classifier.named_parameters():
        if id(parameter) in biases:
            assert name.endswith("bias") and parameter.grad is not None, name
            assert parameter.grad.abs().sum() > 0, name
        else:
            assert parameter.grad is None, name
    assert not any(name.startswith("backbone.cls") for name in trainable_state(classifier))


@pytest.mark.parametrize("method", ["adapter", "bitfit"])
def test_one_training_step_changes_only_the_trainable_parameters(tokenizer, split, method):
    classifier = method_classifier(tiny("encoder", tokenizer), method, LABEL_WORDS, **ADAPTER)
    before = {name: p.detach().clone() for name, p in classifier.named_parameters()}
    trainable = set(trainable_state(classifier))
    assert trainable and all(
        name.startswith("adapters.") if method == "adapter" else name.endswith("bias")
        for name in trainable
    )
    settings = TrainingSettings(learning_rate=0.01, batch_size=4, max_steps=1, eval_every=1)
    train(classifier, split, split, settings, classifier.pad_id, progress=False)
    changed = set()
    for name, parameter in classifier.named_parameters():
        if not torch.equal(parameter, before[name]):
            changed.add(name)
        elif parameter.grad is not None:  # trained but unchanged: fails below
            changed.add(f"unchanged {name}")
    # Everything trainable that the loss reaches changed (BERT's pooler bias is
    # trainable but unused by the verbalizer, so it gets no gradient); nothing else did.
    assert changed == trainable - {"backbone.pooler.dense.bias"}


@pytest.mark.parametrize("method", ["adapter", "bitfit"])
def test_weights_file_holds_the_trainable_parameters_and_round_trips(
    tokenizer, split, tmp_path, monkeypatch, method
):
    classifier = method_classifier(tiny("encoder", tokenizer), method, LABEL_WORDS, **ADAPTER)
    with torch.no_grad():
        for parameter in classifier.parameters():
            if parameter.requires_grad:
                parameter.add_(0.05)
    path = tmp_path / "weights.safetensors"
    write_tuned(str(path), classifier, {"method": method, **ADAPTER})
    monkeypatch.setattr(tuning_methods, "load_model", lambda **_: tiny("encoder", tokenizer))
    _, again = load_method_classifier({}, str(path))
    assert torch.equal(logits(again, split), logits(classifier, split))
    assert set(trainable_state(again)) == set(trainable_state(classifier))


def test_unknown_method_is_a_clear_error(tokenizer):
    with pytest.raises(ValueError, match="tuning method 'lora' is unknown"):
        method_classifier(tiny("encoder", tokenizer), "lora", LABEL_WORDS, **ADAPTER)


def test_accuracy_table_reports_the_margin_over_the_majority_class():
    metrics = [
        {"method": m, "task": "t", "trial": i, "test_accuracy": a, "test_majority_rate": 0.5}
        for m, i, a in [("adapter", 0, 0.8), ("adapter", 1, 0.9), ("bitfit", 0, 0.6)]
    ]
    table = accuracy_table(metrics)
    assert table["method"].tolist() == ["adapter", "bitfit"]
    assert table["mean"].tolist() == pytest.approx([0.85, 0.6])
    assert table["margin"].tolist() == pytest.approx([0.35, 0.1])
    assert table["trials"].tolist() == [2, 1]


def test_average_importance_is_the_mean_over_methods():
    def table(values):
        return pd.DataFrame(
            {
                "eval_task": ["a", "a", "b"],
                "source_task": ["a", "b", "a"],
                "area": values,
                "area_sem": [0.0] * 3,
                "importance": [2 * v for v in values],
            }
        )

    mean = average_importance(
        {"adapter": table([1.0, 2.0, 3.0]), "bitfit": table([3.0, 0.0, 1.0])}
    )
    assert mean[["eval_task", "source_task"]].values.tolist() == [
        ["a", "a"],
        ["a", "b"],
        ["b", "a"],
    ]
    assert mean["area"].tolist() == pytest.approx([2.0, 1.0, 2.0])
    assert mean["importance"].tolist() == pytest.approx([4.0, 2.0, 4.0])
    assert mean["importance_bitfit"].tolist() == pytest.approx([6.0, 0.0, 2.0])
