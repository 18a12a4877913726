"""Task-specific neurons by gradient attribution (paper B, §3, Eqs. 2-3, appendix A.1).

The relevance of neuron ``j`` of layer ``i`` to a task is the change of the task's loss
when the neuron is zeroed, to first order (Taylor):

    R_ij = |ΔL| = |L(a_ij = 0) - L(a_ij)| ≈ |∂L/∂a_ij · a_ij|,

with ``a_ij`` the neuron's activation (the seam's: the input of the FFN's output
projection). Bold ``a`` is a vector over a sample's positions, so the dot product is
that sample's first-order loss change. Paper B does not say where the absolute value
goes; the definitions (config ``paper_b.relevance``):

``sample_abs`` (default)  per sample ``|Σ_t g_t a_t|``, then the mean over samples: each
                          sample's own loss change, no cancellation between samples;
``token_abs``             per sample ``Σ_t |g_t a_t|``, then the mean over samples;
``dataset_abs``           ``|Σ_samples Σ_t g_t a_t|`` / samples: the literal reading.

One streamed pass computes it for every neuron: per batch one forward with the seam's
activations captured with their gradients, one backward of the loss summed over the
batch's samples (so each sample's gradient is its own; the frozen model has no batch
coupling), and the products accumulated; memory is bounded by one batch, and no loop
runs over neurons. The loss is the cross-entropy of the label words (classification)
or, for generation, each sample's mean negative log-likelihood over its target tokens
(paper B spec, ambiguity 2; :func:`skillneurons.models.decoding.sample_losses`), so
a long target weighs as much as a short one. The samples are a seeded,
label-stratified draw of ``max_samples`` rows of the training split
(:func:`skillneurons.data.subsets.subset_rows`; a seeded uniform draw for generation
tasks, which have no labels).

The task-specific neurons are the top ``k``% by relevance (paper: 10%), over all layers
(default) or within every layer, ties broken by a seeded key (:func:`task_neurons`).
File ``results/{model}/task_neurons/{task}.parquet`` (rule ``task_neurons``, on the base
model; for the prompt-tuned model the same, for the multi-task model one file of all
its tasks with a ``task`` column, :func:`write_multitask_neurons`): ``layer``,
``neuron`` (int64), ``relevance`` (float64), ``rank``, ``rank_in_layer`` (int64);
metadata: the model the neurons were found on, the definition, the samples and the
task.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch
from tqdm.auto import tqdm

from skillneurons.infra.io import read_metadata, write_frame_parquet
from skillneurons.models.decoding import sample_losses
from skillneurons.models.encoding import EncodedSplit
from skillneurons.neurons.activations import sample_rows
from skillneurons.neurons.hooks import capture_activations
from skillneurons.neurons.ranking import rank_neurons, tie_key
from skillneurons.neurons.relevance_table import layer_width, task_neurons

DEFINITIONS = ("sample_abs", "token_abs", "dataset_abs")
#: Columns of a task-neuron file.
COLUMNS = ("layer", "neuron", "relevance", "rank", "rank_in_layer")


def relevance(
    classifier: torch.nn.Module,
    split: EncodedSplit,
    batch_size: int,
    definition: str = "sample_abs",
    max_samples: int | None = None,
    progress: bool = False,
    seed: int = 0,
    name: str = "the training split",
) -> np.ndarray:
    """``R`` of every neuron for the task of ``split`` (the module docstring), float64
    ``[layers, neurons]``, over a seeded (``seed``), label-stratified draw of
    ``max_samples`` rows (None: all; ``name`` names the split in the error of a draw
    that misses a class), in batches of ``batch_size``; ``classifier`` returns label
    logits (or a :class:`~skillneurons.models.decoding.CausalLMObjective`'s token
    logits) and is not changed (gradients reach only the captured activations)."""
    if definition not in DEFINITIONS:
        raise ValueError(f"relevance {definition!r} is unknown; use one of {DEFINITIONS}")
    chosen = sample_rows(split, max_samples, seed, f"{name} (paper_b.attribution_samples)")
    count = len(chosen)
    if count == 0:
        raise ValueError("relevance needs at least one sample; the split is empty")
    modes = [(module, module.training) for module in classifier.modules()]
    classifier.eval()
    device = next(classifier.parameters()).device
    pad_id = getattr(classifier, "pad_id", 0)
    total = None
    order = sorted(chosen.tolist(), key=lambda row: len(split.input_ids[row]))  # less padding
    batches = [order[start : start + batch_size] for start in range(0, count, batch_size)]
    try:
        for rows in tqdm(batches, desc="relevance", disable=not progress, mininterval=5):
            batch = split.batch(rows, pad_id, device)
            with capture_activations(classifier, keep_grad=True) as capture:
                logits = classifier(**batch)
                loss = sample_losses(logits, batch["labels"], len(rows)).sum()
                loss.backward()
            per_layer = []
            for layer in capture.layers:
                a = capture.activations[layer]
                product = (a.grad * a).detach().double()  # [batch, positions, neurons]
                if definition == "sample_abs":
                    per_layer.append(product.sum(dim=1).abs().sum(dim=0))
                elif definition == "token_abs":
                    per_layer.append(product.abs().sum(dim=(0, 1)))
                else:
                    per_layer.append(product.sum(dim=(0, 1)))
            part = torch.stack(per_layer)
            total = part if total is None else total + part
    finally:
        for module, training in modes:
            module.training = training
        classifier.zero_grad(set_to_none=True)
    values = total.cpu().numpy() / count
    return np.abs(values) if definition == "dataset_abs" else values


def relevance_table(values: np.ndarray, task: str, seed: int) -> pd.DataFrame:
    """The task-neuron table (:data:`COLUMNS`): every neuron by descending relevance, ties
    broken by a random key seeded by ``seed`` and the task's name."""
    key = tie_key(values.shape, [seed, zlib.crc32(task.encode())])
    table = rank_neurons(values, key).rename(columns={"predictivity": "relevance"})
    return table[list(COLUMNS)]


def relevance_tables(
    heads: Mapping[str, torch.nn.Module],
    splits: Mapping[str, EncodedSplit],
    *,
    definition: str,
    attribution_samples: int | None,
    batch_size: int,
    seed: int,
) -> dict[str, pd.DataFrame]:
    """Each task's :func:`relevance_table` on the model under its classifier in
    ``heads``, from its split in ``splits`` (the training split; ``seed`` also draws
    its ``attribution_samples`` rows)."""
    return {
        task: relevance_table(
            relevance(
                classifier,
                splits[task],
                batch_size,
                definition,
                attribution_samples,
                seed=seed,
                name=f"{task}/train",
            ),
            task,
            seed,
        )
        for task, classifier in heads.items()
    }


def write_task_neurons(path: str, table: pd.DataFrame, metadata: Mapping[str, object]) -> None:
    """Write a task-neuron file atomically (the module docstring)."""
    write_frame_parquet(path, table, metadata)


def read_task_neurons(path: str) -> tuple[pd.DataFrame, dict]:
    return pd.read_parquet(path), read_metadata(path)


def read_task_neuron_tables(tasks: Sequence[str], paths: Sequence[str]) -> dict[str, pd.DataFrame]:
    """Each task's task-neuron table (:func:`read_task_neurons`), from its file."""
    return {task: read_task_neurons(path)[0] for task, path in zip(tasks, paths, strict=True)}


def write_multitask_neurons(
    path: str, tables: Mapping[str, pd.DataFrame], metadata: Mapping[str, object]
) -> None:
    """Write the multi-task model's task-neuron tables (one per task of ``tables``) to
    one file: a ``task`` column, then :data:`COLUMNS`; metadata ``metadata`` and the
    tasks."""
    frame = pd.concat(
        [table.assign(task=task)[["task", *COLUMNS]] for task, table in tables.items()],
        ignore_index=True,
    )
    write_frame_parquet(path, frame, {**metadata, "tasks": list(tables)})


def read_multitask_neurons(path: str, task: str) -> pd.DataFrame:
    """``task``'s table (:data:`COLUMNS`) of a file of :func:`write_multitask_neurons`."""
    frame = pd.read_parquet(path)
    table = frame[frame["task"] == task]
    if table.empty:
        raise ValueError(f"{path} has no neurons of task {task!r}; rerun rule deactivation")
    return table[list(COLUMNS)].reset_index(drop=True)


def neurons_of_tasks(
    tables: Mapping[str, pd.DataFrame], *, fraction: float, per_layer: bool = False
) -> tuple[dict[str, dict[int, np.ndarray]], int]:
    """Each task's top neurons (:func:`task_neurons`) from its relevance table, and the
    layers' width (B-T1's deactivated sets)."""
    neurons = {task: task_neurons(table, fraction, per_layer) for task, table in tables.items()}
    return neurons, layer_width(next(iter(tables.values())))
