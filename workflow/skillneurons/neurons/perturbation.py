"""Perturbing neurons in a given order and measuring accuracy (paper A, §4.2, appendix D/H).

Paper A perturbs "the top x% neurons" in the descending predictivity order of a
source task (or in random order) by adding Gaussian noise (mu 0, sigma 0.1) to their
activations, and plots the evaluation task's accuracy against the perturbation rate
x (Figures 4, 11, 12, 13, 15). This module does that for any classifier:

- a **neuron order** is a 1-D int64 array of *flat neuron ids* over every FFN site of
  the classifier's backbone (:func:`skillneurons.models.sites.ffn_sites`): the id of
  neuron ``n`` of layer ``l`` is ``sum(widths[:l]) + n``, i.e. ``l * width + n`` when
  all layers are equally wide (every supported model).
  :meth:`skillneurons.neurons.ranking.Ranking.order` turns a ranking into one,
  :func:`random_orders` draws seeded random ones, and
  :func:`skillneurons.neurons.ranking.split_flat` maps a prefix back to
  ``{layer: neurons}``;
- rate ``r`` perturbs the first ``round(r * N)`` neurons of the order (N = all
  neurons, rounded half up; :func:`perturbed_count`);
- the perturbation (:class:`PerturbationSettings`) is applied by
  :func:`skillneurons.neurons.hooks.edit_activations` at the input of each FFN output
  projection, so only the chosen neurons change and everything else is bit-identical;
- :func:`sweep_orders` returns every order's accuracy at every rate; rate 0 installs
  no hook at all and reproduces the unperturbed accuracy exactly.

Defaults follow the original code (THU-KEG/Skill-Neuron, ``addmask``), the only
description more precise than the paper's text: noise is added at **every** position
of the sequence (``positions="all"``), with **one draw per sample and neuron** shared
by all positions (``draw="sample"``). ``positions="prompt"`` (only the soft-prompt
positions where predictivity is measured) and ``draw="position"`` (independent noise
at every position) are the alternatives. ``kind="zero"`` sets the activations to 0
and ``kind="baseline"`` to the baseline activation ``a_bsl`` (Eq. 3), both also in the
original code.

Paper A (§4.2) adds the noise "into the neurons' activations" in absolute units
(sigma 0.1) and measures no std. With ``unit="neuron_std"`` (ours) sigma is a multiple
of each neuron's activation std, and that std is measured **where the noise is
applied** (:func:`noise_scale`): for ``positions="all"``, over every position the
backbone reads (``[MASK]``, soft prompts, input tokens; not the padding, which no real
position attends to, so noise there changes nothing), pooled over the baseline samples
(:func:`skillneurons.neurons.activations.position_std`); for ``positions="prompt"``,
over the soft-prompt positions, pooled the same way.

Common random numbers: the noise of a (sample, neuron) pair is the same in every order
and at every rate, so curve differences carry no noise of their own. Each layer draws
from its own generator, seeded with ``settings.seed`` and the layer at the start of
every evaluation, a value for **every** neuron of the layer (then keeps the perturbed
ones), batch after batch in the fixed batch order of
:func:`skillneurons.models.training.predict`; which neurons are perturbed never changes
what a neuron draws.

Which classifiers: any module whose ``forward(input_ids, attention_mask, ...)`` returns
label logits ``[batch, labels]`` (what :func:`skillneurons.models.training.predict` calls) and
that contains a backbone with FFN sites: prompt-tuned, adapter or BitFit models.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from skillneurons.infra.io import read_tensors, write_frame_parquet
from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.loading import LoadedModel
from skillneurons.models.prompted import classifier_from_prompt_file
from skillneurons.models.sites import ffn_sites
from skillneurons.models.training import predict
from skillneurons.neurons.curve_table import CURVE_COLUMNS, LAYER_MATCHED
from skillneurons.neurons.hooks import NeuronEdit, edit_activations
from skillneurons.neurons.ranking import Ranking, interleave_layers, layer_offsets, split_flat
from skillneurons.neurons.selectivity import selectivity_order

LOG = logging.getLogger(__name__)

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
        evaluation (common random numbers, the module docstring).
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


# --------------------------------------------------------------------------- orders


def random_orders(total: int, count: int, seed: int) -> list[np.ndarray]:
    """``count`` random permutations of ``range(total)`` (int64), reproducible from ``seed``."""
    generator = np.random.default_rng(seed)
    return [generator.permutation(total).astype(np.int64) for _ in range(count)]


def layer_matched_orders(
    order: np.ndarray, widths: Sequence[int], count: int, seed: int
) -> list[np.ndarray]:
    """``count`` random orders with the layer of ``order`` at every position: each prefix
    perturbs as many neurons of each layer as ``order``'s prefix (the control a
    layer-concentrated order must be compared with), the neurons within each layer
    drawn at random. Reproducible from ``seed``."""
    order = np.asarray(order, dtype=np.int64)
    offsets = layer_offsets(widths)
    layer = np.searchsorted(offsets, order, side="right") - 1
    generator = np.random.default_rng(seed)
    matched = []
    for _ in range(count):
        drawn = np.empty_like(order)
        for index, width in enumerate(widths):
            where = layer == index
            drawn[where] = offsets[index] + generator.permutation(width)[: int(where.sum())]
        matched.append(drawn)
    return matched


def perturbed_count(rate: float, total: int) -> int:
    """``round(rate * total)``, half up: the number of neurons perturbed at ``rate``."""
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"perturbation rate must lie in [0, 1]; got {rate}")
    return int(np.floor(rate * total + 0.5))


# --------------------------------------------------------------------------- edits


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
    neurons : ``{layer: neuron indices}`` (:func:`split_flat`).
    settings : what to do to them.
    positions : 1-D sequence positions to edit, or ``None`` for every position.
    baseline : ``[layers, neurons]`` or ``[layers, tokens, neurons]`` ``a_bsl`` (needed
        for ``kind="baseline"``; with ``positions`` given, ``tokens`` must match them).
    scale : ``[layers, neurons]`` each neuron's activation std at ``positions`` (needed
        for the ``neuron_std`` unit of Gaussian noise; :func:`noise_scale`).

    Gaussian noise comes from one generator per layer, seeded with ``settings.seed``
    and the layer here (the module docstring: common random numbers).
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


# --------------------------------------------------------------------------- curves


def _edit_positions(classifier: torch.nn.Module, settings: PerturbationSettings):
    if settings.positions == "all":
        return None
    positions = getattr(classifier, "prompt_positions", None)
    if positions is None:
        raise ValueError(
            f"perturbation positions 'prompt' need a prompted classifier; "
            f"{type(classifier).__name__} has no prompt_positions (use positions 'all')"
        )
    return positions


def perturbed_predictions(
    classifier: torch.nn.Module,
    split: EncodedSplit,
    neurons: Mapping[int, np.ndarray | torch.Tensor],
    settings: PerturbationSettings,
    pad_id: int,
    batch_size: int,
    baseline: np.ndarray | torch.Tensor | None = None,
    scale: np.ndarray | torch.Tensor | None = None,
) -> torch.Tensor:
    """Predicted labels ``[samples]`` on ``split`` while ``neurons`` (``{layer:
    indices}``) are perturbed. With no neurons no hook is installed, so the result is
    the unperturbed prediction."""
    if not any(len(chosen) for chosen in neurons.values()):
        return predict(classifier, split, batch_size, pad_id)
    edits = perturbation_edits(
        classifier,
        neurons,
        settings,
        positions=_edit_positions(classifier, settings),
        baseline=baseline,
        scale=scale,
    )
    with edit_activations(classifier, edits):
        return predict(classifier, split, batch_size, pad_id)


def perturbed_accuracy(
    classifier: torch.nn.Module,
    split: EncodedSplit,
    neurons: Mapping[int, np.ndarray | torch.Tensor],
    settings: PerturbationSettings,
    pad_id: int,
    batch_size: int,
    baseline: np.ndarray | torch.Tensor | None = None,
    scale: np.ndarray | torch.Tensor | None = None,
) -> float:
    """Accuracy on ``split`` while ``neurons`` are perturbed (:func:`perturbed_predictions`)."""
    predicted = perturbed_predictions(
        classifier, split, neurons, settings, pad_id, batch_size, baseline, scale
    )
    return (predicted == split.labels).float().mean().item()


@dataclass(frozen=True)
class NamedOrder:
    """An order to sweep: its name (a source task, ``random``, ``selectivity``), its type
    (``task``, ``random`` or ``selectivity``), the repeat index of random orders, ids."""

    name: str
    order_type: str
    order: np.ndarray
    repeat: int = 0


def sweep_orders(
    classifier: torch.nn.Module,
    split: EncodedSplit,
    orders: Sequence[NamedOrder],
    rates: Sequence[float],
    settings: PerturbationSettings,
    pad_id: int,
    batch_size: int,
    baseline: np.ndarray | torch.Tensor | None = None,
    scale: np.ndarray | torch.Tensor | None = None,
) -> pd.DataFrame:
    """Accuracy on ``split`` at each rate, perturbing the first ``round(rate * N)`` neurons
    of each order (paper A, Figures 4, 11-13, 15), as one table: the columns
    :data:`CURVE_COLUMNS` and ``correct`` (bool ``[samples]`` per row, in split order:
    which predictions were right, for the findings' paired bootstrap).

    ``orders`` hold int64 ``[N]`` flat neuron ids, most important first (see the module
    docstring); ``classifier`` returns label logits and contains the backbone whose FFN
    sites are perturbed; ``baseline`` is ``a_bsl`` for ``kind="baseline"`` and ``scale``
    each neuron's std for the ``neuron_std`` unit (:func:`perturbation_edits`).

    The unperturbed predictions (rate 0, and any rate that perturbs no neuron) are
    computed once and shared by all orders.
    """
    widths = [site.width for site in ffn_sites(classifier)]
    total = int(sum(widths))
    unperturbed = None
    rows, correct = [], []
    for named in orders:
        if np.asarray(named.order).shape != (total,):
            raise ValueError(
                f"order {named.name!r} must hold all {total} flat neuron ids; "
                f"got shape {np.asarray(named.order).shape}"
            )
        for rate in rates:
            count = perturbed_count(rate, total)
            if count == 0:
                if unperturbed is None:
                    unperturbed = predict(classifier, split, batch_size, pad_id)
                predicted = unperturbed
            else:
                neurons = split_flat(named.order[:count], widths)
                predicted = perturbed_predictions(
                    classifier, split, neurons, settings, pad_id, batch_size, baseline, scale
                )
            right = (predicted == split.labels).numpy()
            rows.append(
                (named.name, named.order_type, named.repeat, float(rate), count, right.mean())
            )
            correct.append(right)
    frame = pd.DataFrame(rows, columns=list(CURVE_COLUMNS)).astype(CURVE_COLUMNS)
    frame["correct"] = pd.Series(correct, dtype=object)
    return frame


# --------------------------------------------------------------------------- files


def perturbation_orders(
    rankings: Mapping[str, Ranking],
    selectivity: np.ndarray | None,
    random_count: int,
    seed: int,
    scope: str = "global",
    matched_to: str | None = None,
    uniform_count: int | None = None,
) -> list[NamedOrder]:
    """The orders one evaluation job sweeps (Figures 4, 11, 15).

    Parameters
    ----------
    rankings : source task -> its ranking (predictivity order, :meth:`Ranking.order`).
    selectivity : ``[layers, neurons]`` selectivity index of the evaluation task
        (:mod:`skillneurons.neurons.selectivity`), or None to leave that order out.
    random_count : number of layer-matched random orders, and of uniform random ones
        (drawn with ``seed``, :func:`random_orders`) unless ``uniform_count`` is set.
    scope : ``"global"`` or ``"per_layer"`` (config ``ranking.scope``), applied to every
        order so that all of them perturb the same number of neurons per layer.
    matched_to : the source task (a key of ``rankings``, normally the evaluation task)
        whose order the layer-matched random orders follow (:func:`layer_matched_orders`,
        named ``random_layer_matched``, type :data:`LAYER_MATCHED`); None: none.
    uniform_count : number of uniform random orders (the paper's control, drawn in
        every layer); None: ``random_count``.
    """
    orders = [NamedOrder(task, "task", ranking.order(scope)) for task, ranking in rankings.items()]
    if selectivity is not None:
        layers, neurons = np.shape(selectivity)
    elif rankings:
        layers, neurons = next(iter(rankings.values())).shape
    else:
        raise ValueError("perturbation orders need at least one ranking or a selectivity index")
    widths = [neurons] * layers
    if selectivity is not None:
        order = selectivity_order(selectivity)
        if scope == "per_layer":
            order = interleave_layers(order, widths)
        orders.append(NamedOrder("selectivity", "selectivity", order))
    uniform = random_count if uniform_count is None else uniform_count
    for repeat, order in enumerate(random_orders(layers * neurons, uniform, seed)):
        if scope == "per_layer":
            order = interleave_layers(order, widths)
        orders.append(NamedOrder("random", "random", order, repeat))
    if matched_to is not None:
        own = rankings[matched_to].order(scope)
        matched = layer_matched_orders(own, widths, random_count, seed + 1)
        for repeat, order in enumerate(matched):
            orders.append(NamedOrder("random_layer_matched", LAYER_MATCHED, order, repeat))
    return orders


def trial_curve_frame(table: pd.DataFrame, eval_task: str, trial: int, kind: str) -> pd.DataFrame:
    """:func:`sweep_orders`' table with its identity: the columns of a perturbation file.

    Columns: ``eval_task`` (string), ``order``, ``order_type``, ``repeat``, ``trial``
    (int64), ``rate``, ``perturbed``, ``accuracy``, ``correct`` (per sample) and ``kind``
    (the perturbation kind).
    """
    frame = table.copy()
    frame.insert(0, "eval_task", pd.array([eval_task] * len(frame), dtype="string"))
    frame.insert(4, "trial", np.full(len(frame), trial, dtype=np.int64))
    frame["kind"] = pd.array([kind] * len(frame), dtype="string")
    return frame


def perturb_trial(
    classifier: torch.nn.Module,
    split,
    orders: Sequence[NamedOrder],
    *,
    rates: Sequence[float],
    settings: Mapping[str, object],
    seed: int,
    batch_size: int,
    baseline=None,
    scale=None,
    eval_task: str,
    trial: int,
) -> pd.DataFrame:
    """Sweep every order and rate on one tuned trial: its rows of a perturbation file
    (:func:`trial_curve_frame`). ``settings`` is the config's perturbation block
    without the seed, ``seed`` the trial's noise seed, ``scale`` each neuron's std by
    the positions it was measured at (:func:`noise_scale`; the ``neuron_std`` unit
    reads the one measured at ``settings["positions"]``)."""
    perturbation = PerturbationSettings(**settings, seed=seed)
    LOG.info(
        "trial %d: %d orders x %d rates on %d test samples",
        trial,
        len(orders),
        len(rates),
        len(split),
    )
    table = sweep_orders(
        classifier,
        split,
        orders,
        rates,
        perturbation,
        classifier.pad_id,
        batch_size,
        baseline,
        positions_scale(scale, perturbation),
    )
    return trial_curve_frame(table, eval_task, trial, perturbation.kind)


@dataclass(frozen=True)
class TrialModel:
    """One trained trial to perturb: its classifier, the encoded evaluation split, the
    trial's noise seed (also the seed of its random orders) and, for the ``baseline``
    kind, its ``a_bsl``, for the ``neuron_std`` unit each neuron's activation std
    ``[layers, neurons]`` by the positions it was measured at (``"all"``,
    ``"prompt"``: :func:`noise_scale`)."""

    trial: int
    seed: int
    classifier: torch.nn.Module
    split: EncodedSplit
    baseline: np.ndarray | None = None
    scale: Mapping[str, np.ndarray] | None = None

    def perturb(
        self,
        orders: Sequence[NamedOrder],
        *,
        rates: Sequence[float],
        settings: Mapping[str, object],
        batch_size: int,
        eval_task: str,
    ) -> pd.DataFrame:
        """:func:`perturb_trial` on this trial, with its seed, baseline and scale."""
        return perturb_trial(
            self.classifier,
            self.split,
            orders,
            rates=rates,
            settings=settings,
            seed=self.seed,
            batch_size=batch_size,
            baseline=self.baseline,
            scale=self.scale,
            eval_task=eval_task,
            trial=self.trial,
        )


def prompt_tuned_trials(
    loaded: LoadedModel,
    split: EncodedSplit,
    prompts: Sequence[str],
    baselines: Sequence[str],
    trials: Sequence[int],
    seeds: Sequence[int],
) -> Iterator[TrialModel]:
    """One task's prompt-tuned trials to perturb, loaded one at a time: each trial's
    classifier from its prompt file, its ``a_bsl`` (Eq. 3) and activation stds (the unit
    of ``neuron_std``, :func:`noise_scale`) from its baseline file."""
    for trial, prompt, baseline_path, seed in zip(trials, prompts, baselines, seeds, strict=True):
        baseline = read_tensors(baseline_path)
        yield TrialModel(
            trial,
            seed,
            classifier_from_prompt_file(loaded, prompt),
            split,
            baseline["prompt"].numpy(),
            noise_scale(baseline),
        )


#: The keyword options of :func:`write_perturbation_file` that a curve rule's params
#: carry under the same names.
CURVE_OPTIONS = ("rates", "settings", "random_orders", "uniform_orders", "scope", "batch_size")


def write_perturbation_file(
    path: str,
    trials: Iterable[TrialModel],
    rankings: Mapping[str, Ranking],
    selectivity: np.ndarray | None,
    identity: Mapping[str, object],
    *,
    sample_idx: Sequence[int],
    rates: Sequence[float],
    settings: Mapping[str, object],
    random_orders: int,
    uniform_orders: int | None,
    scope: str,
    batch_size: int,
) -> None:
    """Sweep every trial in every order (:func:`perturbation_orders`) and rate, and write
    one evaluation task's perturbation file atomically as Parquet:
    ``results/{model}/perturbation/{eval_task}.parquet`` (or a tuning method's).

    Rows are :func:`perturb_trial`'s for every trial; the layer-matched random orders
    follow the evaluation task's own order. ``identity`` names the file (``model``,
    ``eval_task`` and e.g. ``method``); the metadata also holds the evaluated samples
    (``sample_idx``: their ``idx`` in the split, the order of every row's ``correct``),
    the rates, the perturbation settings, the trials with their noise seeds and the
    ranking scope. ``trials`` may be a generator that loads each model in turn.
    """
    eval_task = str(identity["eval_task"])
    matched_to = eval_task if eval_task in rankings else None
    frames, seeds = [], []
    for model in trials:
        orders = perturbation_orders(
            rankings, selectivity, random_orders, model.seed, scope, matched_to, uniform_orders
        )
        frames.append(
            model.perturb(
                orders, rates=rates, settings=settings, batch_size=batch_size, eval_task=eval_task
            )
        )
        seeds.append(model.seed)
    frame = pd.concat(frames, ignore_index=True)
    metadata = {
        **identity,
        "samples": len(sample_idx),
        "sample_idx": [int(i) for i in sample_idx],
        "rates": list(rates),
        "settings": dict(settings),
        "trials": sorted(int(trial) for trial in frame["trial"].unique()),
        "seeds": seeds,
        "scope": scope,
    }
    write_frame_parquet(path, frame, metadata)
