"""Neuron activations on soft prompts: capture, baselines and Parquet dumps (paper A, §3.1).

Paper A reads the activation ``a(N, p_i, x)`` of every neuron ``N`` (one coordinate of
the input of an FFN's output projection, see :mod:`skillneurons.models.sites`) on every
soft prompt token ``p_i`` for every sample ``x``. This module

- runs a :class:`~skillneurons.models.prompted.PromptedClassifier` on a batch and returns
  those activations, ``[batch, layers, tokens, neurons]`` (:func:`prompt_activations`),
  or the "Avg." / "Max." baselines of Figure 3 that reduce over the *input* tokens
  instead (:func:`input_token_activations`);
- computes the baseline activation of Eq. 3 by streaming the training split
  (:func:`baseline_activation`), with each neuron's std (:func:`activation_moments`),
  and each neuron's std over every position (:func:`position_std`: the unit of
  ``neuron_std`` perturbation noise added at every position);
- dumps a split's activations to Parquet one batch at a time (:func:`dump_activations`)
  in the file of :mod:`skillneurons.neurons.activation_dump`, whose readers stream it
  back, so predictivity (Eqs. 4-6) never holds a split in memory.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack

import numpy as np
import torch
from tqdm.auto import tqdm

from skillneurons.data.subsets import subset_rows
from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites
from skillneurons.neurons.activation_dump import ActivationWriter
from skillneurons.neurons.hooks import capture_activations

Reduce = Callable[[PromptedClassifier, Mapping[str, torch.Tensor]], torch.Tensor]


# --------------------------------------------------------------------------- capture


def _device(classifier: torch.nn.Module) -> torch.device:
    return next(classifier.parameters()).device


def _forward_capture(
    classifier: PromptedClassifier, batch: Mapping[str, torch.Tensor], positions
) -> torch.Tensor:
    """Run ``classifier`` (eval mode, inference mode) up to its last layer's activations
    (the rest of the forward is not needed) and return the captured
    ``[batch, layers, positions, neurons]`` in the model's dtype.

    The result is stacked outside inference mode, so it is an ordinary tensor that
    callers may edit in place.
    """
    modes = [(module, module.training) for module in classifier.modules()]
    classifier.eval()
    try:
        with (
            torch.inference_mode(),
            capture_activations(classifier, positions, stop=True) as capture,
        ):
            classifier(**batch)
    finally:  # restore each module's own mode (a wrapper may train around an eval backbone)
        for module, training in modes:
            module.training = training
    return capture.stacked()


def prompt_activations(
    classifier: PromptedClassifier, batch: Mapping[str, torch.Tensor]
) -> torch.Tensor:
    """Activations ``a(N, p_i, x)`` of every neuron on every soft prompt token (paper A §3.1).

    Parameters
    ----------
    classifier : the prompted model; run once in eval mode under ``torch.inference_mode``.
    batch : a padded batch from :meth:`EncodedSplit.batch` (``input_ids``,
        ``attention_mask``, optional ``token_type_ids`` and ``labels``) on the
        classifier's device.

    Returns
    -------
    float32 ``[batch, layers, tokens, neurons]`` on the classifier's device, where
    ``tokens`` are ``p_1 .. p_l`` in order (positions ``classifier.prompt_positions``).
    """
    captured = _forward_capture(classifier, batch, classifier.prompt_positions)
    return captured.to(torch.float32)


def at_input_tokens(
    classifier: PromptedClassifier, captured: torch.Tensor, attention_mask: torch.Tensor
) -> torch.Tensor:
    """The input tokens' activations out of a whole sequence's.

    ``captured`` is ``[batch, layers, positions, neurons]`` over every position of a
    batch's sequences; returns ``[batch, layers, width, neurons]``, slot ``j`` holding
    the activation at input token ``j`` of each row (the batch's ``attention_mask``
    ``[batch, width]`` tells which slots are real tokens).
    """
    positions = classifier.input_positions(attention_mask.to(captured.device))
    index = positions[:, None, :, None].expand(-1, captured.shape[1], -1, captured.shape[3])
    return captured.gather(2, index)


def input_token_activations(
    classifier: PromptedClassifier, batch: Mapping[str, torch.Tensor]
) -> torch.Tensor:
    """Mean and max of each neuron's activation over the *input* tokens of each sample.

    These are the "Avg." (Dai et al., 2021) and "Max." (Suau et al., 2020) baselines of
    paper A, Figure 3: predictivity computed on activations reduced over the input
    tokens instead of read on a prompt token. Input tokens are the positions of the
    input slots whose ``attention_mask`` is 1
    (:meth:`~skillneurons.models.prompted.PromptedClassifier.input_positions`: the soft
    prompts, the ``[MASK]`` of masked models and padding are excluded).

    Returns
    -------
    float32 ``[batch, layers, 2, neurons]`` on the classifier's device: index 0 of the
    token axis is the mean, index 1 the max. A sample without input tokens gets NaN.
    """
    captured = at_input_tokens(
        classifier, _forward_capture(classifier, batch, None), batch["attention_mask"]
    ).to(torch.float32)
    mask = batch["attention_mask"].to(device=captured.device, dtype=torch.bool)
    mask = mask[:, None, :, None]  # [batch, 1, inputs, 1]
    count = mask.sum(dim=2).to(torch.float32)  # [batch, 1, 1]
    mean = captured.masked_fill(~mask, 0.0).sum(dim=2) / count
    peak = captured.masked_fill(~mask, -math.inf).amax(dim=2)
    peak = peak.masked_fill(count == 0, math.nan)
    return torch.stack([mean, peak], dim=2)


def _positions_name(reduce: Reduce) -> str:
    if reduce is prompt_activations:
        return "prompt"
    if reduce is input_token_activations:
        return "input_mean_max"
    return getattr(reduce, "__name__", type(reduce).__name__)


def _batches(split: EncodedSplit, rows: np.ndarray, batch_size: int, by_length: bool):
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    order = rows.tolist()
    if by_length:
        order.sort(key=lambda i: len(split.input_ids[i]))
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def sample_rows(split, max_samples: int | None, seed: int, name: str = "the split") -> np.ndarray:
    """The rows of ``split`` (an :class:`EncodedSplit`, or a split without ``labels``
    such as a generation task's) a stage reads: all of them (``max_samples`` None), or
    a seeded, label-stratified draw of ``max_samples`` in split order (uniform where
    there are no labels; :func:`skillneurons.data.subsets.subset_rows`, proportional;
    ``name`` names the split and the config key in its error)."""
    labels = getattr(split, "labels", None)
    labels = None if labels is None else np.asarray(labels)
    return subset_rows(labels, max_samples, seed, split=name, length=len(split))


def activation_moments(
    classifier: PromptedClassifier,
    split: EncodedSplit,
    batch_size: int,
    reduce: Reduce = prompt_activations,
    max_samples: int | None = None,
    progress: bool = False,
    *,
    seed: int = 0,
    name: str = "the training split",
) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and standard deviation over samples of every neuron's activation.

    The mean is the baseline activation ``a_bsl(N, p_i)`` of Eq. 3 of paper A,
    ``1/|D_train| * sum_{x_j in D_train} a(N, p_i, x_j)``, computed by streaming
    ``split`` (the training split) in batches of ``batch_size`` (sorted by length to save
    padding) with float64 running sums, so memory is bounded by one batch. The std
    (population, over the same samples) is the unit of the ``neuron_std`` perturbation
    noise. ``reduce`` gives the per-batch activations: :func:`prompt_activations` (the
    paper) or :func:`input_token_activations` (Figure 3's "Avg."/"Max.").
    ``max_samples`` keeps a seeded (``seed``), label-stratified draw of that many rows
    (:func:`sample_rows`; ``name`` names the split in its error).

    Returns
    -------
    float32 ``[layers, tokens, neurons]`` mean and std, on the CPU.
    """
    rows = sample_rows(split, max_samples, seed, name)
    count = len(rows)
    if count == 0:
        raise ValueError("baseline_activation needs at least one sample; the split is empty")
    device = _device(classifier)
    pad_id = classifier.pad_id
    total = squares = None
    batches = _batches(split, rows, batch_size, by_length=True)
    for batch in tqdm(batches, desc="baseline", disable=not progress, mininterval=5):
        block = reduce(classifier, split.batch(batch, pad_id, device)).double()
        partial, partial_squares = block.sum(dim=0), (block * block).sum(dim=0)
        total = partial if total is None else total + partial
        squares = partial_squares if squares is None else squares + partial_squares
    mean = total / count
    std = (squares / count - mean * mean).clamp(min=0.0).sqrt()
    return (
        mean.to(device="cpu", dtype=torch.float32),
        std.to(device="cpu", dtype=torch.float32),
    )


def position_std(
    classifier: PromptedClassifier,
    split: EncodedSplit,
    batch_size: int,
    max_samples: int | None = None,
    *,
    seed: int = 0,
    name: str = "the training split",
) -> torch.Tensor:
    """Each neuron's activation std over every position of the sequences the backbone
    reads (the ``[MASK]``, the soft prompts and the input tokens; not the padding),
    pooled over the samples (population std over all (sample, position) pairs): the
    unit of ``neuron_std`` noise added at every position (perturbation ``positions:
    all``, :func:`skillneurons.neurons.perturbation.noise.noise_scale`), measured where that
    noise lands. Rows as :func:`activation_moments` (``max_samples``, ``seed``).

    Returns
    -------
    float32 ``[layers, neurons]`` on the CPU.
    """
    rows = sample_rows(split, max_samples, seed, name)
    if len(rows) == 0:
        raise ValueError("position_std needs at least one sample; the split is empty")
    device = _device(classifier)
    total = squares = None
    count = 0
    for batch_rows in _batches(split, rows, batch_size, by_length=True):
        batch = split.batch(batch_rows, classifier.pad_id, device)
        captured = _forward_capture(classifier, batch, None).double()  # [b, L, T, N]
        with torch.no_grad():  # only its attention mask: which positions are real
            sequence = classifier.sequence(
                batch["input_ids"], batch["attention_mask"], batch.get("token_type_ids")
            )
        real = sequence["attention_mask"].to(captured.device, torch.double)[:, None, :, None]
        partial = (captured * real).sum(dim=(0, 2))
        partial_squares = (captured * captured * real).sum(dim=(0, 2))
        total = partial if total is None else total + partial
        squares = partial_squares if squares is None else squares + partial_squares
        count += int(real.sum())
    mean = total / count
    std = (squares / count - mean * mean).clamp(min=0.0).sqrt()
    return std.to(device="cpu", dtype=torch.float32)


def baseline_activation(
    classifier: PromptedClassifier,
    split: EncodedSplit,
    batch_size: int,
    reduce: Reduce = prompt_activations,
    max_samples: int | None = None,
    progress: bool = False,
    *,
    seed: int = 0,
    name: str = "the training split",
) -> torch.Tensor:
    """Baseline activation ``a_bsl(N, p_i)`` of every neuron (Eq. 3 of paper A): the mean
    of :func:`activation_moments`, float32 ``[layers, tokens, neurons]`` on the CPU."""
    return activation_moments(
        classifier, split, batch_size, reduce, max_samples, progress, seed=seed, name=name
    )[0]


def dump_activations(
    classifier: PromptedClassifier,
    split: EncodedSplit,
    idx: Sequence[int],
    path: str | os.PathLike,
    *,
    batch_size: int,
    metadata: Mapping[str, object],
    reduce: Reduce = prompt_activations,
    max_samples: int | None = None,
    progress: bool = False,
    by_length: bool = False,
    seed: int = 0,
    name: str = "the split",
) -> int:
    """Forward ``split`` and write its activations to ``path`` (the file contract above).

    Parameters
    ----------
    classifier : the prompted model; batches go to its device.
    split : the encoded split.
    idx : ``[len(split)]`` the sample index stored for each row of ``split``.
    path : the target ``.parquet`` (written atomically).
    batch_size : samples per forward pass and per row group; memory is bounded by one
        batch (activations go to the CPU as float16 and are written at once).
    metadata : caller key metadata (model, task, trial, split, label_names, ...);
        ``positions`` is set from ``reduce``.
    reduce : :func:`prompt_activations` (``positions="prompt"``) or
        :func:`input_token_activations` (``positions="input_mean_max"``).
    max_samples : keep a seeded (``seed``), label-stratified draw of that many rows, in
        split order (:func:`sample_rows`; ``name`` names the split in its error).
    by_length : process consecutive batches of the split (False: rows in split order)
        or batches of similar length (True: less padding, rows in that order).

    Returns
    -------
    The number of rows written.
    """
    if len(idx) != len(split):
        raise ValueError(f"idx has {len(idx)} entries but the split has {len(split)} rows")
    rows = sample_rows(split, max_samples, seed, name)
    idx = np.asarray(idx, dtype=np.int64)
    device = _device(classifier)
    pad_id = classifier.pad_id
    batches = _batches(split, rows, batch_size, by_length)
    meta = {**metadata, "positions": _positions_name(reduce)}
    writer = None
    with ExitStack() as stack:
        for batch in tqdm(batches, desc="activations", disable=not progress, mininterval=5):
            block = reduce(classifier, split.batch(batch, pad_id, device))
            block = block.to(device="cpu", dtype=torch.float16)
            if writer is None:
                writer = stack.enter_context(ActivationWriter(path, block.shape[1:], meta))
            writer.write(idx[batch], split.labels[batch], block)
        if writer is None:  # empty split: still a valid (empty) file with its metadata
            shape = _shape_without_data(classifier, reduce)
            writer = stack.enter_context(ActivationWriter(path, shape, meta))
    return writer.rows


def _shape_without_data(classifier: PromptedClassifier, reduce: Reduce) -> tuple[int, int, int]:
    """``(layers, tokens, neurons)`` of ``reduce``'s output, for an empty split."""
    sites = ffn_sites(classifier)
    widths = {site.width for site in sites}
    if len(widths) != 1:
        raise ValueError(f"layers have different widths {sorted(widths)}")
    if reduce is prompt_activations:
        tokens = classifier.prompt_length
    elif reduce is input_token_activations:
        tokens = 2
    else:
        raise ValueError(f"cannot infer the shape of {_positions_name(reduce)} without samples")
    return (len(sites), tokens, widths.pop())
