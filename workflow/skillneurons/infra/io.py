"""Atomic writers and typed readers for every file a rule exchanges.

Each writer writes to a temporary file beside the target and renames it into
place, so a job killed mid-write never leaves a file that Snakemake (or a reader)
would take as complete. The temporary file has one name per target,
``.<name>.tmp`` (:func:`temporary_path`): a killed write leaves it behind, and the
job's rerun overwrites it and renames it into place, so no temporary file outlives
the rerun. A write that fails for want of space (a full disk or an exhausted quota)
removes its temporary file too and raises an ``OSError`` that names the file it was
writing (:func:`atomic_path`). In a job launched as several processes only the main one
writes; the others write to a scratch folder that is discarded
(:mod:`skillneurons.infra.launch`).
Files are created as ``open()`` creates them, with the mode the user's
umask gives (a results folder shared by a group stays readable to the group).

Formats: Parquet for tables, safetensors for tensors, JSON for small metrics; never
pickles. Torch and safetensors are imported only by
the tensor functions, so data rules start fast.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from skillneurons.infra.launch import writes_outputs

if TYPE_CHECKING:
    import torch


def current_umask() -> int:
    """The process's file-mode creation mask."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def apply_umask(path: str | os.PathLike) -> None:
    """Give a file (or a directory and everything in it) written by a library that
    creates files private (``0600``) the mode ``open()`` would have given: ``0o666``
    (``0o777`` for directories) less the umask."""
    mask = current_umask()
    root = Path(path)
    for item in [root, *root.rglob("*")] if root.is_dir() else [root]:
        item.chmod((0o777 if item.is_dir() else 0o666) & ~mask)


#: Error numbers of a write that failed for want of space: a full filesystem, a quota.
NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


def _error_number(error: BaseException) -> int | None:
    """The OS error number behind a failed write: an ``OSError``'s errno, or the
    ``(os error N)`` a Rust library (safetensors) writes into its message."""
    if isinstance(error, OSError):
        return error.errno
    found = re.search(r"\(os error (\d+)\)", str(error))
    return int(found.group(1)) if found else None


def _no_space(error: BaseException, target: Path) -> OSError | None:
    """For a write of ``target`` that failed for want of space, an ``OSError`` naming
    ``target`` (pyarrow's and safetensors' errors name no file); None for another failure."""
    number = _error_number(error)
    if number not in NO_SPACE:
        return None
    return OSError(
        number,
        f"{os.strerror(number)} while writing {target} (its temporary file was removed: "
        "nothing was written there); free space on that filesystem and rerun",
    )


def temporary_path(path: str | os.PathLike) -> Path:
    """The one temporary name of ``path`` while it is written: ``.<name>.tmp`` beside it."""
    target = Path(path)
    return target.with_name(f".{target.name}.tmp")


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield :func:`temporary_path` of ``path`` (not created yet); rename it to ``path``
    on success.

    A leftover of an earlier, killed attempt is removed first; on an exception the
    temporary file is removed; a kill, which never reaches the rename, leaves it with
    a hidden ``.tmp`` name that no rule declares as output, for the rerun to replace.
    A failure for want of space is raised again as an ``OSError`` naming ``path``
    (:func:`_no_space`). In a launched job's other processes the path lies in a scratch
    folder, removed after.
    """
    target = Path(path)
    if not writes_outputs():
        with tempfile.TemporaryDirectory() as scratch:
            yield Path(scratch) / target.name
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = temporary_path(target)
    if tmp_path.is_dir():
        shutil.rmtree(tmp_path)
    tmp_path.unlink(missing_ok=True)
    try:
        yield tmp_path
        if target.is_dir() and tmp_path.is_dir():
            shutil.rmtree(target)
        os.replace(tmp_path, target)
    except Exception as error:
        full = _no_space(error, target)
        if full is None:
            raise
        raise full from error
    finally:
        if tmp_path.is_dir():
            shutil.rmtree(tmp_path)
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


def write_frame_parquet(
    path: str | os.PathLike, frame: pd.DataFrame, metadata: Mapping[str, object] | None = None
) -> None:
    """Write a data frame (without its index) as Parquet, atomically, with JSON key
    metadata (:func:`write_table`)."""
    write_table(path, pa.Table.from_pandas(frame, preserve_index=False), metadata)


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


def _write_safetensors(save_file, path: str | os.PathLike, values: Mapping, metadata) -> None:
    meta = {"skillneurons": json.dumps(dict(metadata or {}), sort_keys=True)}
    with atomic_path(path) as tmp:
        save_file(values, str(tmp), metadata=meta)
        apply_umask(tmp)  # safetensors creates its file private (0600)


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

    contiguous = {key: value.detach().contiguous().cpu() for key, value in tensors.items()}
    _write_safetensors(save_file, path, contiguous, metadata)


def write_arrays(
    path: str | os.PathLike,
    arrays: Mapping[str, np.ndarray],
    metadata: Mapping[str, object] | None = None,
) -> None:
    """:func:`write_tensors` for numpy arrays (the same file, without loading torch)."""
    from safetensors.numpy import save_file

    contiguous = {key: np.ascontiguousarray(value) for key, value in arrays.items()}
    _write_safetensors(save_file, path, contiguous, metadata)


def read_tensors(path: str | os.PathLike) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(path))


def read_arrays(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """A safetensors file's tensors as numpy arrays (without loading torch)."""
    from safetensors.numpy import load_file

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
