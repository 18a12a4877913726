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

**Tasks trained together** (paper B, §3.2 and §5.1: "only the neurons specific to the
current training task are trained") share one set of deltas, of the union of their
neurons, and one forward through all of them; on a task's batch only that task's
entries (:meth:`NeuronDeltas.entries_of`) may change, and :class:`MaskedAdam` keeps
**masked moments**: an entry's value, both moments and its own step count change only
on the batches of the tasks that own its neuron. So a neuron of task A alone is moved
by exactly Adam run on A's batches (its moments hold A's gradients only, its bias
correction counts A's steps), and a neuron shared by A and B trains on both tasks'
batches, its moments holding A's and B's gradients, never a third task's: with every
neuron owned by every task (a share of 100%) it is plain multi-task Adam. One set of
moments (not one Adam per task) keeps the state the size of the deltas, as one
model's multi-task training has it, at the cost of a per-entry step count.
"""

from __future__ import annotations

import math
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


def _local(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor this process holds of ``tensor`` (its own shard of a DTensor)."""
    return tensor.to_local() if isinstance(tensor, DTensor) else tensor


def _local_mask(parameter: torch.Tensor, where: torch.Tensor) -> torch.Tensor:
    """The mask ``where`` (broadcast to ``parameter``'s shape) on the part of
    ``parameter`` this process holds (its own shard of a DTensor)."""
    mask = where.expand(parameter.shape)
    if not isinstance(parameter, DTensor):
        return mask
    shard = distribute_tensor(
        mask.contiguous(), parameter.device_mesh, parameter.placements, src_data_rank=None
    )
    return shard.to_local()


class MaskedAdam(torch.optim.Optimizer):
    """Adam (Kingma and Ba, torch's defaults, no weight decay) whose every step changes
    only the entries :attr:`entries` names: ``{parameter: bool mask}`` over the tensor
    this process holds of each parameter (a DTensor's own shard), set before each step
    and used by that step alone. An entry outside its mask keeps its value, both
    moments and its step count, as if the step had not happened for it; an entry
    inside follows Adam with its own step count in the bias correction. So an entry
    masked in on a sub-sequence of steps is moved exactly as Adam run on that
    sub-sequence alone (the module docstring: tasks trained together). State per
    entry: both moments (the parameter's dtype) and the step count (float32)."""

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps})
        self.entries: Mapping[torch.Tensor, torch.Tensor] | None = None

    @torch.no_grad()
    def step(self, closure=None):
        if self.entries is None:
            raise RuntimeError(
                "MaskedAdam.entries is not set: name the entries each step may change "
                "(NeuronDeltas.entries_of) before calling step()"
            )
        loss = None if closure is None else closure()
        entries, self.entries = self.entries, None
        for group in self.param_groups:
            (beta1, beta2), rate, eps = group["betas"], group["lr"], group["eps"]
            for parameter in group["params"]:
                if parameter.grad is None:
                    continue
                if parameter not in entries:
                    raise ValueError(
                        f"MaskedAdam.entries names no mask for a trained parameter of "
                        f"shape {tuple(parameter.shape)}; give every trained parameter one"
                    )
                inside = entries[parameter]
                value, grad = _local(parameter), _local(parameter.grad)
                state = self.state[parameter]
                if not state:
                    state["step"] = torch.zeros_like(value, dtype=torch.float32)
                    state["exp_avg"] = torch.zeros_like(value)
                    state["exp_avg_sq"] = torch.zeros_like(value)
                steps, first, second = state["step"], state["exp_avg"], state["exp_avg_sq"]
                steps.add_(inside.to(steps.dtype))
                first.copy_(torch.where(inside, first.lerp(grad, 1 - beta1), first))
                moved = second.mul(beta2).addcmul_(grad, grad, value=1 - beta2)
                second.copy_(torch.where(inside, moved, second))
                # 1 - beta^t as -expm1(t log beta): exact in float32 where 1 - beta^t is
                # not. Entries never masked in have step 0 (0/0 below); where() drops them.
                corrected = second.sqrt() / (-torch.expm1(steps * math.log(beta2))).sqrt()
                scale = rate / -torch.expm1(steps * math.log(beta1))
                update = first / (corrected + eps) * scale
                value.sub_(torch.where(inside, update.to(value.dtype), 0.0))
        return loss


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

    def entries_of(
        self, neurons: Mapping[int, np.ndarray | torch.Tensor]
    ) -> dict[torch.Tensor, torch.Tensor]:
        """The entries of ``neurons`` (``{layer: indices}``, among the deltas' neurons) in
        every delta parameter: ``{parameter: bool mask}`` over the tensor this process
        holds of it (a DTensor's own shard), what :attr:`MaskedAdam.entries` takes for
        a batch that may change only these neurons (paper B, §3.2: a task's batch trains
        its own neurons). The masks are views (on one process): computing them is free."""
        masks = {}
        for layer, deltas in self.layers.items():
            chosen = torch.as_tensor(np.asarray(neurons.get(int(layer), [])), dtype=torch.long)
            inside = torch.isin(deltas.neurons, chosen.to(deltas.neurons.device))
            masks[deltas.output] = _local_mask(deltas.output, inside[None, :])
            masks.update({w: _local_mask(w, inside[:, None]) for w in deltas.inputs})
            masks.update({b: _local_mask(b, inside) for b in deltas.input_biases if b.numel()})
        return masks

    def entries(self) -> int:
        """The number of trained entries (what Adam keeps state for)."""
        return sum(parameter.numel() for parameter in self.parameters())
