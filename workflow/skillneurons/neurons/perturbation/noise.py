"""How chosen neurons are perturbed: the settings, the edits and the noise (paper A §4.2).

:class:`PerturbationSettings` says what is done to a neuron (Gaussian noise, zero, the
baseline activation ``a_bsl`` of Eq. 3); :func:`perturbation_edits` turns a set of
neurons into :class:`skillneurons.neurons.hooks.NeuronEdit` s, drawing Gaussian noise
from one generator per layer (common random numbers, :mod:`skillneurons.neurons.perturbation`);
:func:`noise_scale` and :func:`positions_scale` give the unit of ``neuron_std`` noise,
each neuron's std where the noise lands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from skillneurons.models.sites import ffn_sites
from skillneurons.neurons.hooks import GroupedEdit, NeuronEdit

KINDS = ("gaussian", "zero", "baseline")
POSITIONS = ("all", "prompt")
DRAWS = ("sample", "position")
UNITS = ("absolute", "neuron_std")


@dataclass(frozen=True)
class PerturbationSettings:
    """How the chosen neurons are perturbed (config ``perturbation``).

    Attributes
    ----------
    kind : ``"gaussian"`` adds ``N(mean, sigma^2)`` noise (paper A §4.2: mean 0,
        sigma 0.1); ``"zero"`` sets the activation to 0; ``"baseline"`` sets it to the
        baseline activation ``a_bsl`` (Eq. 3).
    sigma, mean : the Gaussian noise's standard deviation and mean.
    positions : ``"all"`` sequence positions (the original code) or only the soft
        ``"prompt"`` positions (needs a classifier with ``prompt_positions``).
    draw : ``"sample"``: one draw per sample and neuron, added at every perturbed
        position (the original code); ``"position"``: an independent draw per sample,
        position and neuron.
    unit : ``"absolute"``: ``sigma`` and ``mean`` are activation values (the paper);
        ``"neuron_std"``: they are multiples of each neuron's activation standard
        deviation, measured on the baseline samples at the ``positions`` the noise is
        added at (:func:`noise_scale`), so that sigma means the same on models whose
        activations have different scales.
    seed : seed of the noise generators (one per layer), reset at the start of every
        evaluation (common random numbers, :mod:`skillneurons.neurons.perturbation`).
    """

    kind: str = "gaussian"
    sigma: float = 0.1
    mean: float = 0.0
    positions: str = "all"
    draw: str = "sample"
    unit: str = "absolute"
    seed: int = 0

    def __post_init__(self) -> None:
        checks = (("kind", KINDS), ("positions", POSITIONS), ("draw", DRAWS), ("unit", UNITS))
        for name, allowed in checks:
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"perturbation {name} {value!r} is unknown; use one of {allowed}")
        if self.sigma < 0:
            raise ValueError(f"perturbation sigma must be >= 0; got {self.sigma}")


def _layer_baseline(baseline, layer: int, positions: str) -> torch.Tensor:
    """``a_bsl`` of one layer: ``[neurons]`` (all positions; a per-token baseline is
    averaged over tokens, as the original code does) or ``[tokens, neurons]``."""
    values = torch.as_tensor(np.asarray(baseline[layer]), dtype=torch.float32)
    if values.dim() == 2 and positions == "all":
        return values.mean(dim=0)
    return values


def perturbation_edits(
    model: torch.nn.Module,
    neurons: Mapping[int, torch.Tensor],
    settings: PerturbationSettings,
    *,
    positions: torch.Tensor | None = None,
    baseline: np.ndarray | torch.Tensor | None = None,
    scale: np.ndarray | torch.Tensor | None = None,
) -> dict[int, NeuronEdit]:
    """The :class:`NeuronEdit` of every layer that has neurons to perturb.

    Parameters
    ----------
    model : the module whose FFN sites are edited.
    neurons : ``{layer: neuron indices}`` (:func:`skillneurons.neurons.ranking.split_flat`).
    settings : what to do to them.
    positions : 1-D sequence positions to edit, or ``None`` for every position.
    baseline : ``[layers, neurons]`` or ``[layers, tokens, neurons]`` ``a_bsl`` (needed
        for ``kind="baseline"``; with ``positions`` given, ``tokens`` must match them).
    scale : ``[layers, neurons]`` each neuron's activation std at ``positions`` (needed
        for the ``neuron_std`` unit of Gaussian noise; :func:`noise_scale`).

    Gaussian noise comes from one generator per layer, seeded with ``settings.seed``
    and the layer here (common random numbers, :mod:`skillneurons.neurons.perturbation`).
    """
    if settings.kind == "baseline" and baseline is None:
        raise ValueError("perturbation kind 'baseline' needs the baseline activation a_bsl")
    gaussian_std = settings.kind == "gaussian" and settings.unit == "neuron_std"
    if gaussian_std and scale is None:
        raise ValueError("perturbation unit 'neuron_std' needs each neuron's activation std")
    edits = {}
    sites = ffn_sites(model) if settings.kind == "gaussian" else []
    device = next(model.parameters()).device
    for layer, chosen in neurons.items():
        if settings.kind == "zero":
            edits[layer] = NeuronEdit(chosen, "set", 0.0, positions)
        elif settings.kind == "baseline":
            values = _layer_baseline(baseline, layer, settings.positions)[..., chosen]
            edits[layer] = NeuronEdit(chosen, "set", values, positions)
        else:
            unit = None
            if gaussian_std:
                unit = torch.as_tensor(np.asarray(scale[layer]), dtype=torch.float32)[chosen]
            generator = torch.Generator(device=device).manual_seed(
                _layer_seed(settings.seed, layer)
            )
            noise = _noise(settings, generator, sites[layer].width, chosen, unit)
            edits[layer] = NeuronEdit(chosen, "add", noise, positions)
    return edits


def grouped_perturbation_edits(
    model: torch.nn.Module,
    conditions: Sequence[Mapping[int, torch.Tensor]],
    settings: PerturbationSettings,
    *,
    positions: torch.Tensor | None = None,
    baseline: np.ndarray | torch.Tensor | None = None,
    scale: np.ndarray | torch.Tensor | None = None,
) -> dict[int, GroupedEdit]:
    """:func:`perturbation_edits` of several conditions (``{layer: neuron indices}``
    each) at once: per layer one :class:`GroupedEdit` whose group ``g`` perturbs
    ``conditions[g]``'s neurons, for a batch that holds each condition's rows in turn.

    A neuron gets what :func:`perturbation_edits` gives it: the same baseline value,
    and noise from the same generator (seeded by ``settings.seed`` and the layer), drawn
    for all the layer's neurons and shared by every condition, so that each condition's
    rows get exactly the noise of a pass of its own.
    """
    if settings.kind == "baseline" and baseline is None:
        raise ValueError("perturbation kind 'baseline' needs the baseline activation a_bsl")
    gaussian_std = settings.kind == "gaussian" and settings.unit == "neuron_std"
    if gaussian_std and scale is None:
        raise ValueError("perturbation unit 'neuron_std' needs each neuron's activation std")
    sites = ffn_sites(model)
    device = next(model.parameters()).device
    layers = sorted({layer for neurons in conditions for layer, n in neurons.items() if len(n)})
    edits = {}
    for layer in layers:
        width = sites[layer].width
        chosen = torch.zeros(len(conditions), width, dtype=torch.bool)
        for group, neurons in enumerate(conditions):
            chosen[group, torch.as_tensor(neurons.get(layer, []), dtype=torch.long)] = True
        if settings.kind == "zero":
            edits[layer] = GroupedEdit(chosen, "set", 0.0, positions)
        elif settings.kind == "baseline":
            values = _layer_baseline(baseline, layer, settings.positions)
            edits[layer] = GroupedEdit(chosen, "set", values, positions)
        else:
            unit = None
            if gaussian_std:
                unit = torch.as_tensor(np.asarray(scale[layer]), dtype=torch.float32)
            generator = torch.Generator(device=device).manual_seed(
                _layer_seed(settings.seed, layer)
            )
            noise = _noise(settings, generator, width, torch.arange(width), unit)
            edits[layer] = GroupedEdit(chosen, "add", noise, positions)
    return edits


def _layer_seed(seed: int, layer: int) -> int:
    """The seed of layer ``layer``'s noise generator in an evaluation seeded ``seed``."""
    return int(np.random.SeedSequence([seed, layer]).generate_state(1)[0])


def _noise(
    settings: PerturbationSettings,
    generator: torch.Generator,
    width: int,
    chosen: torch.Tensor,
    unit: torch.Tensor | None = None,
):
    """Draws of ``N(mean, sigma^2)`` for the ``chosen`` neurons, times each one's ``unit``
    (its std) if given. Every call draws for all ``width`` neurons of the layer and keeps
    the chosen ones, so a neuron's draw does not depend on which others are perturbed."""
    chosen = torch.as_tensor(chosen, dtype=torch.long)

    def draw(shape: torch.Size, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
        batch, positions, _ = shape
        size = (batch, 1 if settings.draw == "sample" else positions, width)
        noise = torch.randn(size, generator=generator, device=device, dtype=torch.float32)
        noise = noise[..., chosen.to(device)] * settings.sigma + settings.mean
        if unit is not None:
            noise = noise * unit.to(device)
        return noise.to(dtype)

    return draw


def noise_scale(baseline: Mapping[str, np.ndarray | torch.Tensor]) -> dict[str, np.ndarray]:
    """Each neuron's unit of ``neuron_std`` noise by the positions the noise is added at,
    float32 ``[layers, neurons]`` each, from a baseline file's tensors
    (``baseline.safetensors``, written by rule ``dump_activations``):

    - ``"all"``: ``all_positions_std``, the std over every (sample, position) pair
      (:func:`skillneurons.neurons.activations.position_std`);
    - ``"prompt"``: the std over every (sample, prompt token) pair, pooled from the
      per-token means ``m_t`` (``prompt``) and stds ``s_t`` (``prompt_std``,
      ``[layers, tokens, neurons]``): ``sqrt(mean_t(s_t^2 + m_t^2) - mean_t(m_t)^2)``.
    """
    mean = np.asarray(baseline["prompt"], dtype=np.float64)
    std = np.asarray(baseline["prompt_std"], dtype=np.float64)
    pooled = (std**2 + mean**2).mean(axis=1) - mean.mean(axis=1) ** 2
    return {
        "all": np.asarray(baseline["all_positions_std"], dtype=np.float32),
        "prompt": np.sqrt(np.clip(pooled, 0.0, None)).astype(np.float32),
    }


def positions_scale(
    scale: Mapping[str, np.ndarray] | None, settings: PerturbationSettings
) -> np.ndarray | None:
    """The ``[layers, neurons]`` std measured at ``settings.positions`` out of
    :func:`noise_scale`'s mapping (None when the noise needs no std)."""
    if settings.kind != "gaussian" or settings.unit != "neuron_std":
        return None
    if scale is None or settings.positions not in scale:
        measured = sorted(scale) if scale else []
        raise ValueError(
            f"neuron_std noise at positions {settings.positions!r} needs each neuron's "
            f"std measured there; it was measured at {measured}"
        )
    return scale[settings.positions]
