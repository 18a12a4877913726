"""Neuron activations on soft prompts: capture, baselines and Parquet dumps (paper A, §3.1).

Paper A reads the activation ``a(N, p_i, x)`` of every neuron ``N`` (one coordinate of
the input of an FFN's output projection, see :mod:`skillneurons.models.sites`) on every
soft prompt token ``p_i`` for every sample ``x``. This module

- runs a :class:`~skillneurons.models.prompted.PromptedClassifier` on a batch and returns
  those activations, ``[batch, layers, tokens, neurons]`` (:func:`prompt_activations`),
  or the "Avg." / "Max." baselines of Figure 3 that reduce over the *input* tokens
  instead (:func:`input_token_activations`);
- computes the baseline activation of Eq. 3 by streaming the training split
  (:func:`baseline_activation`), with each neuron's std (:func:`activation_moments`);
- dumps a split's activations to Parquet (:func:`dump_activations`,
  :class:`ActivationWriter`) and streams them back (:func:`iter_activations`,
  :func:`read_activations`), so predictivity (Eqs. 4-6) never holds a split in memory.

File contract: activation dump
------------------------------
Path: ``results/{model}/activations/{task}/trial{trial}/{split}.parquet``.
One row per sample, one row group per forward batch, rows in the order they were
processed (split order unless ``by_length=True``; readers must use ``idx``, not the row
number, to align samples). Columns:

==============  =========================  ============================================
``idx``         int64                      the sample's index in its split
``label``       int64                      its label (index into ``label_names``)
``activations`` fixed_size_binary(L*T*N*2) its ``[layers, tokens, neurons]`` block as
                                           raw little-endian float16, C order
==============  =========================  ============================================

Key metadata (each value JSON-encoded, read with :func:`skillneurons.infra.io.read_metadata`):
``shape`` ``[L, T, N]``, ``dtype`` ``"float16"``, ``layout``
``"[layers, tokens, neurons]"``, ``positions`` (``"prompt"``: ``T`` is the prompt length
``l`` and token ``t`` is ``p_{t+1}``; ``"input_mean_max"``: ``T == 2``, token 0 is the
mean and token 1 the max over the input tokens), plus whatever the caller adds (model,
task, trial, split, label_names, ...).

Why one fixed-size binary value per sample: measured with pyarrow 26, Arrow's
``fixed_shape_tensor`` and (fixed-size) list encodings wrote float16 at about 65-160
MB/s, one ``FixedSizeBinary`` value per row at about 1 GB/s, while the forward pass
produces about 50 MB/s. The column is written uncompressed and without dictionary or
statistics: float16 activations barely compress (measured: LZ4 made them 0.4% larger
and was no faster; zstd saved about 10% but wrote and read slower), and a reader
reinterprets the column's contiguous value buffer as a numpy array ``[rows, L, T, N]``
without a per-row copy (:func:`iter_activations`).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import torch
from tqdm.auto import tqdm

from skillneurons.infra.io import atomic_path, read_metadata
from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites
from skillneurons.neurons.hooks import capture_activations

#: Activations stored per sample, in this order.
LAYOUT = "[layers, tokens, neurons]"
STORAGE_DTYPE = "float16"
COLUMNS = ("idx", "label", "activations")
#: Compression of the Parquet dump (see the module docstring).
COMPRESSION = "none"

Reduce = Callable[[PromptedClassifier, Mapping[str, torch.Tensor]], torch.Tensor]


# --------------------------------------------------------------------------- capture


def _device(classifier: torch.nn.Module) -> torch.device:
    return next(classifier.parameters()).device


def _forward_capture(
    classifier: PromptedClassifier, batch: Mapping[str, torch.Tensor], positions
) -> torch.Tensor:
    """Run ``classifier`` (eval mode, inference mode) and return the captured
    ``[batch, layers, positions, neurons]`` in the model's dtype.

    The result is stacked outside inference mode, so it is an ordinary tensor that
    callers may edit in place.
    """
    modes = [(module, module.training) for module in classifier.modules()]
    classifier.eval()
    try:
        with torch.inference_mode(), capture_activations(classifier, positions) as capture:
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


def _batches(split: EncodedSplit, count: int, batch_size: int, by_length: bool):
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    order = list(range(count))
    if by_length:
        order.sort(key=lambda i: len(split.input_ids[i]))
    return [order[i : i + batch_size] for i in range(0, count, batch_size)]


def _sample_count(split: EncodedSplit, max_samples: int | None) -> int:
    if max_samples is None:
        return len(split)
    if max_samples < 0:
        raise ValueError(f"max_samples must be >= 0 or None, got {max_samples}")
    return min(len(split), max_samples)


def activation_moments(
    classifier: PromptedClassifier,
    split: EncodedSplit,
    batch_size: int,
    reduce: Reduce = prompt_activations,
    max_samples: int | None = None,
    progress: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and standard deviation over samples of every neuron's activation.

    The mean is the baseline activation ``a_bsl(N, p_i)`` of Eq. 3 of paper A,
    ``1/|D_train| * sum_{x_j in D_train} a(N, p_i, x_j)``, computed by streaming
    ``split`` (the training split) in batches of ``batch_size`` (sorted by length to save
    padding) with float64 running sums, so memory is bounded by one batch. The std
    (population, over the same samples) is the unit of the ``neuron_std`` perturbation
    noise. ``reduce`` gives the per-batch activations: :func:`prompt_activations` (the
    paper) or :func:`input_token_activations` (Figure 3's "Avg."/"Max.").
    ``max_samples`` keeps the first ``max_samples`` rows of the split.

    Returns
    -------
    float32 ``[layers, tokens, neurons]`` mean and std, on the CPU.
    """
    count = _sample_count(split, max_samples)
    if count == 0:
        raise ValueError("baseline_activation needs at least one sample; the split is empty")
    device = _device(classifier)
    pad_id = classifier.pad_id
    total = squares = None
    batches = _batches(split, count, batch_size, by_length=True)
    for rows in tqdm(batches, desc="baseline", disable=not progress, mininterval=5):
        block = reduce(classifier, split.batch(rows, pad_id, device)).double()
        partial, partial_squares = block.sum(dim=0), (block * block).sum(dim=0)
        total = partial if total is None else total + partial
        squares = partial_squares if squares is None else squares + partial_squares
    mean = total / count
    std = (squares / count - mean * mean).clamp(min=0.0).sqrt()
    return (
        mean.to(device="cpu", dtype=torch.float32),
        std.to(device="cpu", dtype=torch.float32),
    )


def baseline_activation(
    classifier: PromptedClassifier,
    split: EncodedSplit,
    batch_size: int,
    reduce: Reduce = prompt_activations,
    max_samples: int | None = None,
    progress: bool = False,
) -> torch.Tensor:
    """Baseline activation ``a_bsl(N, p_i)`` of every neuron (Eq. 3 of paper A): the mean
    of :func:`activation_moments`, float32 ``[layers, tokens, neurons]`` on the CPU."""
    return activation_moments(classifier, split, batch_size, reduce, max_samples, progress)[0]


# --------------------------------------------------------------------------- writing


class ActivationWriter:
    """Write an activation dump (see the module docstring) one row group per call.

    Use as a context manager. Rows go to a temporary file beside ``path`` that is
    renamed to ``path`` when the ``with`` block exits normally; on an exception (or a
    killed process) there is no file at ``path``.

    Parameters
    ----------
    path : the target ``.parquet`` file.
    shape : ``(layers, tokens, neurons)`` of one sample's block.
    metadata : key metadata stored with the file (JSON-serialisable values); ``shape``,
        ``dtype`` and ``layout`` are added here and may not be contradicted.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        shape: tuple[int, int, int],
        metadata: Mapping[str, object],
    ):
        shape = tuple(int(size) for size in shape)
        if len(shape) != 3 or min(shape) < 1:
            raise ValueError(f"shape must be (layers, tokens, neurons) > 0, got {shape}")
        contract = {"shape": list(shape), "dtype": STORAGE_DTYPE, "layout": LAYOUT}
        clashes = [
            key
            for key, value in contract.items()
            if key in metadata and json.dumps(metadata[key]) != json.dumps(value)
        ]
        if clashes:
            raise ValueError(
                f"metadata {clashes} contradict the dump's own "
                f"{ {k: contract[k] for k in clashes} }"
            )
        self.path = path
        self.shape = shape
        self.width = math.prod(shape) * 2  # bytes of one float16 block
        encoded = {key: json.dumps(value) for key, value in {**metadata, **contract}.items()}
        self.schema = pa.schema(
            [
                pa.field("idx", pa.int64(), nullable=False),
                pa.field("label", pa.int64(), nullable=False),
                pa.field("activations", pa.binary(self.width), nullable=False),
            ],
            metadata=encoded,
        )
        self.rows = 0
        self._stack: ExitStack | None = None
        self._writer: pq.ParquetWriter | None = None

    def __enter__(self) -> ActivationWriter:
        stack = ExitStack()
        tmp = stack.enter_context(atomic_path(self.path))
        self._writer = pq.ParquetWriter(
            tmp,
            self.schema,
            compression=COMPRESSION,
            use_dictionary=False,
            write_statistics=["idx", "label"],
        )
        stack.callback(self._writer.close)  # closed before atomic_path renames or removes
        self._stack = stack
        return self

    def __exit__(self, *exc_info) -> bool:
        stack, self._stack, self._writer = self._stack, None, None
        return stack.__exit__(*exc_info)

    def write(self, idx, labels, activations) -> None:
        """Append one row group.

        Parameters
        ----------
        idx, labels : ``[rows]`` integers (numpy arrays, tensors or sequences).
        activations : ``[rows, layers, tokens, neurons]`` (tensor or numpy array, any
            float dtype; stored as float16).
        """
        if self._writer is None:
            raise RuntimeError("ActivationWriter.write called outside its `with` block")
        block = _float16_block(activations)
        if tuple(block.shape[1:]) != self.shape or block.ndim != 4:
            raise ValueError(
                f"activations must be [rows, {', '.join(map(str, self.shape))}] "
                f"(rows, layers, tokens, neurons); got {list(block.shape)}"
            )
        rows = block.shape[0]
        idx = _int64(idx)
        labels = _int64(labels)
        if idx.shape != (rows,) or labels.shape != (rows,):
            raise ValueError(
                f"idx and labels must have one entry per row ({rows}); "
                f"got {list(idx.shape)} and {list(labels.shape)}"
            )
        if rows == 0:
            return
        values = pa.FixedSizeBinaryArray.from_buffers(
            pa.binary(self.width), rows, [None, pa.py_buffer(block)]
        )
        table = pa.Table.from_arrays([pa.array(idx), pa.array(labels), values], schema=self.schema)
        self._writer.write_table(table, row_group_size=rows)
        self.rows += rows


def _int64(values) -> np.ndarray:
    if isinstance(values, torch.Tensor):
        values = values.detach().cpu().numpy()
    return np.ascontiguousarray(values, dtype=np.int64).reshape(-1)


def _float16_block(activations) -> np.ndarray:
    """C-contiguous little-endian float16 numpy array (copies only when needed)."""
    if isinstance(activations, torch.Tensor):
        activations = activations.detach().to(device="cpu", dtype=torch.float16).numpy()
    return np.ascontiguousarray(activations, dtype="<f2")


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
    max_samples : keep only the first ``max_samples`` rows of the split.
    by_length : process consecutive batches of the split (False: rows in split order)
        or batches of similar length (True: less padding, rows in that order).

    Returns
    -------
    The number of rows written.
    """
    if len(idx) != len(split):
        raise ValueError(f"idx has {len(idx)} entries but the split has {len(split)} rows")
    count = _sample_count(split, max_samples)
    idx = np.asarray(idx, dtype=np.int64)
    device = _device(classifier)
    pad_id = classifier.pad_id
    batches = _batches(split, count, batch_size, by_length)
    meta = {**metadata, "positions": _positions_name(reduce)}
    writer = None
    with ExitStack() as stack:
        for rows in tqdm(batches, desc="activations", disable=not progress, mininterval=5):
            block = reduce(classifier, split.batch(rows, pad_id, device))
            block = block.to(device="cpu", dtype=torch.float16)
            if writer is None:
                writer = stack.enter_context(ActivationWriter(path, block.shape[1:], meta))
            writer.write(idx[rows], split.labels[rows], block)
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


# --------------------------------------------------------------------------- reading


@dataclass
class ActivationBatch:
    """Rows of an activation dump.

    ``idx`` int64 ``[rows]``; ``labels`` int64 ``[rows]``; ``activations`` float16
    ``[rows, layers, tokens, neurons]`` (a read-only view of the Arrow buffer where
    possible). A field is None when its column was not read.
    """

    idx: np.ndarray | None
    labels: np.ndarray | None
    activations: np.ndarray | None

    def __len__(self) -> int:
        for value in (self.idx, self.labels, self.activations):
            if value is not None:
                return len(value)
        return 0


def activation_shape(path: str | os.PathLike) -> tuple[int, int, int]:
    """``(layers, tokens, neurons)`` of one sample's block in the dump at ``path``."""
    metadata = read_metadata(path)
    if metadata.get("layout") != LAYOUT or metadata.get("dtype") != STORAGE_DTYPE:
        raise ValueError(
            f"{path} is not an activation dump: layout {metadata.get('layout')!r} and dtype "
            f"{metadata.get('dtype')!r}, expected {LAYOUT!r} and {STORAGE_DTYPE!r}"
        )
    layers, tokens, neurons = metadata["shape"]
    return int(layers), int(tokens), int(neurons)


def _block_view(column: pa.ChunkedArray | pa.Array, shape: tuple[int, ...]) -> np.ndarray:
    """Reinterpret a FixedSizeBinary column as float16 ``[rows, *shape]`` (no row loop)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    width = math.prod(shape) * 2
    views = []
    for chunk in chunks:
        if chunk.null_count:
            raise ValueError("activation column has nulls; the dump is corrupt")
        rows = len(chunk)
        data = chunk.buffers()[1]
        view = np.frombuffer(
            data, dtype="<f2", count=rows * width // 2, offset=chunk.offset * width
        )
        views.append(view.reshape(rows, *shape))
    if len(views) == 1:
        return views[0]
    return np.concatenate(views) if views else np.empty((0, *shape), dtype="<f2")


def iter_activations(
    path: str | os.PathLike, columns: Sequence[str] | None = None
) -> Iterator[ActivationBatch]:
    """Stream an activation dump one row group (one forward batch) at a time.

    ``columns`` is a subset of ``("idx", "label", "activations")`` (default all); the
    others come back as None. Memory is bounded by one row group.
    """
    columns = list(COLUMNS if columns is None else columns)
    unknown = [name for name in columns if name not in COLUMNS]
    if unknown:
        raise ValueError(f"unknown columns {unknown}; an activation dump has {list(COLUMNS)}")
    shape = activation_shape(path)
    parquet = pq.ParquetFile(path)
    for group in range(parquet.num_row_groups):
        table = parquet.read_row_group(group, columns=columns)
        yield ActivationBatch(
            idx=table["idx"].to_numpy() if "idx" in columns else None,
            labels=table["label"].to_numpy() if "label" in columns else None,
            activations=(
                _block_view(table["activations"], shape) if "activations" in columns else None
            ),
        )


def read_activations(path: str | os.PathLike) -> ActivationBatch:
    """The whole dump as one :class:`ActivationBatch` (copies; for small files and figures)."""
    shape = activation_shape(path)
    batches = list(iter_activations(path))
    if not batches:
        return ActivationBatch(
            idx=np.empty(0, dtype=np.int64),
            labels=np.empty(0, dtype=np.int64),
            activations=np.empty((0, *shape), dtype="<f2"),
        )
    return ActivationBatch(
        idx=np.concatenate([batch.idx for batch in batches]),
        labels=np.concatenate([batch.labels for batch in batches]),
        activations=np.concatenate([batch.activations for batch in batches]),
    )
