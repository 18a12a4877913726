"""Pruning a Transformer down to its skill neurons (paper A, §6.1, Table 4).

In the top ``layers_fraction`` of the layers (paper: the top 9 of RoBERTa-base's 12),
only the top ``keep`` fraction of a task's skill neurons stay active (paper: 2%);
every other neuron ``i`` of those layers is frozen at a constant activation ``c_i``
and, since it no longer depends on the input, merged into the output projection's
bias (Eq. 2 of paper A, ``FFN(x) = f(x K^T + b1) V + b2``):

    FFN(x) = f(x K_S^T + b1_S) V_S + (b2 + sum_{i not in S} c_i V_i),

with ``S`` the kept neurons. Each frozen neuron is folded exactly once and kept
neurons not at all (the original code added ``V c`` over *all* neurons, counting the
kept ones twice). The layer then really is smaller: its input projections lose the
rows and its output projection the columns of the frozen neurons
(:func:`skillneurons.models.sites.shrink_site`), so it runs faster.

Choices (config ``pruning``)
----------------------------
- Which neurons: ``pruning.scope`` ``per_layer`` (default) keeps the top ``keep`` of
  each pruned layer (the paper's 66.6% is a per-layer share and the original code
  selects per layer; RoBERTa-base: 61 of 3072 per layer); ``global`` keeps the top
  ``keep`` of the pruned layers' neurons taken together (same parameter count, uneven
  widths). Multi-class tasks
  take their subtasks' neurons in turn (§3.2).
- The frozen value ``c_i`` is one number per neuron applied at every position:
  ``prompt_mean`` (default; the original code) is the baseline activation of Eq. 3
  averaged over the prompt tokens, ``input_mean`` the mean activation over input
  tokens of the training samples (``input_mean_max`` baseline, token 0).

Files
-----
``model.safetensors``: the tensors of the pruned layers' FFN projections (state-dict
names; every other weight is the base checkpoint's), plus int64 ``kept/{layer}``
(the original neuron index of each kept neuron). ``model.json``: the base model's
settings, per-layer ``widths``, ``pruned_layers``, ``keep``, ``frozen_baseline`` and
parameter counts. :func:`load_pruned_model` rebuilds the model from the two; nothing
is pickled.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from skillneurons.infra.io import read_json, read_tensors, write_json, write_tensors
from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.loading import LoadedModel, load_model
from skillneurons.models.prompted import PromptedClassifier, write_prompt
from skillneurons.models.sites import ffn_sites, output_weight, shrink_site
from skillneurons.models.training import TrainingSettings, result_metrics, train
from skillneurons.neurons.ranking import Ranking

FROZEN_BASELINES = ("prompt_mean", "input_mean")


def pruned_layers(num_layers: int, layers_fraction: float) -> list[int]:
    """The top ``round(layers_fraction * num_layers)`` layers (half up), in order.

    Paper A prunes the top 9 of 12 layers (``layers_fraction = 0.75``); the fraction
    scales the choice to other depths (MiniLM-L6: the top 5 of 6).
    """
    if not 0.0 <= layers_fraction <= 1.0:
        raise ValueError(f"layers_fraction must be in [0, 1]; got {layers_fraction}")
    count = int(np.floor(layers_fraction * num_layers + 0.5))
    return list(range(num_layers - count, num_layers))


def kept_neurons(
    ranking: Ranking, layers: Sequence[int], keep: float, per_layer: bool
) -> dict[int, np.ndarray]:
    """Sorted int64 indices of the neurons kept in each pruned layer.

    Parameters
    ----------
    ranking : the task's ranking (``results/{model}/rankings/{task}.parquet``).
    layers : the pruned layers (:func:`pruned_layers`).
    keep : fraction of neurons kept, in (0, 1] (paper: 0.02), rounded half up, at
        least one: per layer when ``per_layer``, else over the pruned layers together.
    """
    chosen = ranking.top(float(keep), per_layer=per_layer, layers=layers)
    return {layer: np.sort(chosen[chosen[:, 0] == layer, 1]).astype(np.int64) for layer in layers}


def frozen_values(baselines: Mapping[str, torch.Tensor], frozen_baseline: str) -> torch.Tensor:
    """One constant activation per neuron, ``[layers, neurons]`` float32.

    ``baselines`` is a ``baseline.safetensors`` file's tensors: ``prompt``
    ``[layers, tokens, neurons]`` (Eq. 3 per prompt token) and ``input_mean_max``
    ``[layers, 2, neurons]``. ``prompt_mean`` averages ``prompt`` over the prompt tokens
    (the original code's choice); ``input_mean`` takes the mean over input tokens.
    """
    if frozen_baseline == "prompt_mean":
        return baselines["prompt"].float().mean(dim=1)
    if frozen_baseline == "input_mean":
        return baselines["input_mean_max"].float()[:, 0]
    raise ValueError(f"frozen_baseline {frozen_baseline!r} is unknown; use {FROZEN_BASELINES}")


def folded_bias_shift(
    output_weight: torch.Tensor, kept: torch.Tensor, values: torch.Tensor
) -> torch.Tensor:
    """``sum_{i not in kept} c_i V_i`` ``[hidden]``: the frozen neurons' constant output.

    ``output_weight`` is ``V^T`` ``[hidden, width]``, ``values`` ``c`` ``[width]``. Each
    frozen neuron is counted once and each kept neuron not at all. Summed in float64.
    """
    mask = torch.ones(output_weight.shape[1], dtype=torch.bool)
    mask[torch.as_tensor(kept, dtype=torch.long)] = False
    frozen = mask.nonzero().squeeze(1).to(output_weight.device)
    weight = output_weight.detach().double().index_select(1, frozen)
    shift = weight @ values.to(device=weight.device, dtype=torch.float64).index_select(0, frozen)
    return shift.to(output_weight.dtype)


def prune_model(
    model: torch.nn.Module, kept: Mapping[int, np.ndarray], values: torch.Tensor
) -> list[int]:
    """Prune ``model`` in place: layer ``l`` keeps ``kept[l]``, the others are frozen at
    ``values[l]`` ``[neurons]`` and folded into the output bias. Returns per-layer widths.
    """
    sites = ffn_sites(model)
    for layer, neurons in kept.items():
        index = torch.as_tensor(np.asarray(neurons), dtype=torch.long)
        shift = folded_bias_shift(output_weight(sites[layer]), index, values[layer])
        shrink_site(model, layer, index, shift)
    return [site.width for site in ffn_sites(model)]


def parameter_count(model: torch.nn.Module) -> int:
    """Distinct parameters of ``model`` (tied weights counted once)."""
    return sum(parameter.numel() for parameter in model.parameters())


def _module_names(model: torch.nn.Module) -> dict[int, str]:
    return {id(module): name for name, module in model.named_modules()}


def pruned_tensors(model: torch.nn.Module, layers: Sequence[int]) -> dict[str, torch.Tensor]:
    """State-dict entries of the FFN projections of ``layers`` (what pruning changed)."""
    names = _module_names(model)
    sites = ffn_sites(model)
    tensors = {}
    for layer in layers:
        site = sites[layer]
        for module in (*site.input_projections, site.output_projection):
            prefix = names[id(module)]
            for name, tensor in module.state_dict().items():
                tensors[f"{prefix}.{name}"] = tensor
    return tensors


def save_pruned_model(
    tensors_path: str,
    config_path: str,
    model: torch.nn.Module,
    kept: Mapping[int, np.ndarray],
    config: Mapping[str, object],
) -> None:
    """Write ``model.safetensors`` and ``model.json`` (see the module docstring).

    ``config`` must hold ``base`` (the keyword arguments of
    :func:`skillneurons.models.loading.load_model` that built the unpruned model) and may add
    anything JSON-serialisable (keep, frozen_baseline, parameter counts, ...).
    """
    layers = sorted(kept)
    tensors = pruned_tensors(model, layers)
    tensors.update(
        {
            f"kept/{layer}": torch.as_tensor(np.asarray(kept[layer]), dtype=torch.long)
            for layer in layers
        }
    )
    payload = {
        **config,
        "widths": [site.width for site in ffn_sites(model)],
        "pruned_layers": layers,
    }
    write_tensors(tensors_path, tensors, {"pruned_layers": layers})
    write_json(config_path, payload)


def load_pruned_model(
    tensors_path: str, config_path: str, base: LoadedModel | None = None
) -> tuple[LoadedModel, dict]:
    """Rebuild a pruned model from :func:`save_pruned_model`'s files.

    Loads the base model (``config["base"]``; or copies ``base``, the same model
    already loaded), shrinks each pruned layer to its saved width and loads the saved
    projections. Returns the model and the config.
    """
    config = read_json(config_path)
    loaded = load_model(**config["base"]) if base is None else _copy(base)
    tensors = read_tensors(tensors_path)
    for layer in config["pruned_layers"]:
        weight = output_weight(ffn_sites(loaded.model)[layer])
        width = config["widths"][layer]
        shrink_site(loaded.model, layer, torch.arange(width), weight.new_zeros(weight.shape[0]))
    weights = {name: value for name, value in tensors.items() if not name.startswith("kept/")}
    missing = sorted(set(weights) - set(loaded.model.state_dict()))
    if missing:
        raise ValueError(f"{tensors_path}: tensors {missing[:3]} are not in the model")
    loaded.model.load_state_dict(weights, strict=False)
    widths = [site.width for site in ffn_sites(loaded.model)]
    if widths != config["widths"]:
        raise ValueError(f"{config_path}: rebuilt widths {widths} differ from {config['widths']}")
    return loaded, config


def _copy(loaded: LoadedModel) -> LoadedModel:
    model = copy.deepcopy(loaded.model)
    return LoadedModel(
        model=model, tokenizer=loaded.tokenizer, kind=loaded.kind, source=loaded.source
    )


def pruned_copy(
    loaded: LoadedModel, kept: Mapping[int, np.ndarray], values: torch.Tensor
) -> LoadedModel:
    """A pruned deep copy of ``loaded`` (the original stays untouched)."""
    pruned = _copy(loaded)
    prune_model(pruned.model, kept, values)
    return pruned


def retuning_settings(
    prompt_tuning: Mapping[str, object], pruning: Mapping[str, object], seed: int
) -> TrainingSettings:
    """Training settings of re-tuning: steps, evaluation and patience from the config's
    ``pruning`` block, learning rate and batch sizes from ``prompt_tuning``."""
    return TrainingSettings.from_config(
        {
            **prompt_tuning,
            **{key: pruning[key] for key in ("max_steps", "eval_every", "patience")},
        },
        seed,
    )


def retune_prompts(
    loaded: LoadedModel,
    encoded: Mapping[str, EncodedSplit],
    *,
    label_words: Sequence[str],
    prompt_length: int,
    init_std: float,
    initial_prompts: torch.Tensor | None,
    training: TrainingSettings,
    progress: bool = False,
) -> tuple[PromptedClassifier, dict]:
    """Prompt tuning on a pruned model (paper A, §6.1): the same loop as §2.1.

    ``encoded`` holds the ``train``, ``dev`` and ``test`` splits. The prompts start
    from ``initial_prompts`` ``[l, hidden]`` (the trial's prompts tuned on the unpruned
    model, as the original code resumes from them) or, when None, from a fresh normal
    draw with ``training.seed``. Returns the classifier (best dev state) and metrics:
    dev curve, best step, steps, dev and test accuracy.
    """
    classifier = PromptedClassifier(
        loaded, label_words, prompt_length, init_std=init_std, seed=training.seed
    )
    if initial_prompts is not None:
        classifier.load_prompt_state({"prompts": initial_prompts.to(classifier.prompts.dtype)})
    pad_id = classifier.pad_id
    result = train(
        classifier, encoded["train"], encoded["dev"], training, pad_id, progress=progress
    )
    metrics = {
        **result_metrics(classifier, result, encoded["test"], training.eval_batch_size, pad_id),
    }
    return classifier, metrics


@dataclass(frozen=True)
class PruningSettings:
    """How a trial is pruned and re-tuned (paper A, §6.1, Table 4).

    Config keys: ``pruning.layers_fraction`` (the top fraction of the layers pruned,
    :func:`pruned_layers`), ``pruning.keep`` (the fraction of skill neurons kept,
    :func:`kept_neurons`), ``pruning.frozen_baseline`` (the frozen value ``c_i``,
    :func:`frozen_values`), ``pruning.prompt_init`` (``tuned``: re-tuning starts from
    the trial's tuned prompts; else a fresh draw), ``pruning.scope`` (``per_layer``:
    ``keep`` within each pruned layer, else over them together) and
    ``prompt_tuning.init_std`` (the fresh draw's standard deviation). The re-tuning's
    steps, evaluation and patience travel apart, as :func:`retuning_settings`.
    """

    layers_fraction: float
    keep: float
    frozen_baseline: str
    prompt_init: str
    per_layer: bool
    init_std: float

    @classmethod
    def from_config(
        cls, pruning: Mapping[str, object], *, per_layer: bool, init_std: float
    ) -> PruningSettings:
        """The settings of a ``pruning`` config block (other keys ignored), with
        ``per_layer`` (``pruning.scope == "per_layer"``) and ``prompt_tuning.init_std``."""
        return cls(
            layers_fraction=pruning["layers_fraction"],
            keep=pruning["keep"],
            frozen_baseline=pruning["frozen_baseline"],
            prompt_init=pruning["prompt_init"],
            per_layer=per_layer,
            init_std=init_std,
        )


@dataclass(frozen=True)
class PrunedTrialFiles:
    """Where one pruned trial goes: ``model.safetensors`` and ``model.json`` (the pruned
    model, :func:`save_pruned_model`), the re-tuned ``prompt.safetensors`` and
    ``metrics.json``."""

    model: str
    config: str
    prompt: str
    metrics: str


def prune_trial(
    base: LoadedModel,
    ranking: Ranking,
    baselines: Mapping[str, torch.Tensor],
    tuned_prompts: torch.Tensor,
    encoded: Mapping[str, EncodedSplit],
    files: PrunedTrialFiles,
    *,
    settings: PruningSettings,
    training: TrainingSettings,
    label_words: Sequence[str],
    identity: Mapping[str, object],
    base_settings: Mapping[str, object],
) -> dict:
    """Prune ``base`` to a task's skill neurons for one trial, re-tune its prompts and
    write the trial's files (paper A, §6.1, Table 4).

    The top ``settings.keep`` skill neurons of ``ranking`` stay in the top
    ``settings.layers_fraction`` of the layers (:func:`kept_neurons`); the others are
    frozen at the trial's baseline (``baselines``, a ``baseline.safetensors`` file's
    tensors; :func:`frozen_values`) and folded into the output bias. The prompts
    re-tuned on the pruned model with ``training`` (:func:`retuning_settings`; its seed
    is the trial's) start from the trial's ``tuned_prompts`` (``prompt_init``
    ``tuned``) or a fresh draw. ``identity`` (model, task, trial) heads every file;
    ``base_settings`` are ``base``'s :func:`load_model` settings, stored so that the
    pruned model can be rebuilt. Returns the metrics.
    """
    layers = pruned_layers(len(ffn_sites(base.model)), settings.layers_fraction)
    kept = kept_neurons(ranking, layers, settings.keep, settings.per_layer)
    values = frozen_values(baselines, settings.frozen_baseline)
    pruned = pruned_copy(base, kept, values)
    classifier, metrics = retune_prompts(
        pruned,
        encoded,
        label_words=label_words,
        prompt_length=tuned_prompts.shape[0],
        init_std=settings.init_std,
        initial_prompts=tuned_prompts if settings.prompt_init == "tuned" else None,
        training=training,
    )
    original, count = parameter_count(base.model), parameter_count(pruned.model)
    sizes = {"parameters": count, "original_parameters": original}
    sizes["parameter_fraction"] = count / original
    config = {**identity, "base": dict(base_settings), **sizes}
    config.update(
        {
            "keep": settings.keep,
            "layers_fraction": settings.layers_fraction,
            "frozen_baseline": settings.frozen_baseline,
        }
    )
    save_pruned_model(files.model, files.config, pruned.model, kept, config)
    write_prompt(files.prompt, classifier, {**identity, "seed": training.seed, "pruned": True})
    metrics = {**identity, **metrics, **sizes, "seed": training.seed}
    write_json(files.metrics, metrics)
    return metrics


def pruning_table(
    prompt_metrics: Sequence[Mapping],
    pruned_metrics: Sequence[Mapping],
    speed: Mapping[str, Sequence[Mapping]],
) -> pd.DataFrame:
    """Table A-T4: prompt tuning vs prompt tuning on the pruned model, per task.

    ``prompt_metrics`` and ``pruned_metrics`` are per-trial dicts with ``task`` and
    ``test_accuracy`` (the pruned ones also ``parameter_fraction``); ``speed`` maps a
    task to its per-trial :func:`skillneurons.paper_a.speed.compare_speed` results. Accuracy is
    "mean ± std" over trials in %; parameter fraction, speedup (wall clock), CPU-time
    speedup, FLOP bound, work bound (which also counts, in operations, the work pruning
    cannot remove: :func:`skillneurons.paper_a.speed.elementwise_ops`) and time bound
    (which measures that work: :func:`skillneurons.paper_a.speed.floor_classifier`) are
    means over trials; ``efficiency``, ``work_efficiency`` and ``time_efficiency`` are
    speedup / each bound.
    """
    from skillneurons.reporting.stats import accuracy_summary

    rows = []
    for task in dict.fromkeys(m["task"] for m in prompt_metrics):
        tuned = [m["test_accuracy"] for m in prompt_metrics if m["task"] == task]
        pruned = [m for m in pruned_metrics if m["task"] == task]
        pt_mean, pt_std, pt_text = accuracy_summary(tuned)
        pr_mean, pr_std, pr_text = accuracy_summary([m["test_accuracy"] for m in pruned])
        speedup = float(np.mean([s["speedup"] for s in speed[task]]))
        cpu_speedup = float(np.mean([s["cpu_speedup"] for s in speed[task]]))
        bound = float(np.mean([s["flop_bound"] for s in speed[task]]))
        work_bound = float(np.mean([s["work_bound"] for s in speed[task]]))
        time_bound = float(np.mean([s["time_bound"] for s in speed[task]]))
        rows.append(
            {
                "task": task,
                "trials": len(tuned),
                "prompt_tuning": pt_text,
                "pruned": pr_text,
                "parameter_fraction": float(np.mean([m["parameter_fraction"] for m in pruned])),
                "speedup": speedup,
                "cpu_speedup": cpu_speedup,
                "flop_bound": bound,
                "efficiency": speedup / bound,
                "work_bound": work_bound,
                "work_efficiency": speedup / work_bound,
                "time_bound": time_bound,
                "time_efficiency": speedup / time_bound,
                "prompt_tuning_mean": pt_mean,
                "prompt_tuning_std": pt_std,
                "pruned_mean": pr_mean,
                "pruned_std": pr_std,
            }
        )
    return pd.DataFrame(rows)
