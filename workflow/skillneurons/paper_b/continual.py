"""Neuron-level continual fine-tuning (paper B, §6, appendix A.2, Tables 5 and 12-14,
Figure 4): B-T5 and B-F4.

The tasks of an order are learnt one after another, each stage starting from the model
the previous stage left; after every stage the tasks learnt so far are tested. Methods
(the keys of :data:`skillneurons.paper_b.continual_report.CONTINUAL_NAMES`, their one registry):

``seqft``     full fine-tuning on each task in turn (the word embeddings frozen, as in
              the multi-task model);
``seqlora``   one set of LoRA adapters (``peft``) on every layer's attention query and
              value projections, trained on each task in turn with the base weights
              frozen (Table 5's SeqLoRA, the sequential baseline of O-LoRA);
``ncft``      at each stage only the current task's top ``k``% neurons, found on the
              current model, are trained (:class:`NeuronDeltas`, folded into the weights
              after the stage); a neuron may belong to several tasks' sets;
``wncft``     NCFT's model, tested with every neuron of the tasks learnt so far set from
              the snapshots of the stages whose sets hold it, weighted by the test
              task's similarity to each stage's task (A.2, Eqs. 10-12, below);
``wncft_uniform``  the control of W-NCFT's weighting (ours; not in paper B): the same
              snapshots combined the same way (Eq. 12, the same ``combine``), every
              learnt stage weighing ``1/i`` instead of Eq. 11's softmax of
              similarities. W-NCFT above it says the similarity weighting helps, not
              the weighting of snapshots as such. It reuses NCFT's training (no extra
              training: one more test evaluation per learnt task and stage, as many as
              W-NCFT's);
``per_task``  one model per task, fully fine-tuned from the base model alone (the upper
              reference ``A_i`` of Eq. 5).

**W-NCFT** (A.2). A task's vector ``fea`` is the mean over its samples of the mean
last-layer hidden state over the sample's real tokens, on the base model (Eq. 10's
features; ``paper_b.continual.feature_samples`` training samples). Testing task ``j``
after stage ``i``, the weights are ``w_k = Softmax_k(cos(fea_j, fea_k) / T)`` over the
stages ``k <= i`` (Eq. 11), normalised to sum to 1 over the learnt stages, as a softmax
is. ``T`` is ``paper_b.continual.temperature``, default 1: paper B writes a plain
softmax. Cosines lie in [-1, 1], so at ``T = 1`` two stages' weights differ by a factor
of at most ``e^2`` (7.4), and tasks whose vectors are alike (cosines near 1, as
mean-pooled features of one model tend to be) get nearly uniform weights, W-NCFT then
being close to its uniform-weight control. The temperature is not tuned to make a claim
hold; each stage's weights are in NCFT's JSON (``wncft_weights``).

Each neuron ``n`` of any stage's set takes Eq. 12 as written, ``W' = Σ_k Sim_j[k] x
W_task-k`` with stage ``k``'s matrix its set's columns and zero elsewhere:
``θ'_n = Σ_{k∋n} w_k θ_n^(k)`` (``combine: literal``, default), ``θ_n^(k)`` the
neuron's parameters (all its places, or its output column alone with
``paper_b.parameters: output_only``) stored right after stage ``k``. No renormalisation
per neuron: the weights sum to 1 over all learnt stages, not over those whose sets hold
the neuron. A neuron one stage trained becomes ``w_k`` times that stage's values (its
parameters, not their change in training), so W-NCFT differs from NCFT on every stored
neuron, not only where sets overlap: with ``i`` stages and near-uniform weights each
stored neuron is scaled by about ``1/i``. A neuron several stages trained is the
weighted sum of their values. ``combine: normalized`` (ours) divides by
``Σ_{k∋n} w_k``: a neuron one stage trained keeps that stage's values, so W-NCFT
differs from NCFT, and from its uniform control, only on neurons that stages share (the
default's measured W-NCFT minus its uniform control: +0.0000 CL, interval [-0.0147,
+0.0147], the same model). At stage 1 the one weight is 1 and either combination is
NCFT's model. Neurons of no stage's set stay as they are. W-NCFT needs the test task's
identity, as paper B's does; NCFT's model itself is never changed
(:func:`combined_neurons` restores it).

Results (``results/{model}/paper_b/continual/run{r}/{order}/*.parquet``, one folder per
training run of config ``paper_b.runs``): ``run``, ``method``, ``stage`` (1-based:
tested after learning the first ``stage`` tasks), ``stage_task`` (the task learnt at
that stage), ``eval_task``, ``accuracy`` and ``correct`` (bool per test sample);
:func:`skillneurons.paper_b.continual_report.accuracy_matrix` turns them into ``a_ij``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pandas as pd
import peft
import torch
from tqdm.auto import tqdm

from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.loading import LoadedModel
from skillneurons.models.neuron_deltas import NeuronDeltas
from skillneurons.models.sites import ffn_sites, lora_targets, neuron_parameters
from skillneurons.models.training import TrainingSettings, train
from skillneurons.neurons.activations import sample_rows
from skillneurons.neurons.relevance_table import task_neurons
from skillneurons.paper_b.classifiers import unfreeze_backbone
from skillneurons.paper_b.evaluation import correct_on
from skillneurons.paper_b.relevance import relevance as task_relevance
from skillneurons.paper_b.relevance import relevance_table

#: Eq. 12's combinations (the module docstring): paper B's first.
COMBINES = ("literal", "normalized")
COLUMNS = ("method", "stage", "stage_task", "eval_task", "accuracy", "correct")
#: The columns that name an evaluation (a training run's files add ``run`` first:
#: :mod:`skillneurons.paper_b.runs`).
KEYS = ("method", "stage", "stage_task", "eval_task")
Neurons = Mapping[int, np.ndarray]


def results_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return frame.astype({"stage": "int64", "accuracy": "float64"})


def _row(method: str, stage: int, stage_task: str, eval_task: str, correct) -> dict:
    correct = np.asarray(correct, bool)
    return {
        "method": method,
        "stage": stage,
        "stage_task": stage_task,
        "eval_task": eval_task,
        "accuracy": float(correct.mean()),
        "correct": correct,
    }


def read_order_results(paths: Sequence[str], orders: Sequence[str]) -> dict[str, pd.DataFrame]:
    """Per order, its runs' and methods' result files concatenated: ``paths`` holds the
    same number of files for each of ``orders`` in turn (``expand`` over order, then run
    and method)."""
    if not orders or len(paths) % len(orders):
        raise ValueError(f"{len(paths)} result files do not split over the orders {orders}")
    size = len(paths) // len(orders)
    return {
        order: pd.concat(
            [pd.read_parquet(path) for path in paths[index * size : (index + 1) * size]],
            ignore_index=True,
        )
        for index, order in enumerate(orders)
    }


# ------------------------------------------------------------------------ W-NCFT pieces


@torch.no_grad()
def task_feature(
    classifier,
    split: EncodedSplit,
    batch_size: int,
    max_samples: int | None,
    *,
    seed: int,
    name: str = "the training split",
):
    """Eq. 10's ``fea``: per sample the mean last-layer hidden state over its real tokens
    (the classifier's input layout), averaged over ``max_samples`` random samples (paper
    B, A.2: 1000): a seeded (``seed``), label-stratified draw
    (:func:`skillneurons.neurons.activations.sample_rows`; ``name`` names the split in the
    error of a draw that misses a class); float64 ``[hidden]``."""
    rows = sample_rows(
        split, max_samples, seed, f"{name} (paper_b.continual.feature_samples)"
    ).tolist()
    total, count = None, 0
    device = next(classifier.backbone.parameters()).device
    for start in range(0, len(rows), batch_size):
        batch = split.batch(rows[start : start + batch_size], classifier.pad_id, device)
        kwargs = classifier.sequence(
            batch["input_ids"], batch["attention_mask"], batch.get("token_type_ids")
        )
        hidden = classifier.backbone.base_model(**kwargs).last_hidden_state.double()
        mask = kwargs["attention_mask"].unsqueeze(-1).double()
        means = (hidden * mask).sum(dim=1) / mask.sum(dim=1)
        total = means.sum(dim=0) if total is None else total + means.sum(dim=0)
        count += len(means)
    return (total / count).cpu().numpy()


def stage_weights(
    features: Sequence[np.ndarray], target: np.ndarray, temperature: float = 1.0
) -> np.ndarray:
    """Eq. 11: the softmax over the learnt stages of the cosine similarity (Eq. 10) of
    each stage's task vector with the test task's, divided by ``temperature``."""
    cosines = np.array(
        [f @ target / (np.linalg.norm(f) * np.linalg.norm(target)) for f in features]
    )
    scaled = cosines / temperature
    weights = np.exp(scaled - scaled.max())
    return weights / weights.sum()


def uniform_stage_weights(stages: int) -> np.ndarray:
    """The uniform-weight control of Eq. 11 (``wncft_uniform``, the module docstring):
    every one of the ``stages`` learnt stages weighs ``1 / stages``, what Eq. 11's
    softmax gives when every similarity is equal."""
    return np.full(stages, 1.0 / stages)


@dataclass
class StageSnapshot:
    """The parameters of one stage's neurons right after its stage: per layer the
    neuron indices and one tensor per parameter place (``view.index_select(axis, ·)``
    of :func:`skillneurons.models.sites.neuron_parameters`)."""

    task: str
    neurons: dict[int, np.ndarray]
    values: dict[int, list[torch.Tensor]]


def _places(model: torch.nn.Module, output_only: bool):
    return {
        site.layer: neuron_parameters(site, torch.arange(site.width), output_only)
        for site in ffn_sites(model)
    }


@torch.no_grad()
def take_snapshot(
    model: torch.nn.Module, task: str, neurons: Neurons, output_only: bool = False
) -> StageSnapshot:
    places = _places(model, output_only)
    values = {}
    for layer, chosen in neurons.items():
        if len(chosen):
            index = torch.as_tensor(np.asarray(chosen), dtype=torch.long)
            values[layer] = [
                view.index_select(axis, index.to(view.device)).clone()
                for view, axis in places[layer]
            ]
    kept = {layer: np.asarray(chosen, np.int64) for layer, chosen in neurons.items()}
    return StageSnapshot(task, kept, values)


def _shape(weights: torch.Tensor, axis: int, ndim: int) -> torch.Tensor:
    shape = [1] * ndim
    shape[axis] = -1
    return weights.reshape(shape)


@contextmanager
def combined_neurons(
    model: torch.nn.Module,
    snapshots: Sequence[StageSnapshot],
    weights: np.ndarray,
    combine: str = "literal",
    output_only: bool = False,
):
    """Within the block, every neuron of ``snapshots`` holds Eq. 12's combination of its
    stages' values with ``weights`` (one per snapshot; the module docstring); the
    model's parameters are restored on exit."""
    if combine not in COMBINES:
        raise ValueError(f"paper_b.continual.combine {combine!r} is unknown; use {COMBINES}")
    places = _places(model, output_only)
    saved = []
    with torch.no_grad():
        for layer, layer_places in places.items():
            held = [(float(w), s) for w, s in zip(weights, snapshots, strict=True)
                    if layer in s.values]  # fmt: skip
            if not held:
                continue
            union = np.unique(np.concatenate([s.neurons[layer] for _, s in held]))
            index = torch.as_tensor(union, dtype=torch.long)
            where = [torch.as_tensor(np.searchsorted(union, s.neurons[layer])) for _, s in held]
            total = torch.zeros(len(union), dtype=torch.float64)
            for (weight, _), positions in zip(held, where, strict=True):
                total[positions] += weight
            for place, (view, axis) in enumerate(layer_places):
                current = view.index_select(axis, index.to(view.device))
                saved.append((view, axis, index.to(view.device), current.clone()))
                mixed = torch.zeros_like(current, dtype=torch.float64)
                for (weight, snapshot), positions in zip(held, where, strict=True):
                    values = snapshot.values[layer][place].double()
                    mixed.index_add_(axis, positions.to(view.device), weight * values)
                if combine == "normalized":
                    mixed = mixed / _shape(total.to(view.device), axis, mixed.ndim)
                view.index_copy_(axis, index.to(view.device), mixed.to(view.dtype))
    try:
        yield
    finally:
        with torch.no_grad():
            for view, axis, index, values in saved:
                view.index_copy_(axis, index, values)


# ------------------------------------------------------------------------------ methods


def _tested(heads, encoded, order, stage, method, batch_size) -> list[dict]:
    return [
        _row(
            method,
            stage,
            order[stage - 1],
            task,
            correct_on(heads[task], encoded[task]["test"], batch_size),
        )  # fmt: skip
        for task in order[:stage]
    ]


def _fully_fine_tune(loaded, classifier, splits, training, freeze_embeddings):
    """Train every backbone weight (the embeddings too unless frozen) on ``splits``'
    training split, keep the best dev state, and freeze the backbone again."""
    unfreeze_backbone(loaded, freeze_embeddings)
    result = train(classifier, splits["train"], splits["dev"], training, classifier.pad_id)
    for parameter in loaded.model.parameters():
        parameter.requires_grad_(False)
    return result


def _training_metrics(task: str, result) -> dict:
    return {
        "task": task,
        "best_step": result.best_step,
        "dev_accuracy": result.best_dev_accuracy,
        "dev_curve": result.dev_curve,
    }


def sequential_fine_tuning(
    loaded: LoadedModel,
    heads: Mapping[str, object],
    encoded: Mapping[str, Mapping[str, EncodedSplit]],
    order: Sequence[str],
    training: TrainingSettings,
    *,
    freeze_embeddings: bool,
    batch_size: int,
) -> tuple[pd.DataFrame, list[dict]]:
    """SeqFT: full fine-tuning on each task of ``order`` in turn; after each stage the
    tasks learnt so far are tested. ``loaded``'s weights are changed."""

    def fine_tune(task: str) -> dict:
        result = _fully_fine_tune(loaded, heads[task], encoded[task], training, freeze_embeddings)
        return _training_metrics(task, result)

    return _sequential_stages("seqft", "SeqFT", order, fine_tune, heads, encoded, batch_size)


def _sequential_stages(
    method: str, label: str, order, train_stage, heads, encoded, batch_size
) -> tuple[pd.DataFrame, list[dict]]:
    """Train each task of ``order`` in turn (``train_stage(task)`` returns the stage's
    training metrics) and test the tasks learnt so far after each stage, as ``method``."""
    rows, metrics = [], []
    for stage, task in enumerate(tqdm(order, desc=f"{label} stages"), start=1):
        metrics.append(train_stage(task))
        rows += _tested(heads, encoded, order, stage, method, batch_size)
    return results_frame(rows), metrics


@dataclass(frozen=True)
class LoraSettings:
    """SeqLoRA's adapters (peft's ``LoraConfig``): rank ``r`` and ``alpha`` (the update
    ``B A x`` is scaled by ``alpha / r``)."""

    rank: int
    alpha: float

    @classmethod
    def from_config(cls, section: Mapping) -> LoraSettings:
        return cls(int(section["rank"]), float(section["alpha"]))


def sequential_lora(
    loaded: LoadedModel,
    heads: Mapping[str, object],
    encoded: Mapping[str, Mapping[str, EncodedSplit]],
    order: Sequence[str],
    training: TrainingSettings,
    *,
    lora: LoraSettings,
    seed: int,
    batch_size: int,
) -> tuple[pd.DataFrame, list[dict]]:
    """SeqLoRA: LoRA adapters (no dropout; ``A`` drawn with ``seed``, ``B`` zero, so the
    model starts as the base model) on the query and value projections of every layer
    (:func:`skillneurons.models.sites.lora_targets`), the only trained parameters,
    trained on each task of ``order`` in turn and carried from stage to stage; after
    each stage the tasks learnt so far are tested. ``loaded``'s model keeps the
    adapters."""
    targets = lora_targets(loaded.model)
    torch.manual_seed(seed)
    config = peft.LoraConfig(
        r=lora.rank, lora_alpha=lora.alpha, lora_dropout=0.0,
        target_modules=targets.names, fan_in_fan_out=targets.fan_in_fan_out,
    )  # fmt: skip
    peft.inject_adapter_in_model(config, loaded.model)
    trained = sum(p.numel() for p in loaded.model.parameters() if p.requires_grad)

    def train_adapters(task: str) -> dict:
        classifier = heads[task]
        result = train(
            classifier, encoded[task]["train"], encoded[task]["dev"], training,
            classifier.pad_id,
        )  # fmt: skip
        return {**_training_metrics(task, result), "trained_parameters": trained}

    return _sequential_stages(
        "seqlora", "SeqLoRA", order, train_adapters, heads, encoded, batch_size
    )


@dataclass(frozen=True)
class NcftSettings:
    """NCFT's and W-NCFT's choices (paper B, §6 and A.2; the module docstring).

    Config keys: ``paper_b.fraction`` (``fraction``: each stage trains the current
    task's top fraction of neurons, paper: 10%), ``paper_b.relevance`` (``relevance``:
    the definition of :func:`skillneurons.paper_b.relevance.relevance` that ranks them,
    found on the current model), ``paper_b.attribution_samples`` (``attribution_samples``:
    the training rows it draws; None: all), ``paper_b.parameters`` (``output_only``
    when it is ``output_only``: only each neuron's output weights are trained),
    ``paper_b.continual.temperature`` (Eq. 11's, paper: 1) and
    ``paper_b.continual.combine`` (Eq. 12's ``literal``, paper B's, or ``normalized``,
    ours), and the run's ``seed`` (it draws the attribution rows and breaks relevance
    ties).
    """

    fraction: float
    relevance: str
    attribution_samples: int | None
    seed: int
    output_only: bool = False
    temperature: float = 1.0
    combine: str = "literal"


def neuron_level_fine_tuning(
    loaded: LoadedModel,
    heads: Mapping[str, object],
    encoded: Mapping[str, Mapping[str, EncodedSplit]],
    order: Sequence[str],
    training: TrainingSettings,
    ncft: NcftSettings,
    *,
    features: Mapping[str, np.ndarray],
    batch_size: int,
) -> tuple[pd.DataFrame, list[dict]]:
    """NCFT and W-NCFT (the module docstring) over ``order``: at each stage the current
    task's top ``ncft.fraction`` of neurons by relevance on the current model are
    trained and folded in; then the tasks learnt so far are tested as the model is
    (``ncft``), with their stage snapshots combined by similarity to the test task
    (``wncft``, task vectors ``features``, Eq. 10) and with the same snapshots combined
    with equal weights (``wncft_uniform``). ``batch_size`` batches relevance and
    testing. ``loaded``'s weights are changed."""
    rows, metrics, snapshots = [], [], []
    for stage, task in enumerate(tqdm(order, desc="NCFT stages"), start=1):
        classifier = heads[task]
        values = task_relevance(
            classifier,
            encoded[task]["train"],
            batch_size,
            definition=ncft.relevance,
            max_samples=ncft.attribution_samples,
            seed=ncft.seed,
        )
        neurons = task_neurons(relevance_table(values, task, ncft.seed), ncft.fraction)
        classifier.deltas = NeuronDeltas(classifier.backbone, neurons, ncft.output_only)
        result = train(
            classifier, encoded[task]["train"], encoded[task]["dev"], training,
            classifier.pad_id,
        )  # fmt: skip
        classifier.deltas.fold()
        del classifier.deltas
        earlier = [s.neurons for s in snapshots]
        snapshots.append(take_snapshot(loaded.model, task, neurons, ncft.output_only))
        metrics.append(
            {
                **_training_metrics(task, result),
                "neurons": int(sum(len(v) for v in neurons.values())),
                "shared_with_earlier_stages": _shared(neurons, earlier),
            }
        )
        rows += _tested(heads, encoded, order, stage, "ncft", batch_size)
        stage_features = [features[s.task] for s in snapshots]
        for eval_task in order[:stage]:
            weights = stage_weights(stage_features, features[eval_task], ncft.temperature)
            weightings = {"wncft": weights, "wncft_uniform": uniform_stage_weights(stage)}
            for method, method_weights in weightings.items():
                with combined_neurons(
                    loaded.model, snapshots, method_weights, ncft.combine, ncft.output_only
                ):
                    correct = correct_on(heads[eval_task], encoded[eval_task]["test"], batch_size)
                rows.append(_row(method, stage, task, eval_task, correct))
            metrics[-1].setdefault("wncft_weights", {})[eval_task] = weights.tolist()
    return results_frame(rows), metrics


def _shared(neurons: Neurons, earlier: Sequence[Neurons]) -> int:
    """How many of ``neurons`` an earlier stage's set already holds."""
    count = 0
    for layer, chosen in neurons.items():
        before = [np.asarray(e.get(layer, []), np.int64) for e in earlier]
        if before:
            count += int(np.isin(chosen, np.concatenate(before)).sum())
    return count


def per_task_fine_tuning(
    loaded: LoadedModel,
    heads: Mapping[str, object],
    encoded: Mapping[str, Mapping[str, EncodedSplit]],
    task: str,
    training: TrainingSettings,
    *,
    freeze_embeddings: bool,
    batch_size: int,
) -> tuple[pd.DataFrame, dict]:
    """Per-task FT: fully fine-tune the base model on ``task`` alone and test it (the
    reference ``A_i`` of Eq. 5; ``stage`` 1)."""
    result = _fully_fine_tune(loaded, heads[task], encoded[task], training, freeze_embeddings)
    rows = _tested(heads, encoded, [task], 1, "per_task", batch_size)
    return results_frame(rows), _training_metrics(task, result)
