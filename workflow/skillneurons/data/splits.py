"""Train/dev/test splits and balanced binary subtasks (paper A, appendix A and §3.2).

Split files (``data/splits/{task}/{split}.parquet``) have the schema

=========  ==========  =====================================================
column     dtype       meaning
=========  ==========  =====================================================
idx        int64       stable id: the row number in the task's raw file
text_a     string      first (or only) text
text_b     string      second text of sentence-pair tasks, null otherwise
label      int64       ``0..k-1``, in the order of the ``label_names`` metadata
=========  ==========  =====================================================

and key metadata ``task``, ``split``, ``task_type``, ``label_names``, ``seed`` and
(for subtask files, ``data/splits/{task}/subtasks/{subtask}/{split}.parquet``)
``subtask`` and ``parent_label_names``. A subtask file's ``idx`` refers to the
parent task's rows, so activations dumped for the parent can be looked up by it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from skillneurons.data.tasks import SPLITS, Subtask, TaskSpec
from skillneurons.infra.io import read_metadata, write_table

SPLIT_SCHEMA = pa.schema(
    [
        pa.field("idx", pa.int64(), nullable=False),
        pa.field("text_a", pa.string(), nullable=False),
        pa.field("text_b", pa.string()),
        pa.field("label", pa.int64(), nullable=False),
    ]
)


class SplitError(ValueError):
    """A split would be empty or lack a declared class, or a subtask would have a single
    class."""


def text_key(frame: pd.DataFrame) -> pd.Series:
    """Each row's example as one string (``text_a`` and ``text_b``): rows with equal keys
    hold the same example, kept once when a task is split."""
    return frame["text_a"].astype(str) + "\x1f" + frame["text_b"].fillna("\x00").astype(str)


def _carve(
    pool: pd.DataFrame, fraction: float, rng: np.random.Generator
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split ``pool`` at random into (rest, carved) with ``round(fraction * n)`` carved."""
    order = rng.permutation(len(pool))
    n_carved = int(round(fraction * len(pool)))
    return pool.iloc[np.sort(order[n_carved:])], pool.iloc[np.sort(order[:n_carved])]


def _where(spec: TaskSpec) -> str:
    """How an error names a task: ``task 'x'``, with its file for a user task."""
    return f"task {spec.name!r}" + (f" (file {spec.path})" if spec.path else "")


def _empty_split(spec: TaskSpec, split: str, rows: int, distinct: int) -> SplitError:
    """The error for an empty ``split`` of a source with ``rows`` rows, ``distinct``
    of them with distinct texts."""
    where = _where(spec)
    if distinct == rows:
        return SplitError(
            f"{where}: split {split!r} is empty ({rows} source rows; check the data and the "
            "split fractions)"
        )
    return SplitError(
        f"{where}: split {split!r} is empty: {rows - distinct} of the {rows} source rows "
        "repeat another row's text and were removed as duplicates (no text may be in two "
        f"splits), leaving {distinct} distinct rows; add more distinct examples (train, "
        "dev and test need one each at least)"
    )


def _class_counts(spec: TaskSpec, labels: pd.Series) -> str:
    """Rows per declared class, in label order: ``negative 3, positive 0``."""
    counts = labels.value_counts()
    return ", ".join(f"{name} {int(counts.get(i, 0))}" for i, name in enumerate(spec.label_names))


def _add_rows(spec: TaskSpec, absent: list[str], split: str | None = None) -> str:
    """How to give a task rows of the ``absent`` classes (in ``split``, or in every split)."""
    if spec.source == "file":
        each = ": train, dev and test need one each at least" if split else ""
        return f"add rows labelled {', '.join(map(repr, absent))}{each}"
    if spec.source == "synthetic":
        sizes = f"{split}_size" if split else "train_size, dev_size and test_size"
        return f"raise synthetic.{sizes}"
    return "this source cannot make the task as declared"


def _missing_class(spec: TaskSpec, splits: dict[str, pd.DataFrame]) -> SplitError | None:
    """The error for splits that lack a declared class, or None when every split has
    a row of each.

    A class without rows cannot be learnt (train), selected on (dev) or scored (test),
    and a task whose rows have one class is no task at all. The data is checked first
    (its rows once repeated texts are removed: the three splits together), then each
    split, so the message says whether to fix ``label_names`` or add rows.
    """
    where, names = _where(spec), spec.label_names
    data = pd.concat([splits[split]["label"] for split in SPLITS])
    absent = [name for i, name in enumerate(names) if not (data == i).any()]
    counts = f"rows per class once repeated texts are removed: {_class_counts(spec, data)}"
    if len(absent) == len(names) - 1:
        (only,) = set(names) - set(absent)
        return SplitError(
            f"{where}: every row is labelled {only!r} ({counts}); a task needs rows of two "
            f"classes at least: {_add_rows(spec, absent)}"
        )
    if absent:
        listed = ", ".join(map(repr, absent))
        key = f"task_definitions.{spec.name}.label_names"
        remove = f"remove {listed} from {key}, or " if spec.source == "file" else ""
        return SplitError(
            f"{where}: no row is labelled {listed} ({counts}); {remove}{_add_rows(spec, absent)}"
        )
    for split in SPLITS:
        lacking = [name for i, name in enumerate(names) if not (splits[split]["label"] == i).any()]
        if lacking:
            per_split = "; ".join(
                f"{name}: {_class_counts(spec, splits[name]['label'])}" for name in SPLITS
            )
            return SplitError(
                f"{where}: split {split!r} has no row labelled {', '.join(map(repr, lacking))} "
                f"(rows per class in {per_split}); {_add_rows(spec, lacking, split)}"
            )
    return None


def make_splits(
    source: pd.DataFrame, spec: TaskSpec, *, seed: int, dev_fraction: float, test_fraction: float
) -> dict[str, pd.DataFrame]:
    """Split a task's standard frame (see :mod:`skillneurons.data.sources`) into train/dev/test.

    Rows keep their position in ``source`` as ``idx``. When the source has no dev
    (test) rows, ``dev_fraction`` (``test_fraction``) of the training rows are
    carved out at random (paper A: 20% of the GLUE training sets become dev).
    Duplicated texts in the training pool are dropped first, so no text lands on both
    sides of a carve; dev and test rows whose text also occurs in train (or test rows
    whose text occurs in dev) are dropped, so dev and test never share an example
    with train, by ``idx`` or by text.

    Raises :class:`SplitError` when a split ends up empty (the message says how many
    distinct texts were left once duplicates were removed), or when the data or a split
    lacks a declared class (:func:`_missing_class`): the split rule refuses such a task
    before any model job reads it.
    """
    rng = np.random.default_rng(seed)
    frame = source.reset_index(drop=True).rename_axis("idx").reset_index()
    frame["key"] = text_key(frame)
    train = frame[frame["role"] == "train"].drop_duplicates("key")
    dev = frame[frame["role"] == "dev"]
    test = frame[frame["role"] == "test"]
    carved_test = test.empty
    if carved_test:
        train, test = _carve(train, test_fraction, rng)
    if dev.empty:
        # dev_fraction is a fraction of the whole training pool, also when test was carved.
        remaining = 1.0 - test_fraction if carved_test else 1.0
        train, dev = _carve(train, dev_fraction / remaining, rng)
    dev = dev[~dev["key"].isin(train["key"])].drop_duplicates("key")
    test = test[~test["key"].isin(train["key"]) & ~test["key"].isin(dev["key"])]
    splits = {"train": train, "dev": dev, "test": test.drop_duplicates("key")}
    for name in SPLITS:
        if splits[name].empty:
            raise _empty_split(spec, name, len(source), frame["key"].nunique())
        splits[name] = splits[name][["idx", "text_a", "text_b", "label"]].reset_index(drop=True)
    missing = _missing_class(spec, splits)
    if missing is not None:
        raise missing
    return splits


def subtask_split(frame: pd.DataFrame, subtask: Subtask, *, seed: int) -> pd.DataFrame:
    """The balanced binary subtask of a multi-class split (paper A, §3.2).

    Rows whose label is in ``subtask.negative`` get label 0, those in
    ``subtask.positive`` label 1, others are dropped. The larger class is then
    subsampled at random (seeded) to the size of the smaller one; ``idx`` keeps
    pointing at the parent task's rows and rows stay in parent order.
    """
    labels = frame["label"]
    keep = labels.isin(subtask.negative) | labels.isin(subtask.positive)
    binary = frame[keep].assign(label=labels[keep].isin(subtask.positive).astype("int64"))
    counts = binary["label"].value_counts()
    if len(counts) < 2:
        raise SplitError(
            f"subtask {subtask.name!r} has a single class in this split "
            f"(labels present: {sorted(labels.unique().tolist())})"
        )
    rng = np.random.default_rng(seed)
    n = int(counts.min())
    chosen = []
    for label in (0, 1):
        positions = np.flatnonzero(binary["label"].to_numpy() == label)
        chosen.append(rng.choice(positions, size=n, replace=False))
    return binary.iloc[np.sort(np.concatenate(chosen))].reset_index(drop=True)


def write_split(path: str, frame: pd.DataFrame, metadata: dict) -> None:
    """Write one split with the documented schema and metadata, atomically."""
    table = pa.Table.from_pandas(
        frame[list(SPLIT_SCHEMA.names)], schema=SPLIT_SCHEMA, preserve_index=False
    )
    write_table(path, table, metadata)


def split_metadata(spec: TaskSpec, split: str, seed: int) -> dict:
    """Key metadata of a split file (see the module docstring)."""
    return {
        "task": spec.name,
        "split": split,
        "task_type": spec.type,
        "label_names": list(spec.label_names),
        "seed": seed,
    }


def read_split(path: str) -> tuple[pd.DataFrame, dict]:
    """A split file as (frame, key metadata)."""
    return pd.read_parquet(path), read_metadata(path)
