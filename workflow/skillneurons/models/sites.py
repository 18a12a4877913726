"""The neuron seam: where a neuron lives in each model family, and its weights.

Paper A (§2.2, Eq. 2) writes the feed-forward network of a Transformer layer as

    FFN(x) = f(x K^T + b1) V + b2,        a = f(x K^T + b1) in R^{d_m},

and calls the i-th coordinate ``a_i`` the activation of the i-th neuron, whose weights
are ``K_i`` (row ``i`` of :func:`input_weight`) and ``V_i`` (column ``i`` of
:func:`output_weight`). For every supported architecture this module defines

    **a neuron is one coordinate of the input of the FFN's output projection.**

That input is exactly ``a``. Gated MLPs (Llama, Mistral, Qwen2) compute
``a = f(x G^T) * (x U^T)``; there ``K`` is taken to be the up projection ``U``.

Shape convention (used throughout the project)
----------------------------------------------
Activations are always ordered ``[layers, tokens, neurons]``. A single forward pass
yields, per layer, a tensor ``[batch, positions, neurons]``;
:meth:`skillneurons.neurons.hooks.ActivationCapture.stacked` returns
``[batch, layers, positions, neurons]``, so ``stacked()[b]`` is sample ``b``'s
``[layers, tokens, neurons]`` block.

Module names per family
-----------------------
This module (:data:`FFN_MODULES`, :data:`MLM_HEADS`, :data:`ATTENTION_OUTPUTS`,
:data:`ATTENTION_QUERY_VALUE`) is the only place in the project that names model-family
modules.
Paths are relative to the backbone (the module whose ``config.model_type`` is the
family, e.g. ``BertModel`` inside ``BertForMaskedLM``). GPT-2 uses ``Conv1D`` whose
weight is stored ``[in, out]``; :func:`input_weight` and :func:`output_weight` hide that.

Everything else (capture, perturbation, pruning, attribution, neuron-only fine-tuning)
goes through :func:`ffn_sites` and the hooks of :mod:`skillneurons.neurons.hooks`
(:func:`~skillneurons.neurons.hooks.capture_activations`,
:func:`~skillneurons.neurons.hooks.edit_activations`), which add and remove their hooks
inside context managers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

import torch
from torch import nn
from torch.nn.utils import skip_init
from transformers.pytorch_utils import Conv1D


class FFNLayout(NamedTuple):
    """Attribute paths of one family's FFN, relative to its backbone."""

    layers: str  # the list of Transformer blocks, in depth order
    input_projections: tuple[str, ...]  # relative to a block: (up,) or (gate, up)
    output_projection: str  # relative to a block; its input is the activation a
    flattens_tokens: bool = False  # block reshapes [batch, seq, d] to [batch*seq, d]


_LLAMA_LIKE = FFNLayout("layers", ("mlp.gate_proj", "mlp.up_proj"), "mlp.down_proj")

#: family (``config.model_type``) -> where its FFN modules live.
FFN_MODULES: dict[str, FFNLayout] = {
    "bert": FFNLayout("encoder.layer", ("intermediate.dense",), "output.dense"),
    "roberta": FFNLayout("encoder.layer", ("intermediate.dense",), "output.dense"),
    "distilbert": FFNLayout("transformer.layer", ("ffn.lin1",), "ffn.lin2"),
    "gpt2": FFNLayout("h", ("mlp.c_fc",), "mlp.c_proj"),
    "llama": _LLAMA_LIKE,
    "mistral": _LLAMA_LIKE,
    "qwen2": _LLAMA_LIKE,
    "bloom": FFNLayout("h", ("mlp.dense_h_to_4h",), "mlp.dense_4h_to_h"),
    "opt": FFNLayout("decoder.layers", ("fc1",), "fc2", flattens_tokens=True),
}

#: family -> the MLM head of its ``*ForMaskedLM`` model, as attribute paths from that
#: model, applied in order to hidden states ``[..., hidden]`` to give vocabulary logits.
MLM_HEADS: dict[str, tuple[str, ...]] = {
    "bert": ("cls",),
    "roberta": ("lm_head",),
    "distilbert": ("vocab_transform", "activation", "vocab_layer_norm", "vocab_projector"),
}


class UnsupportedModelError(ValueError):
    """The model's architecture has no known neuron sites."""


@dataclass(frozen=True)
class FFNSite:
    """The neurons of one layer: the FFN's projections around the activation ``a``.

    ``output_projection`` is the module whose input is ``a`` ([..., width]);
    ``input_projections`` produce ``a`` ((up,) or (gate, up) for gated MLPs);
    ``block`` is the Transformer layer that contains them.
    """

    layer: int
    output_projection: nn.Module
    input_projections: tuple[nn.Module, ...]
    width: int
    gated: bool
    block: nn.Module | None = field(default=None, repr=False)
    flattens_tokens: bool = False


# --------------------------------------------------------------------------- locating


def _resolve(root: nn.Module, path: str) -> nn.Module | None:
    module = root
    for name in path.split("."):
        module = getattr(module, name, None)
        if module is None:
            return None
    return module


def _backbone(model: nn.Module) -> tuple[str, nn.Module]:
    """The first submodule (``model`` itself included) of a supported family with layers."""
    model_types = []
    for module in model.modules() if isinstance(model, nn.Module) else ():
        model_type = getattr(getattr(module, "config", None), "model_type", None)
        if model_type is None:
            continue
        model_types.append(model_type)
        layout = FFN_MODULES.get(model_type)
        if layout is not None and _resolve(module, layout.layers) is not None:
            return model_type, module
    found = f" (model_type {model_types[0]!r})" if model_types else ""
    raise UnsupportedModelError(
        f"{type(model).__name__}{found} has no known FFN neuron sites; "
        f"supported families: {', '.join(FFN_MODULES)}"
    )


def model_family(model: nn.Module) -> str:
    """The family of ``model`` as a key of :data:`FFN_MODULES` (e.g. ``"roberta"``)."""
    return _backbone(model)[0]


def masked_lm_head(model: nn.Module) -> nn.Module:
    """The MLM head of a masked-LM model, hidden ``[..., hidden]`` -> logits ``[..., vocab]``.

    Running the head on the ``[MASK]`` position alone (paper A, Eq. 1) avoids computing
    the full-vocabulary projection at every position.
    """
    family = model_family(model)
    paths = MLM_HEADS.get(family)
    modules = [_resolve(model, path) for path in paths] if paths else [None]
    if any(module is None for module in modules):
        raise UnsupportedModelError(
            f"{type(model).__name__} has no known masked-LM head; "
            f"known for: {', '.join(MLM_HEADS)}"
        )
    return modules[0] if len(modules) == 1 else nn.Sequential(*modules)


def _in_out_features(module: nn.Module) -> tuple[int, int]:
    if isinstance(module, Conv1D):  # weight [in, out]
        return module.weight.shape[0], module.weight.shape[1]
    return module.weight.shape[1], module.weight.shape[0]  # nn.Linear: weight [out, in]


def _check_config(family: str, config: object) -> None:
    """Refuse settings under which the output projection is not called once per forward."""
    if getattr(config, "chunk_size_feed_forward", 0):
        raise UnsupportedModelError(
            f"{family} with chunk_size_feed_forward={config.chunk_size_feed_forward} runs the "
            "FFN in chunks; set chunk_size_feed_forward=0 to use neuron sites"
        )
    if family == "bloom" and config.pretraining_tp > 1 and config.slow_but_exact:
        raise UnsupportedModelError(
            "bloom with slow_but_exact=True bypasses dense_4h_to_h; set slow_but_exact=False"
        )


def ffn_sites(model: nn.Module) -> list[FFNSite]:
    """One :class:`FFNSite` per Transformer layer of ``model``, in depth order.

    Works on bare backbones (``BertModel``) and on models with heads
    (``RobertaForMaskedLM``, ``LlamaForCausalLM``, ...), or any module containing one.
    Raises :class:`UnsupportedModelError` for other architectures.
    """
    family, backbone = _backbone(model)
    _check_config(family, backbone.config)
    layout = FFN_MODULES[family]
    sites = []
    for index, block in enumerate(_resolve(backbone, layout.layers)):
        output_projection = _resolve(block, layout.output_projection)
        inputs = tuple(_resolve(block, path) for path in layout.input_projections)
        if output_projection is None or any(module is None for module in inputs):
            raise UnsupportedModelError(
                f"layer {index} of {type(model).__name__} lacks {layout.output_projection} or "
                f"{', '.join(layout.input_projections)} expected for family {family!r}"
            )
        width = _in_out_features(output_projection)[0]
        if any(_in_out_features(module)[1] != width for module in inputs):
            raise UnsupportedModelError(
                f"layer {index} of {type(model).__name__}: input projections do not produce "
                f"the {width} inputs of {layout.output_projection}"
            )
        sites.append(
            FFNSite(
                layer=index,
                output_projection=output_projection,
                input_projections=inputs,
                width=width,
                gated=len(inputs) > 1,
                block=block,
                flattens_tokens=layout.flattens_tokens,
            )
        )
    return sites


def neuron_count(model: nn.Module) -> int:
    """Total number of neurons: the sum of :attr:`FFNSite.width` over layers."""
    return sum(site.width for site in ffn_sites(model))


#: family -> the self-attention block's output projection, relative to a layer (where
#: a Houlsby adapter goes besides the FFN's output projection, paper A §5).
ATTENTION_OUTPUTS: dict[str, str] = {
    "bert": "attention.output.dense",
    "roberta": "attention.output.dense",
    "distilbert": "attention.out_lin",
    "gpt2": "attn.c_proj",
    "llama": "self_attn.o_proj",
    "mistral": "self_attn.o_proj",
    "qwen2": "self_attn.o_proj",
    "bloom": "self_attention.dense",
    "opt": "self_attn.out_proj",
}


def attention_outputs(model: nn.Module) -> list[nn.Module]:
    """Per layer, in depth order, the output projection of the self-attention block
    (its output ``[..., hidden]`` is added to the residual stream)."""
    family = model_family(model)
    modules = [_resolve(site.block, ATTENTION_OUTPUTS[family]) for site in ffn_sites(model)]
    if any(module is None for module in modules):
        raise UnsupportedModelError(
            f"{type(model).__name__} lacks {ATTENTION_OUTPUTS[family]} in some layer"
        )
    return modules


#: family -> the self-attention block's query and value projections, relative to a
#: layer: where SeqLoRA's low-rank adapters go (paper B, Table 5's LoRA baselines, after
#: O-LoRA: the query and value matrices). GPT-2 and Bloom fuse query, key and value into
#: one projection, which is adapted whole.
ATTENTION_QUERY_VALUE: dict[str, tuple[str, ...]] = {
    "bert": ("attention.self.query", "attention.self.value"),
    "roberta": ("attention.self.query", "attention.self.value"),
    "distilbert": ("attention.q_lin", "attention.v_lin"),
    "gpt2": ("attn.c_attn",),
    "llama": ("self_attn.q_proj", "self_attn.v_proj"),
    "mistral": ("self_attn.q_proj", "self_attn.v_proj"),
    "qwen2": ("self_attn.q_proj", "self_attn.v_proj"),
    "bloom": ("self_attention.query_key_value",),
    "opt": ("self_attn.q_proj", "self_attn.v_proj"),
}


class LoraTargets(NamedTuple):
    """Where LoRA adapters go: module names as ``model.named_modules()`` spells them, and
    whether those modules store their weight ``[in, out]`` (GPT-2's ``Conv1D``; peft's
    ``fan_in_fan_out``)."""

    names: list[str]
    fan_in_fan_out: bool


def lora_targets(model: nn.Module) -> LoraTargets:
    """Every layer's attention query and value projections (:data:`ATTENTION_QUERY_VALUE`)
    in depth order, named from ``model``'s root (peft's ``target_modules``)."""
    family = model_family(model)
    names = {id(module): name for name, module in model.named_modules()}
    modules = [
        _resolve(site.block, path)
        for site in ffn_sites(model)
        for path in ATTENTION_QUERY_VALUE[family]
    ]
    if any(module is None for module in modules):
        raise UnsupportedModelError(
            f"{type(model).__name__} lacks {ATTENTION_QUERY_VALUE[family]} in some layer"
        )
    return LoraTargets(
        [names[id(module)] for module in modules],
        any(isinstance(module, Conv1D) for module in modules),
    )


# --------------------------------------------------------------------------- weights


def projection_weight(module: nn.Module) -> torch.Tensor:
    """A projection's weight as ``[out, in]`` (``y = x W^T + b``), whatever its storage: a
    view of the parameter (GPT-2's ``Conv1D`` stores ``[in, out]``), so writing into it
    writes the parameter."""
    return module.weight.T if isinstance(module, Conv1D) else module.weight


def input_weight(site: FFNSite) -> torch.Tensor:
    """``K``: ``[width, hidden]``; row ``i`` is the weight vector producing neuron ``i``.

    For gated MLPs this is the *up* projection's row (the gate's row is
    ``site.input_projections[0]``). A view of the parameter (GPT-2's ``Conv1D`` transposed).
    """
    return projection_weight(site.input_projections[-1])


def input_bias(site: FFNSite) -> torch.Tensor | None:
    """``b1``: ``[width]``, the up projection's bias, or ``None`` if it has none."""
    return site.input_projections[-1].bias


def output_weight(site: FFNSite) -> torch.Tensor:
    """``V^T``: ``[hidden, width]``; column ``i`` is neuron ``i``'s contribution direction."""
    return projection_weight(site.output_projection)


def neuron_parameters(
    site: FFNSite, neurons: torch.Tensor, output_only: bool = False
) -> list[tuple[torch.Tensor, int]]:
    """Where the parameters of ``neurons`` of one layer live (paper B's neuron
    parameters): ``(view, axis)`` pairs, the neurons' entries being
    ``view.index_select(axis, neurons)``. Row ``j`` of every input projection (gate and
    up in gated MLPs) with its bias entry, and column ``j`` of the output projection;
    never the output bias. ``output_only``: the output columns alone (paper B's A.2
    "columns"). Views are in ``[out, in]`` layout (:func:`projection_weight`)."""
    places = [(projection_weight(site.output_projection), 1)]
    if output_only:
        return places
    for module in site.input_projections:
        places.append((projection_weight(module), 0))
        if module.bias is not None:
            places.append((module.bias, 0))
    return places


def output_bias(site: FFNSite) -> torch.Tensor | None:
    """``b2``: ``[hidden]``, or ``None`` if the output projection has no bias."""
    return site.output_projection.bias


# --------------------------------------------------------------------------- shrinking


def _projection_rows(module: nn.Module, rows: torch.Tensor) -> nn.Module:
    """A copy of a projection keeping only output features ``rows`` (same class)."""
    weight, bias = module.weight.detach(), module.bias
    factory = {"device": weight.device, "dtype": weight.dtype}
    if isinstance(module, Conv1D):  # weight [in, out]
        new = Conv1D(len(rows), weight.shape[0]).to(**factory)
        new.weight.data = weight[:, rows].clone()
    else:
        new = skip_init(nn.Linear, weight.shape[1], len(rows), bias=bias is not None, **factory)
        new.weight.data = weight[rows].clone()
    if bias is not None:
        new.bias.data = bias.detach()[rows].clone()
    return new


def _projection_columns(
    module: nn.Module, columns: torch.Tensor, shift: torch.Tensor
) -> nn.Module:
    """A copy of a projection keeping only input features ``columns``, bias + ``shift``.

    A projection without a bias gets one (``shift``), so the folded constant has a home.
    """
    weight = module.weight.detach()
    factory = {"device": weight.device, "dtype": weight.dtype}
    bias = module.bias.detach() if module.bias is not None else torch.zeros_like(shift)
    if isinstance(module, Conv1D):  # weight [in, out]
        new = Conv1D(weight.shape[1], len(columns)).to(**factory)
        new.weight.data = weight[columns].clone()
    else:
        new = skip_init(nn.Linear, len(columns), weight.shape[0], bias=True, **factory)
        new.weight.data = weight[:, columns].clone()
    new.bias.data = (bias + shift.to(**factory)).clone()
    return new


def _set_module(root: nn.Module, path: str, module: nn.Module) -> None:
    parent, _, name = path.rpartition(".")
    setattr(_resolve(root, parent) if parent else root, name, module)


def shrink_site(
    model: nn.Module, layer: int, neurons: torch.Tensor, output_bias_shift: torch.Tensor
) -> FFNSite:
    """Keep only ``neurons`` of one layer: a real, smaller FFN (pruning, paper A §6.1).

    The input projections keep rows ``neurons`` (``K`` and ``b1``), the output
    projection keeps columns ``neurons`` (``V``) and gets bias ``b2 + output_bias_shift``,
    where the caller folds the constant contribution of the removed neurons into
    ``output_bias_shift`` ``[hidden]``. The new modules replace the old ones in the
    layer (same class, device and dtype; ``requires_grad`` is kept), so the layer then
    computes ``f(x K_S^T + b1_S) V_S + b2 + shift`` with ``|S| = len(neurons)``.

    Parameters
    ----------
    model : a supported model (see :data:`FFN_MODULES`).
    layer : the layer index.
    neurons : 1-D int64 indices of the neurons kept, in the order they get in the new
        layer (``arange(width)`` keeps the layer as it is).
    output_bias_shift : ``[hidden]`` added to the output projection's bias.

    Returns
    -------
    The layer's new :class:`FFNSite` (``width == len(neurons)``).
    """
    family, _ = _backbone(model)
    site = select_sites(model, [layer])[0]
    neurons = torch.as_tensor(neurons, dtype=torch.long).reshape(-1)
    if neurons.numel() and not 0 <= int(neurons.min()) <= int(neurons.max()) < site.width:
        raise ValueError(f"neurons kept at layer {layer} must lie in 0..{site.width - 1}")
    index = neurons.to(site.output_projection.weight.device)
    layout = FFN_MODULES[family]
    paths = (*layout.input_projections, layout.output_projection)
    old = (*site.input_projections, site.output_projection)
    new = [_projection_rows(module, index) for module in site.input_projections]
    new.append(_projection_columns(site.output_projection, index, output_bias_shift))
    for path, before, after in zip(paths, old, new, strict=True):
        for parameter in after.parameters():
            parameter.requires_grad_(before.weight.requires_grad)
        _set_module(site.block, path, after)
    return ffn_sites(model)[layer]


def select_sites(model: nn.Module, layers: Iterable[int] | None) -> list[FFNSite]:
    """The sites of ``layers`` (every layer when None), in layer order; unknown layers raise."""
    sites = ffn_sites(model)
    if layers is None:
        return sites
    chosen = sorted(set(layers))
    bad = [layer for layer in chosen if not 0 <= layer < len(sites)]
    if bad:
        raise ValueError(f"layers {bad} do not exist; the model has layers 0..{len(sites) - 1}")
    return [sites[layer] for layer in chosen]
