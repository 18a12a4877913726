"""Neuron-only fine-tuning (paper B, §4): only the chosen neurons' parameters change.

A neuron's parameters are its row of the FFN's input projection(s) (gate and up in gated
MLPs), with their bias entries, and its column of the output projection
(:func:`skillneurons.models.sites.neuron_parameters`). Masking the gradients of whole
weight matrices would compute every frozen row's weight gradient only to throw it away;
instead :class:`NeuronDeltas` keeps the model frozen and trains **deltas of the chosen
rows and columns only**, added by forward hooks at the seam:

    input projection:   y[..., S] += x dK_S^T + db_S       (dK_S: [|S|, in])
    output projection:  y          += a[..., S] dV_S^T     (dV_S: [out, |S|])

which is exactly the FFN with ``K[S] + dK_S``, ``b1[S] + db_S``, ``V[:, S] + dV_S``. Backward
computes the activations' gradients (needed anyway to reach earlier layers) and the
deltas' gradients, never a frozen weight's; Adam keeps state for the deltas only.
:meth:`NeuronDeltas.fold` writes the deltas into the weights, so every other entry of the
model stays bit-identical to the base model. The deltas start at zero: before training
the model computes the base model's function exactly.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import partial

import numpy as np
import torch
from torch import nn
from torch.distributed.tensor import DTensor, distribute_tensor
from torch.nn import functional

from skillneurons.models.sites import FFNSite, ffn_sites, projection_weight


class _SiteDeltas(nn.Module):
    """The deltas of one layer's chosen neurons (see the module docstring)."""

    def __init__(self, site: FFNSite, neurons: torch.Tensor, output_only: bool):
        super().__init__()
        reference = site.output_projection.weight
        factory = {"device": reference.device, "dtype": reference.dtype}
        self.register_buffer("neurons", neurons.to(reference.device), persistent=False)
        count = len(neurons)
        hidden = projection_weight(site.output_projection).shape[0]
        self.output = nn.Parameter(torch.zeros(hidden, count, **factory))
        self.inputs = nn.ParameterList()
        self.input_biases = nn.ParameterList()
        if not output_only:
            for module in site.input_projections:
                width_in = projection_weight(module).shape[1]
                self.inputs.append(nn.Parameter(torch.zeros(count, width_in, **factory)))
                bias = torch.zeros(count if module.bias is not None else 0, **factory)
                self.input_biases.append(nn.Parameter(bias))

    def input_hook(self, index: int, module, args, output):
        """Hook of input projection ``index`` (bound with :func:`functools.partial`, so
        that a deep copy of the model calls the copy's deltas)."""
        bias = self.input_biases[index] if module.bias is not None else None
        change = functional.linear(args[0], self.inputs[index], bias)
        return output.index_add(-1, self.neurons, change)

    def output_hook(self, module, args, output):
        return output + functional.linear(args[0].index_select(-1, self.neurons), self.output)


def _entries(parameter: torch.Tensor, where: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The tensor this process holds of ``parameter`` (its own shard of a DTensor) and
    the mask of the entries ``where`` (broadcast to the parameter's shape) in it."""
    mask = where.expand(parameter.shape)
    if not isinstance(parameter, DTensor):
        return parameter.detach(), mask
    shard = distribute_tensor(
        mask.contiguous(), parameter.device_mesh, parameter.placements, src_data_rank=None
    )
    return parameter.to_local().detach(), shard.to_local()


class NeuronDeltas(nn.Module):
    """Trainable deltas of the parameters of ``neurons`` (``{layer: indices}``) of
    ``model``, attached by forward hooks that live until :meth:`fold` or :meth:`remove`.

    Attach it to the classifier being trained (``classifier.deltas = NeuronDeltas(...)``
    with every other parameter frozen), so that :func:`~skillneurons.models.training.train`
    optimises exactly the deltas. ``output_only`` trains the output columns alone.
    """

    def __init__(
        self,
        model: nn.Module,
        neurons: Mapping[int, np.ndarray | torch.Tensor],
        output_only: bool = False,
    ):
        super().__init__()
        self._sites = {site.layer: site for site in ffn_sites(model)}
        self.layers = nn.ModuleDict()
        self._handles = []
        for layer, chosen in sorted(neurons.items()):
            index = torch.as_tensor(np.asarray(chosen), dtype=torch.long).reshape(-1)
            if not len(index):
                continue
            site = self._sites[int(layer)]
            if not 0 <= int(index.min()) <= int(index.max()) < site.width:
                raise ValueError(f"neurons of layer {layer} must lie in 0..{site.width - 1}")
            self.layers[str(layer)] = _SiteDeltas(site, index, output_only)
        self._attach()

    def _attach(self) -> None:
        for layer, deltas in self.layers.items():
            site = self._sites[int(layer)]
            self._handles.append(site.output_projection.register_forward_hook(deltas.output_hook))
            for position, module in enumerate(site.input_projections[: len(deltas.inputs)]):
                hook = partial(deltas.input_hook, position)
                self._handles.append(module.register_forward_hook(hook))

    def remove(self) -> None:
        """Detach the hooks: the model computes as without the deltas."""
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    def _updates(self) -> list[tuple[torch.Tensor, tuple, torch.Tensor]]:
        """(weight or bias, the entries of the chosen neurons, their deltas) of every
        projection the deltas change."""
        updates = []
        for layer, deltas in self.layers.items():
            site, index = self._sites[int(layer)], deltas.neurons
            updates.append((projection_weight(site.output_projection), (slice(None), index),
                            deltas.output))  # fmt: skip
            for position, module in enumerate(site.input_projections[: len(deltas.inputs)]):
                updates.append((projection_weight(module), (index,), deltas.inputs[position]))
                if module.bias is not None:
                    updates.append((module.bias, (index,), deltas.input_biases[position]))
        return updates

    @torch.no_grad()
    def fold(self) -> None:
        """Write the deltas into the model's weights and detach the hooks: the model then
        computes the fine-tuned function by itself; entries of other neurons (and every
        non-FFN parameter) are untouched."""
        self.remove()
        for target, where, delta in self._updates():
            target[where] += delta.to(target.dtype)

    @contextmanager
    def folded(self) -> Iterator[None]:
        """Within the block the deltas are folded into the weights (:meth:`fold`), so
        evaluations compute the fine-tuned function without the hooks' extra products
        (which, with a large share of the neurons trained, cost about as much as the
        projections themselves); on leaving it every written entry gets its saved value
        back, bit for bit, and the hooks are attached again."""
        # Indexing with the neurons' indices copies the entries.
        saved = [(target, where, target[where]) for target, where, _ in self._updates()]
        self.fold()
        try:
            yield
        finally:
            with torch.no_grad():
                for target, where, value in saved:
                    target[where] = value
            self._attach()

    def keep_only(self, neurons: Mapping[int, np.ndarray | torch.Tensor]):
        """Before an optimizer step that may change only ``neurons`` (a subset of the
        deltas' neurons, ``{layer: indices}``): returns a function that, called after
        the step, restores every other neuron's deltas to their values now. Several
        tasks trained together on the union of their neurons use it with each batch's
        task's neurons (paper B, §5.1: a batch updates its own task's neurons only).
        Sharded deltas (FSDP's DTensors) are kept on each process's own shard."""
        saved = []
        for layer, deltas in self.layers.items():
            chosen = torch.as_tensor(np.asarray(neurons.get(int(layer), [])), dtype=torch.long)
            outside = ~torch.isin(deltas.neurons, chosen.to(deltas.neurons.device))
            if not outside.any():
                continue
            saved.append(_entries(deltas.output, outside[None, :]))
            saved.extend(_entries(weight, outside[:, None]) for weight in deltas.inputs)
            saved.extend(_entries(bias, outside) for bias in deltas.input_biases if bias.numel())
        values = [local[mask].clone() for local, mask in saved]

        @torch.no_grad()
        def restore() -> None:
            for (local, mask), value in zip(saved, values, strict=True):
                local[mask] = value

        return restore

    def entries(self) -> int:
        """The number of trained entries (what Adam keeps state for)."""
        return sum(parameter.numel() for parameter in self.parameters())
