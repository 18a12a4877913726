"""Raw examples of a task, from the Hugging Face Hub, a local copy, a user file or the
synthetic generator, in one standard frame.

The standard frame has the columns ``text_a`` (str), ``text_b`` (str or null),
``label`` (int64, ``0..k-1`` in the order of the task's label names) and ``role``
(``"train"``, ``"dev"`` or ``"test"``: which split a row may end up in; dev and
test rows are carved out of ``"train"`` rows when a source has none; see
:func:`skillneurons.data.splits.make_splits`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

import pandas as pd
import pyarrow as pa

from skillneurons.data.synthetic import generate_task
from skillneurons.data.tasks import TaskError, TaskSpec
from skillneurons.infra.io import write_table

STANDARD_COLUMNS = ("text_a", "text_b", "label", "role")
RAW_SCHEMA = pa.schema(
    [
        pa.field("text_a", pa.string(), nullable=False),
        pa.field("text_b", pa.string()),
        pa.field("label", pa.int64(), nullable=False),
        pa.field("role", pa.string(), nullable=False),
    ]
)


class DataSourceError(RuntimeError):
    """A task's source could not be read (no network, missing file, bad columns)."""


def standardize(frame: pd.DataFrame, spec: TaskSpec, role: str, where: str) -> pd.DataFrame:
    """Map a source frame onto the standard columns, checking columns and labels.

    Labels may be integers or label names. For tasks restricted to some source
    classes (``spec.keep_labels``) other rows are dropped and kept ones renumbered.
    ``where`` names the source in error messages.
    """
    needed = [*spec.text_columns, spec.label_column]
    missing = [column for column in needed if column not in frame.columns]
    if missing:
        raise DataSourceError(
            f"task {spec.name!r}: {where} has no column(s) {', '.join(map(repr, missing))}; "
            f"its columns are {', '.join(map(str, frame.columns))}"
        )
    labels = frame[spec.label_column]
    if labels.isna().any():
        raise DataSourceError(f"task {spec.name!r}: {where} has missing labels")
    if not pd.api.types.is_integer_dtype(labels):
        lookup = {name: i for i, name in enumerate(spec.label_names)}
        unknown = sorted(set(map(str, labels)) - set(lookup))
        if unknown:
            raise DataSourceError(
                f"task {spec.name!r}: {where} has labels {unknown[:5]} outside the declared "
                f"label_names {list(spec.label_names)}"
            )
        labels = labels.astype(str).map(lookup)
    labels = labels.astype("int64")
    if spec.keep_labels is not None:
        remap = {source: i for i, source in enumerate(spec.keep_labels)}
        keep = labels.isin(remap)
        frame, labels = frame[keep], labels[keep].map(remap).astype("int64")
    bad = sorted(set(labels) - set(range(spec.num_labels)))
    if bad:
        raise DataSourceError(
            f"task {spec.name!r}: {where} has labels {bad[:5]} outside 0..{spec.num_labels - 1} "
            f"(label_names {list(spec.label_names)})"
        )
    text_b = frame[spec.text_columns[1]].astype(str) if spec.is_pair else None
    return pd.DataFrame(
        {
            "text_a": frame[spec.text_columns[0]].astype(str).to_numpy(),
            "text_b": text_b.to_numpy() if text_b is not None else [None] * len(frame),
            "label": labels.to_numpy(),
            "role": role,
        }
    )


def _source_roles(spec: TaskSpec) -> dict[str, str]:
    """Source split name -> role, for a Hub task."""
    roles = {spec.train_split: "train"}
    if spec.dev_split is not None:
        roles[spec.dev_split] = "dev"
    if spec.test_split is not None:
        roles[spec.test_split] = "test"
    return roles


def frame_from_splits(
    spec: TaskSpec, splits: Mapping[str, pd.DataFrame], where: str
) -> pd.DataFrame:
    """Concatenate a Hub task's source splits (name -> frame) into the standard frame."""
    parts = []
    for split, role in _source_roles(spec).items():
        if split not in splits:
            raise DataSourceError(
                f"task {spec.name!r}: {where} has no split {split!r}; it has {', '.join(splits)}"
            )
        parts.append(standardize(splits[split], spec, role, f"{where} split {split!r}"))
    return pd.concat(parts, ignore_index=True)


def _read_local_copy(spec: TaskSpec, folder: Path) -> pd.DataFrame:
    """A local copy of a Hub dataset: one ``{split}.parquet`` (or .jsonl/.csv) per split."""
    splits = {}
    for split in _source_roles(spec):
        candidates = [folder / f"{split}.{suffix}" for suffix in ("parquet", "jsonl", "csv")]
        found = next((path for path in candidates if path.exists()), None)
        if found is None:
            raise DataSourceError(
                f"task {spec.name!r}: local copy {folder} has no {split}.parquet/.jsonl/.csv"
            )
        splits[split] = read_file(found)
    return frame_from_splits(spec, splits, f"local copy {folder}")


def _download(
    spec: TaskSpec, revision: str, cache_dir: str, load_dataset: Callable | None
) -> pd.DataFrame:
    if load_dataset is None:
        from datasets import load_dataset
    where = f"{spec.dataset}" + (f" ({spec.dataset_config})" if spec.dataset_config else "")
    try:
        dataset = load_dataset(
            spec.dataset, spec.dataset_config, revision=revision, cache_dir=cache_dir
        )
    except Exception as error:  # the datasets library raises many types when offline
        raise DataSourceError(
            f"task {spec.name!r}: could not download {where} at revision {revision!r} from "
            f"the Hugging Face Hub ({type(error).__name__}: {error}). Offline alternatives: "
            f"use its synthetic twin 'syn_{spec.name}', put a local copy of the dataset "
            f"(one <split>.parquet per split) in a folder and set "
            f"data.local_datasets.{spec.name} to it, or define a task from a local file "
            "under task_definitions."
        ) from error
    splits = {name: part.to_pandas() for name, part in dataset.items()}
    return frame_from_splits(spec, splits, where)


def read_file(path: str | os.PathLike, file_format: str | None = None) -> pd.DataFrame:
    """Read a CSV, JSON Lines or Parquet file into a frame."""
    path = Path(path)
    if not path.exists():
        raise DataSourceError(f"data file {path} does not exist")
    fmt = file_format or path.suffix.lstrip(".").lower()
    if fmt == "parquet":
        return pd.read_parquet(path)
    if fmt in ("jsonl", "json"):
        return pd.read_json(path, lines=True)
    if fmt == "csv":
        return pd.read_csv(path)
    raise DataSourceError(f"data file {path}: unknown format {fmt!r} (csv, jsonl, parquet)")


def load_source(
    spec: TaskSpec,
    *,
    seed: int = 0,
    synthetic_sizes: Mapping[str, int] | None = None,
    label_noise: float = 0.0,
    revision: str = "main",
    cache_dir: str = "data/hf_cache",
    local_copy: str | None = None,
    load_dataset: Callable | None = None,
) -> pd.DataFrame:
    """All raw examples of a task as the standard frame (see the module docstring).

    Parameters
    ----------
    spec : the task.
    seed : seed of the synthetic generator.
    synthetic_sizes : ``{"train": n, "dev": n, "test": n}`` for synthetic tasks.
    label_noise : fraction of flipped labels of synthetic tasks.
    revision, cache_dir : Hub revision (pin a commit for reproducibility) and cache.
    local_copy : folder with a local copy of a Hub task; used instead of the Hub.
    load_dataset : replacement for ``datasets.load_dataset`` (tests).
    """
    if spec.source == "synthetic":
        sizes = synthetic_sizes or {}
        counts = [int(sizes.get(split, 0)) for split in ("train", "dev", "test")]
        frame = generate_task(spec.name, sum(counts), seed=seed, label_noise=label_noise)
        roles = ["train"] * counts[0] + ["dev"] * counts[1] + ["test"] * counts[2]
        return frame.assign(role=roles)[list(STANDARD_COLUMNS)]
    if spec.source == "file":
        frame = read_file(spec.path, spec.file_format)
        return standardize(frame, spec, "train", f"file {spec.path}")
    if spec.source == "hub":
        if local_copy:
            return _read_local_copy(spec, Path(local_copy))
        return _download(spec, revision, cache_dir, load_dataset)
    raise TaskError(f"task {spec.name!r}: unknown source {spec.source!r}")


def write_raw(path: str, frame: pd.DataFrame, spec: TaskSpec) -> None:
    """Write a task's standard frame as ``data/raw/{task}.parquet``, atomically."""
    if frame.empty:
        raise DataSourceError(f"task {spec.name!r}: the source has no examples")
    table = pa.Table.from_pandas(
        frame[list(STANDARD_COLUMNS)], schema=RAW_SCHEMA, preserve_index=False
    )
    write_table(path, table, {"task": spec.name, "source": spec.source})


def read_raw(path: str) -> pd.DataFrame:
    return pd.read_parquet(path)
