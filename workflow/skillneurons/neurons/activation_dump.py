"""Activation dumps: the Parquet file of a split's neuron activations (paper A, §3.1).

:func:`skillneurons.neurons.activations.dump_activations` forwards a split and writes
it through :class:`ActivationWriter`; predictivity (Eqs. 4-6), the selectivity index
and the figures stream it back with :func:`iter_activations`. This module knows the
file, not the model: reading a dump needs no model library.

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
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from skillneurons.infra.io import atomic_path, read_metadata

#: Activations stored per sample, in this order.
LAYOUT = "[layers, tokens, neurons]"
STORAGE_DTYPE = "float16"
COLUMNS = ("idx", "label", "activations")
#: Compression of the Parquet dump (see the module docstring).
COMPRESSION = "none"
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


def _numpy(values):
    """A tensor (anything with ``detach``) as a numpy array on the CPU; others unchanged."""
    return values.detach().cpu().numpy() if hasattr(values, "detach") else values


def _int64(values) -> np.ndarray:
    return np.ascontiguousarray(_numpy(values), dtype=np.int64).reshape(-1)


def _float16_block(activations) -> np.ndarray:
    """C-contiguous little-endian float16 numpy array (copies only when needed)."""
    return np.ascontiguousarray(_numpy(activations), dtype="<f2")


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
