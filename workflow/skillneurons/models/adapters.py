"""Houlsby adapters (Houlsby et al., 2019), the adapter-based tuning of paper A, §5.

Each Transformer layer gets two bottleneck adapters, one on the output of the
self-attention block's output projection and one on the output of the FFN's output
projection, both before the residual addition and LayerNorm (Houlsby et al., Figure 2):

    h  ->  h + W_up f(W_down h + b_down) + b_up,     W_down: [size, hidden], W_up: [hidden, size]

with ``f`` the swish (SiLU) nonlinearity of the ``houlsby`` configuration of
adapter-transformers (the library of paper A's original code). Weights start from a
zero-mean normal with a small std and zero biases, so at initialisation an adapter is
close to the identity (exactly the identity when ``W_up`` is zero).

The adapters leave every neuron's weights (``K``, ``V``, ``b1``, ``b2``) unchanged: the
neuron activations ``a`` of :mod:`skillneurons.models.sites` are still read and
perturbed at the same place. Only the adapters are trained (LayerNorms stay frozen).
Which modules receive adapters comes from
:func:`skillneurons.models.sites.attention_outputs` and
:func:`skillneurons.models.sites.ffn_sites`, so this module names no model family's
modules. The adapters are attached with forward hooks that live as long as the
:class:`HoulsbyAdapters` module; :meth:`HoulsbyAdapters.remove` detaches them.
"""

from __future__ import annotations

import torch
from torch import nn

from skillneurons.models.sites import attention_outputs, ffn_sites


class BottleneckAdapter(nn.Module):
    """``h + up(silu(down(h)))`` on the last axis of ``h`` ``[..., hidden]``."""

    def __init__(self, hidden: int, size: int, init_std: float, generator: torch.Generator):
        super().__init__()
        self.down = nn.Linear(hidden, size)
        self.up = nn.Linear(size, hidden)
        with torch.no_grad():
            for linear in (self.down, self.up):
                linear.weight.copy_(torch.randn(linear.weight.shape, generator=generator))
                linear.weight.mul_(init_std)
                linear.bias.zero_()

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return hidden + self.up(nn.functional.silu(self.down(hidden)))


def _output_hook(adapter: BottleneckAdapter):
    def hook(module, args, output):
        return adapter(output)

    return hook


class HoulsbyAdapters(nn.Module):
    """Two :class:`BottleneckAdapter` per layer of ``model``, attached by forward hooks.

    Parameters
    ----------
    model : a supported backbone (see :mod:`skillneurons.models.sites`).
    size : bottleneck width (paper A's original code: hidden / 16, i.e. 48 for
        RoBERTa-base).
    init_std : std of the normal initialisation of both projections.
    seed : seed of that initialisation.

    ``attention[l]`` and ``ffn[l]`` are layer ``l``'s adapters; their parameters require
    gradients and live on the model's device and dtype.
    """

    def __init__(self, model: nn.Module, size: int, init_std: float, seed: int = 0):
        super().__init__()
        sites = ffn_sites(model)
        targets = attention_outputs(model)
        reference = sites[0].output_projection.weight
        hidden = model.get_input_embeddings().weight.shape[1]
        generator = torch.Generator().manual_seed(seed)

        def make() -> BottleneckAdapter:
            adapter = BottleneckAdapter(hidden, size, init_std, generator)
            return adapter.to(device=reference.device, dtype=reference.dtype)

        self.attention = nn.ModuleList(make() for _ in sites)
        self.ffn = nn.ModuleList(make() for _ in sites)
        self._handles = []
        for site, target, attention, ffn in zip(
            sites, targets, self.attention, self.ffn, strict=True
        ):
            self._handles.append(target.register_forward_hook(_output_hook(attention)))
            self._handles.append(site.output_projection.register_forward_hook(_output_hook(ffn)))

    def remove(self) -> None:
        """Detach the adapters from the model (the model computes as before)."""
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
