"""Atomic writers and typed readers for every file a rule exchanges.

Each writer writes to a temporary file beside the target and renames it into
place, so a job killed mid-write never leaves a file that Snakemake (or a reader)
would take as complete. Formats: Parquet for tables, safetensors for tensors,
JSON for small metrics; never pickles. Torch and safetensors are imported only by
the tensor functions, so data rules start fast.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

if TYPE_CHECKING:
    import torch


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it to ``path`` on success.

    On an exception (or a kill, which never reaches the rename) the temporary file
    is removed or left with a ``.tmp`` name that no rule declares as output.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    finally:
        tmp_path.unlink(missing_ok=True)


def write_json(path: str | os.PathLike, payload: Mapping) -> None:
    """Write ``payload`` as indented, key-sorted JSON, atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")


def read_json(path: str | os.PathLike) -> dict:
    return json.loads(Path(path).read_text())


def write_table(
    path: str | os.PathLike, table: pa.Table, metadata: Mapping[str, object] | None = None
) -> None:
    """Write an Arrow table as Parquet, atomically, with JSON-encoded key metadata.

    ``metadata`` values are stored under their keys as JSON strings in the schema
    metadata, so :func:`read_metadata` returns them with their types.
    """
    if metadata:
        encoded = {key: json.dumps(value) for key, value in metadata.items()}
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **encoded})
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)


def read_metadata(path: str | os.PathLike) -> dict[str, object]:
    """The JSON key metadata written by :func:`write_table` (other keys are skipped)."""
    raw = pq.read_schema(path).metadata or {}
    decoded = {}
    for key, value in raw.items():
        name = key.decode()
        if name.startswith("ARROW:") or name == "pandas":
            continue
        try:
            decoded[name] = json.loads(value)
        except json.JSONDecodeError:
            continue
    return decoded


def write_tensors(
    path: str | os.PathLike,
    tensors: Mapping[str, torch.Tensor],
    metadata: Mapping[str, object] | None = None,
) -> None:
    """Write tensors as safetensors, atomically.

    ``metadata`` is stored as one key-sorted JSON string under the header key
    ``skillneurons`` (safetensors orders several header keys arbitrarily, which
    would make equal tensors give different bytes).
    """
    from safetensors.torch import save_file

    meta = {"skillneurons": json.dumps(dict(metadata or {}), sort_keys=True)}
    contiguous = {key: value.detach().contiguous().cpu() for key, value in tensors.items()}
    with atomic_path(path) as tmp:
        save_file(contiguous, str(tmp), metadata=meta)


def read_tensors(path: str | os.PathLike) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(path))


def read_tensor_metadata(path: str | os.PathLike) -> dict[str, object]:
    """The metadata written by :func:`write_tensors`."""
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as handle:
        return json.loads((handle.metadata() or {}).get("skillneurons", "{}"))


def stable_hash(payload: object) -> str:
    """A short hash of JSON-serialisable settings, stable across runs and machines."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
