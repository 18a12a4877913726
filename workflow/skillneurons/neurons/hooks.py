"""Hooks at the neuron seam: capture and edit the activation ``a`` of every neuron.

Every analysis reads or changes neurons at one place per layer, the input of the FFN's
output projection (:mod:`skillneurons.models.sites`): a forward pre-hook on that module
sees ``a`` ``[batch, positions, neurons]``. :func:`capture_activations` records it (paper
A's activations; with ``keep_grad`` also ``dL/da``, paper B's attribution) and
:func:`edit_activations` replaces it by an edited copy (perturbation, deactivation).
Hooks are added and removed inside context managers and never outlive them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch
from torch import nn

from skillneurons.models.sites import FFNSite, ffn_sites, select_sites

EDIT_MODES = ("add", "set", "scale")


class _Hooks:
    """Hook handles plus the token shape of blocks that flatten [batch, seq] (OPT)."""

    def __init__(self) -> None:
        self.handles: list[torch.utils.hooks.RemovableHandle] = []
        self.token_shape: dict[int, torch.Size] = {}

    def watch_token_shape(self, site: FFNSite) -> None:
        if not site.flattens_tokens:
            return

        def record(module, args, kwargs):
            hidden = args[0] if args else kwargs["hidden_states"]
            self.token_shape[site.layer] = hidden.shape[:-1]

        self.handles.append(site.block.register_forward_pre_hook(record, with_kwargs=True))

    def as_tokens(self, site: FFNSite, x: torch.Tensor) -> torch.Tensor:
        """View the output projection's input as ``[batch, positions, width]``."""
        if x.dim() == 3:
            return x
        return x.view(*self.token_shape[site.layer], site.width)

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()
        self.handles.clear()


def _position_index(positions, seq_len: int, device: torch.device) -> torch.Tensor:
    """Positions as non-negative indices (negative ones count from the end)."""
    if isinstance(positions, slice):
        return torch.arange(seq_len, device=device)[positions]
    return torch.as_tensor(positions, dtype=torch.long, device=device).reshape(-1) % seq_len


@dataclass
class ActivationCapture:
    """Activations recorded by :func:`capture_activations` (most recent forward pass).

    ``activations[layer]`` is ``[batch, positions, neurons]``.
    """

    layers: tuple[int, ...]
    activations: dict[int, torch.Tensor] = field(default_factory=dict)

    def stacked(self) -> torch.Tensor:
        """``[batch, layers, positions, neurons]`` for the captured layers in layer order."""
        if not self.activations:
            raise RuntimeError("no forward pass ran inside capture_activations")
        return torch.stack([self.activations[layer] for layer in self.layers], dim=1)


class _Recorded(Exception):
    """Raised by the last capture hook of ``capture_activations(..., stop=True)``."""


@contextmanager
def capture_activations(
    model: nn.Module,
    positions: Sequence[int] | torch.Tensor | slice | None = None,
    layers: Iterable[int] | None = None,
    keep_grad: bool = False,
    stop: bool = False,
) -> Iterator[ActivationCapture]:
    """Record the neuron activations ``a`` (Eq. 2 of paper A) of every forward pass.

    Parameters
    ----------
    model : a supported model (see :data:`skillneurons.models.sites.FFN_MODULES`).
    positions : sequence positions to keep (1-D indices or a slice); ``None`` keeps all.
    layers : layer indices to record; ``None`` records every layer.
    keep_grad : if False, stored tensors are detached. If True they stay in the graph
        (and ``retain_grad()`` is called), so after ``loss.backward()``
        ``capture.activations[layer].grad`` holds ``dL/da`` (paper B's attribution).
        If ``a`` does not require grad (frozen model), the captured tensor is made a
        leaf that does, and the forward continues from it.
    stop : end the forward pass once the last recorded layer's ``a`` is recorded: that
        layer's output projection, the layers above it and the head do not run, and the
        rest of the ``with`` block is skipped. For a block that holds one forward pass
        whose outputs it does not need (activation dumps: the recorded values are the
        same). Not with ``keep_grad``.

    Yields
    ------
    ActivationCapture whose ``activations[layer]`` is ``[batch, positions, neurons]``,
    overwritten by each forward pass. Hooks run after any :func:`edit_activations`
    hooks, so a capture sees edited values. Hooks are removed on exit, even on error.
    """
    if stop and keep_grad:
        raise ValueError("capture_activations: stop skips the backward keep_grad is for")
    sites = select_sites(model, layers)
    capture = ActivationCapture(layers=tuple(site.layer for site in sites))
    hooks = _Hooks()
    last = sites[-1].layer if sites else None

    def make_hook(site: FFNSite):
        def hook(module, args):
            x = args[0]
            a = hooks.as_tokens(site, x)
            index = None if positions is None else _position_index(positions, a.shape[1], a.device)
            captured = a if index is None else a.index_select(1, index)
            if not keep_grad:
                capture.activations[site.layer] = captured.detach()
                if stop and site.layer == last:
                    raise _Recorded
                return None
            if not captured.requires_grad and torch.is_grad_enabled():
                captured = captured.detach().requires_grad_(True)
            if captured.requires_grad:
                captured.retain_grad()
            capture.activations[site.layer] = captured
            if captured is x:
                return None
            # Continue the forward from the captured tensor so gradients reach it.
            rebuilt = captured if index is None else a.index_copy(1, index, captured)
            return (rebuilt.view(x.shape), *args[1:])

        return hook

    try:
        for site in sites:
            hooks.watch_token_shape(site)
            hooks.handles.append(site.output_projection.register_forward_pre_hook(make_hook(site)))
        yield capture
    except _Recorded:
        pass
    finally:
        hooks.remove()


NeuronValue = (
    float | torch.Tensor | Callable[[torch.Size, torch.device, torch.dtype], torch.Tensor]
)


@dataclass(frozen=True, eq=False)  # eq=False: tensor fields compare by identity
class NeuronEdit:
    """An edit of some neurons of one layer, applied to ``a`` before the output projection.

    Parameters
    ----------
    neurons : 1-D long tensor (or sequence) of neuron indices within the layer.
    mode : ``"add"`` (``a + value``), ``"set"`` (``a = value``) or ``"scale"`` (``a * value``).
    value : scalar, or tensor broadcastable to ``[batch, len(positions), len(neurons)]``;
        or a callable ``value(shape, device, dtype) -> Tensor`` called on every forward
        pass with that shape, e.g. to draw fresh Gaussian noise (paper A §4.2).
    positions : sequence positions to edit (1-D indices, negative ones counted from the
        end of the sequence); ``None`` edits every position.
    """

    neurons: torch.Tensor
    mode: str
    value: NeuronValue = 0.0
    positions: torch.Tensor | None = None

    def __post_init__(self) -> None:
        if self.mode not in EDIT_MODES:
            raise ValueError(f"edit mode {self.mode!r} is unknown; use one of {EDIT_MODES}")
        object.__setattr__(
            self, "neurons", torch.as_tensor(self.neurons, dtype=torch.long).reshape(-1)
        )
        if self.positions is not None:
            positions = torch.as_tensor(self.positions, dtype=torch.long).reshape(-1)
            object.__setattr__(self, "positions", positions)

    def apply(self, a: torch.Tensor) -> torch.Tensor:
        """Return an edited copy of ``a`` ``[batch, positions, width]``; other entries are
        bit-identical and ``a`` itself is untouched."""
        neurons = self.neurons.to(a.device)
        if self.positions is None:
            index = (slice(None), slice(None), neurons)
        else:
            positions = self.positions.to(a.device) % a.shape[1]  # negative: from the end
            index = (slice(None), positions[:, None], neurons)
        selected = a[index]  # [batch, positions, neurons]
        value = self.value
        if callable(value):
            value = value(selected.shape, a.device, a.dtype)
        value = torch.as_tensor(value, device=a.device, dtype=a.dtype)
        if self.mode == "add":
            new = selected + value
        elif self.mode == "scale":
            new = selected * value
        else:
            new = value.expand_as(selected)
        edited = a.clone()
        edited[index] = new
        return edited


@dataclass(frozen=True, eq=False)  # eq=False: tensor fields compare by identity
class GroupedEdit:
    """Edits of one layer that differ by row group: a batch of ``groups x n`` rows, one
    condition's ``n`` rows after another, where group ``g`` edits the neurons
    ``chosen[g]`` (bool ``[groups, width]``) and leaves the others bit-identical. Several
    perturbation conditions then go through one forward pass.

    ``mode`` is ``"add"`` or ``"set"``; ``value`` is a scalar, a tensor broadcastable to
    ``[n, len(positions), width]`` (one value per neuron of the layer), or a callable
    ``value(shape, device, dtype)`` called once per forward pass with the shape of
    **one** group, ``[n, positions, width]``: every group gets the same draw, as
    separate passes of common random numbers would (:class:`NeuronEdit`'s ``value``);
    ``positions`` as in :class:`NeuronEdit`.
    """

    chosen: torch.Tensor
    mode: str
    value: NeuronValue = 0.0
    positions: torch.Tensor | None = None

    def __post_init__(self) -> None:
        if self.mode not in ("add", "set"):
            raise ValueError(f"grouped edit mode {self.mode!r} is unknown; use add or set")
        object.__setattr__(self, "chosen", torch.as_tensor(self.chosen, dtype=torch.bool))
        if self.positions is not None:
            positions = torch.as_tensor(self.positions, dtype=torch.long).reshape(-1)
            object.__setattr__(self, "positions", positions)

    @property
    def neurons(self) -> torch.Tensor:
        """Every neuron some group edits (checked against the layer's width)."""
        return self.chosen.any(dim=0).nonzero().reshape(-1)

    def apply(self, a: torch.Tensor) -> torch.Tensor:
        """Return an edited copy of ``a`` ``[groups x n, positions, width]``."""
        groups, width = self.chosen.shape
        if a.shape[0] % groups or a.shape[-1] != width:
            raise ValueError(f"rows of shape {tuple(a.shape)} do not split into {groups} groups")
        grouped = a.view(groups, a.shape[0] // groups, *a.shape[1:])
        if self.positions is None:
            selected = grouped
        else:
            positions = self.positions.to(a.device) % a.shape[1]
            selected = grouped[:, :, positions]  # [groups, n, positions, width]
        value = self.value
        if callable(value):
            value = value(selected.shape[1:], a.device, a.dtype)
        value = torch.as_tensor(value, device=a.device, dtype=a.dtype)
        new = selected + value if self.mode == "add" else value.expand_as(selected)
        new = torch.where(self.chosen.to(a.device)[:, None, None, :], new, selected)
        if self.positions is None:
            return new.view(a.shape)
        edited = grouped.clone()
        edited[:, :, positions] = new
        return edited.view(a.shape)


@contextmanager
def edit_activations(
    model: nn.Module, edits: Mapping[int, NeuronEdit | GroupedEdit]
) -> Iterator[None]:
    """Apply ``edits`` (layer -> :class:`NeuronEdit` or :class:`GroupedEdit`) to ``a`` in
    every forward pass.

    Forward pre-hooks on the output projections replace their input by an edited copy
    (never in place), so autograd still works and non-selected neurons are bit-identical.
    Hooks are prepended, so they run before any capture hook on the same module: a
    :func:`capture_activations` inside or around this context sees the edited values.
    Hooks are removed on exit, even on error.
    """
    sites = ffn_sites(model)
    for layer, edit in edits.items():
        if not 0 <= layer < len(sites):
            raise ValueError(f"layer {layer} does not exist; the model has 0..{len(sites) - 1}")
        width = sites[layer].width
        if (
            edit.neurons.numel()
            and not 0 <= int(edit.neurons.min()) <= int(edit.neurons.max()) < width
        ):
            raise ValueError(f"neurons of the edit at layer {layer} must lie in 0..{width - 1}")
    hooks = _Hooks()

    def make_hook(site: FFNSite, edit: NeuronEdit):
        def hook(module, args):
            x = args[0]
            edited = edit.apply(hooks.as_tokens(site, x))
            return (edited.view(x.shape), *args[1:])

        return hook

    try:
        for layer, edit in edits.items():
            site = sites[layer]
            hooks.watch_token_shape(site)
            hooks.handles.append(
                site.output_projection.register_forward_pre_hook(
                    make_hook(site, edit), prepend=True
                )
            )
        yield
    finally:
        hooks.remove()
