"""Raw examples of a task, from the Hugging Face Hub, a local copy, a user file or the
synthetic generator, in one standard frame.

The standard frame has the columns ``text_a`` (str), ``text_b`` (str or null),
``label`` (int64, ``0..k-1`` in the order of the task's label names) and ``role``
(``"train"``, ``"dev"`` or ``"test"``: which split a row may end up in; dev and
test rows are carved out of ``"train"`` rows when a source has none; see
:func:`skillneurons.data.splits.make_splits`). A text that appears with different
labels is refused, dropped or kept with its first label, as the task's
``on_conflicting_labels`` says (:func:`resolve_conflicting_labels`).
"""

from __future__ import annotations

import codecs
import csv
import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from skillneurons.data.splits import text_key
from skillneurons.data.synthetic import SYNTHETIC_TASKS, generate_task
from skillneurons.data.tasks import TaskError, TaskSpec
from skillneurons.infra.io import write_table

LOG = logging.getLogger(__name__)
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


#: How rows are numbered in messages, by the index name :func:`read_file` gives a frame:
#: CSV data rows from 1 (the first row below the header), JSON Lines line numbers, and
#: Parquet rows from 1; other frames (Hub splits) are numbered ``row`` from 1.
ROW_UNITS = ("data row", "line", "row")
SHOWN_ROWS = 5
#: Texts with different labels an error names (with their rows), before "and N more".
SHOWN_CONFLICTS = 3
#: Characters of a text an error quotes.
SHOWN_CHARACTERS = 40


def _numbered(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with an index of row numbers as a user sees them (see :data:`ROW_UNITS`)."""
    if frame.index.name in ROW_UNITS:
        return frame
    return frame.set_axis(pd.RangeIndex(1, len(frame) + 1, name="row"))


def _rows(frame: pd.DataFrame, mask: pd.Series) -> str:
    """The rows of ``frame`` where ``mask`` holds, for a message: ``data rows 2, 7``."""
    numbers = frame.index[mask.to_numpy()].tolist()
    shown = ", ".join(map(str, numbers[:SHOWN_ROWS]))
    more = f" and {len(numbers) - SHOWN_ROWS} more" if len(numbers) > SHOWN_ROWS else ""
    return f"{frame.index.name}{'s' if len(numbers) > 1 else ''} {shown}{more}"


def _require_filled(frame: pd.DataFrame, column: str, where: str) -> None:
    """Refuse empty (null) cells in ``column``, naming the rows."""
    empty = frame[column].isna()
    if empty.any():
        cells = "an empty cell" if empty.sum() == 1 else f"{empty.sum()} empty cells"
        raise DataSourceError(
            f"{where} has {cells} in column {column!r} ({_rows(frame, empty)}); "
            "fill those cells or drop those rows"
        )


def _is_integer(value: object) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _require_not_blank(frame: pd.DataFrame, texts: pd.Series, column: str, where: str) -> None:
    """Refuse texts that are empty or only whitespace (``"   "``), naming the rows."""
    blank = texts.str.strip() == ""
    if blank.any():
        count = "a blank text" if blank.sum() == 1 else f"{blank.sum()} blank texts"
        raise DataSourceError(
            f"{where} has {count} (empty or only whitespace) in column {column!r} "
            f"({_rows(frame, blank)}); write the text in those cells or drop those rows"
        )


def _text_column(frame: pd.DataFrame, column: str, where: str) -> pd.Series:
    """The values of a text column as strings.

    Empty cells are refused. Integers (an integer Parquet column, or numbers in a JSON
    Lines file) become their decimal text, which loses nothing, and the conversion is
    logged; any other non-text value (floats, booleans, lists, ...) is refused, since
    its text form is a guess (``007`` stored as the float 7.0 cannot be recovered).
    """
    _require_filled(frame, column, where)
    values = frame[column]
    if pd.api.types.is_integer_dtype(values):
        integer = pd.Series(True, index=values.index)
    elif pd.api.types.is_string_dtype(values) and values.dtype != object:
        return values
    else:
        integer = values.map(_is_integer).astype(bool)
    text = integer | values.map(lambda value: isinstance(value, str)).astype(bool)
    if not text.all():
        first = values[~text].iloc[0]
        first = first.tolist() if isinstance(first, np.generic | np.ndarray) else first
        raise DataSourceError(
            f"{where}: column {column!r} holds {type(first).__name__} values, not text "
            f"({_rows(frame, ~text)}, e.g. {first!r}); store that column as strings"
        )
    if integer.any():
        LOG.warning(
            "%s: column %r holds integers (%s); they are read as their decimal text",
            where,
            column,
            _rows(frame, integer),
        )
    return values.astype(str)


def _label_ids(frame: pd.DataFrame, spec: TaskSpec, where: str) -> pd.Series:
    """The label column as integer ids (not yet checked against the label count).

    Labels are compared as text with surrounding whitespace stripped (``" positive "``
    is ``positive``; ``1`` is ``"1"``). When every label is one of ``spec.label_names``
    labels are names; otherwise, when every label is an integer, they are ids
    ``0..k-1`` into ``label_names`` (or a Hub dataset's own ids). Mixing both is refused.
    """
    column = spec.label_column
    _require_filled(frame, column, where)
    text = frame[column].astype(str).str.strip()
    lookup = {name: i for i, name in enumerate(spec.label_names)}
    is_name = text.isin(lookup)
    if is_name.all():
        return text.map(lookup).astype("int64")
    is_integer = text.str.fullmatch(r"[+-]?\d+").astype(bool)
    if is_integer.all():
        return text.astype("int64")
    unknown = ~is_name & ~is_integer
    if unknown.any():
        values = sorted(set(text[unknown]))
        raise DataSourceError(
            f"{where} has labels {values[:SHOWN_ROWS]} ({_rows(frame, unknown)}) in column "
            f"{column!r} that are not among the declared label_names "
            f"{list(spec.label_names)}; write one of those names, or integers "
            f"0..{spec.num_labels - 1} indexing them"
        )
    raise DataSourceError(
        f"{where} mixes label names ({_rows(frame, is_name)}) and integer labels "
        f"({_rows(frame, is_integer & ~is_name)}) in column {column!r}; write either the "
        f"names {list(spec.label_names)} or integers 0..{spec.num_labels - 1}, not both"
    )


def standardize(frame: pd.DataFrame, spec: TaskSpec, role: str, where: str) -> pd.DataFrame:
    """Map a source frame onto the standard columns, checking columns, texts and labels.

    Texts must be filled in and be text (see :func:`_text_column`); the texts of a
    user's file (``spec.source == "file"``) must also hold more than whitespace (a Hub
    dataset's are kept as published). Labels may be integers or label names (see
    :func:`_label_ids`). For tasks restricted to some source classes
    (``spec.keep_labels``) other rows are dropped and kept ones renumbered. ``where``
    names the source in error messages, which number rows as :data:`ROW_UNITS` says;
    the returned frame keeps those row numbers as its index.
    """
    where = f"task {spec.name!r}: {where}"
    frame = _numbered(frame)
    needed = [*spec.text_columns, spec.label_column]
    missing = [column for column in needed if column not in frame.columns]
    if missing:
        raise DataSourceError(
            f"{where} has no column(s) {', '.join(map(repr, missing))}; "
            f"its columns are {', '.join(map(str, frame.columns))}"
        )
    labels = _label_ids(frame, spec, where)
    if spec.keep_labels is not None:
        remap = {source: i for i, source in enumerate(spec.keep_labels)}
        keep = labels.isin(remap)
        frame, labels = frame[keep], labels[keep].map(remap).astype("int64")
    outside = ~labels.isin(range(spec.num_labels))
    if outside.any():
        raise DataSourceError(
            f"{where} has labels {sorted(set(labels[outside]))[:SHOWN_ROWS]} outside "
            f"0..{spec.num_labels - 1} ({_rows(frame, outside)}); integer labels index "
            f"label_names {list(spec.label_names)}, so they must lie in 0..{spec.num_labels - 1}"
        )
    texts = [_text_column(frame, column, where) for column in spec.text_columns]
    if spec.source == "file":
        for column, values in zip(spec.text_columns, texts, strict=True):
            _require_not_blank(frame, values, column, where)
    return pd.DataFrame(
        {
            "text_a": texts[0].to_numpy(),
            "text_b": texts[1].to_numpy() if spec.is_pair else [None] * len(frame),
            "label": labels.to_numpy(),
            "role": role,
        },
        index=frame.index,
    )


def _excerpt(text: str) -> str:
    """A text as an error quotes it: its first :data:`SHOWN_CHARACTERS` characters."""
    if len(text) <= SHOWN_CHARACTERS:
        return repr(text)
    return repr(text[:SHOWN_CHARACTERS]) + "..."


def _describe_conflicts(
    frame: pd.DataFrame, keys: pd.Series, conflicting: pd.Series, spec: TaskSpec
) -> str:
    """The texts of ``frame`` with different labels, for a message: how many, on how many
    rows, and the first :data:`SHOWN_CONFLICTS` with their rows, an excerpt and their
    labels: ``2 texts appear with different labels (4 rows; data rows 1, 2 ('great':
    negative, positive); ...)``."""
    texts, rows = keys[conflicting].nunique(), int(conflicting.sum())
    shown = []
    for key in keys[conflicting].unique()[:SHOWN_CONFLICTS]:
        same = keys == key
        labels = ", ".join(spec.label_names[label] for label in frame.loc[same, "label"].unique())
        excerpt = _excerpt(frame.loc[same, "text_a"].iloc[0])
        shown.append(f"{_rows(frame, same)} ({excerpt}: {labels})")
    more = f"; and {texts - SHOWN_CONFLICTS} more" if texts > SHOWN_CONFLICTS else ""
    verb = "text appears" if texts == 1 else "texts appear"
    return f"{texts} {verb} with different labels ({rows} rows; {'; '.join(shown)}{more})"


def resolve_conflicting_labels(frame: pd.DataFrame, spec: TaskSpec, where: str) -> pd.DataFrame:
    """Refuse, drop or keep texts that appear with different labels, as
    ``spec.on_conflicting_labels`` says; the standard frame that remains, renumbered.

    A text (``text_a`` with ``text_b``, compared exactly, as the split's deduplication
    compares them) whose rows carry more than one label cannot be learnt or scored:
    splitting keeps one row per text, so its first row's label would win silently.
    ``"error"`` raises :class:`DataSourceError` naming the first conflicts' rows
    (numbered as :data:`ROW_UNITS` says), their labels and how many texts conflict;
    ``"drop"`` removes every row of those texts and ``"first"`` leaves the frame as it
    is (the split keeps each text's first row); both log what they did, with counts.
    ``where`` names the source (``task 'x': file data/x.csv``).
    """
    frame = _numbered(frame)
    keys = text_key(frame)
    conflicting = frame["label"].groupby(keys).transform("nunique") > 1
    if not conflicting.any():
        return frame.reset_index(drop=True)
    found = _describe_conflicts(frame, keys, conflicting, spec)
    key = f"task_definitions.{spec.name}.on_conflicting_labels"
    if spec.on_conflicting_labels == "error":
        raise DataSourceError(
            f"{where}: {found}; correct those labels, or set {key} to drop (remove every "
            "row of such a text) or first (keep the label of its first row)"
        )
    rows, texts = int(conflicting.sum()), keys[conflicting].nunique()
    if spec.on_conflicting_labels == "drop":
        if conflicting.all():
            raise DataSourceError(
                f"{where}: {found}, and on_conflicting_labels drop leaves no row; "
                "correct those labels"
            )
        LOG.warning(
            "%s: %s; dropped those %d rows (on_conflicting_labels: drop)", where, found, rows
        )
        return frame[~conflicting].reset_index(drop=True)
    later = rows - texts
    LOG.warning(
        "%s: %s; kept the label of each text's first row (on_conflicting_labels: first): "
        "%d later row%s of those texts %s removed as repeats when the task is split",
        where,
        found,
        later,
        "" if later == 1 else "s",
        "is" if later == 1 else "are",
    )
    return frame.reset_index(drop=True)


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
    frame = pd.concat(parts, ignore_index=True)
    return resolve_conflicting_labels(frame, spec, f"task {spec.name!r}: {where}")


def read_local_splits(folder: Path, splits: Iterable[str], owner: str) -> dict[str, pd.DataFrame]:
    """The splits of a local copy of a Hub dataset: one ``{split}.parquet`` (or
    ``.jsonl``, ``.csv``) per split; ``owner`` names the task in errors."""
    frames = {}
    for split in splits:
        candidates = [folder / f"{split}.{suffix}" for suffix in ("parquet", "jsonl", "csv")]
        found = next((path for path in candidates if path.exists()), None)
        if found is None:
            raise DataSourceError(
                f"{owner}: local copy {folder} has no {split}.parquet/.jsonl/.csv"
            )
        frames[split] = read_file(found)
    return frames


def _read_local_copy(spec: TaskSpec, folder: Path) -> pd.DataFrame:
    """A local copy of a Hub dataset as the standard frame."""
    splits = read_local_splits(folder, _source_roles(spec), f"task {spec.name!r}")
    return frame_from_splits(spec, splits, f"local copy {folder}")


def local_copy_advice(name: str) -> str:
    """How to use a local copy of Hub task ``name`` instead of downloading it."""
    return (
        "put a local copy of the dataset (one <split>.parquet per split) in a folder and "
        f"set data.local_datasets.{name} to it"
    )


def download_splits(
    dataset: str,
    dataset_config: str | None,
    revision: str,
    cache_dir: str,
    load_dataset: Callable | None,
    *,
    owner: str,
    alternatives: str,
) -> tuple[dict[str, pd.DataFrame], str]:
    """A Hub dataset's splits (name -> frame) and its description for messages.

    ``owner`` names the task in errors; ``alternatives`` is the offline advice a failed
    download gives.
    """
    if load_dataset is None:
        from datasets import load_dataset
    where = dataset + (f" ({dataset_config})" if dataset_config else "")
    try:
        loaded = load_dataset(dataset, dataset_config, revision=revision, cache_dir=cache_dir)
    except Exception as error:  # the datasets library raises many types when offline
        raise DataSourceError(
            f"{owner}: could not download {where} at revision {revision!r} from "
            f"the Hugging Face Hub ({type(error).__name__}: {error}). Offline alternatives: "
            f"{alternatives}"
        ) from error
    return {name: part.to_pandas() for name, part in loaded.items()}, where


def _download(
    spec: TaskSpec, revision: str, cache_dir: str, load_dataset: Callable | None
) -> pd.DataFrame:
    twin = f"use its synthetic twin 'syn_{spec.name}', " if f"syn_{spec.name}" in SYNTHETIC_TASKS else ""
    alternatives = (
        f"{twin}{local_copy_advice(spec.name)}, or define a task from a local file under "
        "task_definitions."
    )
    splits, where = download_splits(
        spec.dataset, spec.dataset_config, revision, cache_dir, load_dataset,
        owner=f"task {spec.name!r}", alternatives=alternatives,
    )  # fmt: skip
    return frame_from_splits(spec, splits, where)


def _decode_error(path: Path, encoding: str, key: str | None) -> DataSourceError:
    """The error for a file that is not valid text in ``encoding``: the first bad line."""
    fix = "save it as UTF-8"
    if key:
        fix += f" or set {key}.encoding to its encoding (e.g. latin-1 or cp1252)"
    with open(path, "rb") as stream:
        for number, line in enumerate(stream, 1):
            try:
                line.decode(encoding)
            except UnicodeDecodeError as error:
                return DataSourceError(
                    f"data file {path} is not {encoding} text: byte 0x{line[error.start]:02x} "
                    f"on line {number} cannot be decoded; {fix}"
                )
    return DataSourceError(f"data file {path} is not {encoding} text; {fix}")


def _read_csv(path: Path, encoding: str) -> pd.DataFrame:
    """A CSV file with every cell as text (no type guessing: ``007`` stays ``007``); only
    empty cells are missing (``NA`` or ``null`` are texts)."""
    try:
        frame = pd.read_csv(
            path, dtype=str, keep_default_na=False, na_values=[""], encoding=encoding
        )
    except pd.errors.EmptyDataError as error:
        raise DataSourceError(
            f"data file {path} is empty; write a header row naming the columns, then one "
            "row per example"
        ) from error
    except pd.errors.ParserError as error:
        raise DataSourceError(
            f"data file {path} is not valid CSV ({' '.join(str(error).split())}); a cell "
            'that holds a comma, a quote or a line break must be in double quotes ("a, b")'
        ) from error
    _require_distinct_header(path, encoding)
    return frame.set_axis(pd.RangeIndex(1, len(frame) + 1, name="data row"))


def _require_distinct_header(path: Path, encoding: str) -> None:
    """Refuse a CSV header that repeats a column name (pandas would silently read the
    first and rename the second ``text.1``); empty names are left to pandas."""
    with open(path, encoding=encoding, newline="") as stream:
        header = next(csv.reader(stream))
    for name in dict.fromkeys(header):
        columns = [i for i, cell in enumerate(header, 1) if cell == name]
        if name and len(columns) > 1:
            raise DataSourceError(
                f"data file {path} repeats the column name {name!r} in its header "
                f"(columns {', '.join(map(str, columns))}); give each column its own name"
            )


def _read_json_lines(path: Path, encoding: str) -> pd.DataFrame:
    """A JSON Lines file: one JSON object per line (blank lines skipped), indexed by line."""
    records, lines = [], []
    with open(path, encoding=encoding) as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise DataSourceError(
                    f"data file {path}: line {number} is not valid JSON ({error.msg}, column "
                    f"{error.pos + 1}); fix or delete that line (JSON Lines: one object per line)"
                ) from error
            if not isinstance(record, dict):
                raise DataSourceError(
                    f"data file {path}: line {number} holds a JSON {type(record).__name__}, "
                    'not an object; write one object per line, e.g. {"text": ..., "label": ...}'
                )
            records.append(record)
            lines.append(number)
    return pd.DataFrame.from_records(records, index=pd.Index(lines, name="line"))


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        frame = pd.read_parquet(path)
    except (pa.ArrowException, OSError) as error:
        raise DataSourceError(
            f"data file {path} is not a readable Parquet file ({' '.join(str(error).split())}); "
            "write it with pandas.DataFrame.to_parquet or set 'format' to the file's format"
        ) from error
    return frame.set_axis(pd.RangeIndex(1, len(frame) + 1, name="row"))


def read_file(
    path: str | os.PathLike,
    file_format: str | None = None,
    *,
    encoding: str = "utf-8",
    key: str | None = None,
) -> pd.DataFrame:
    """Read a CSV, JSON Lines or Parquet file into a frame indexed by row number.

    The index counts rows as a user sees them in the file (see :data:`ROW_UNITS`).
    CSV cells are all read as text. ``encoding`` is that of a CSV or JSON Lines file
    (a UTF-8 byte-order mark is skipped); Parquet text is always UTF-8.
    ``key`` is the config entry the file comes from (``task_definitions.<task>``),
    named in errors with the setting to change. A directory, a CSV header that repeats
    a column name and a file without data rows are refused.
    """
    path = Path(path)
    if not path.exists():
        check = f"; check {key}.path (a relative path starts at the working directory)"
        raise DataSourceError(f"data file {path} does not exist{check if key else ''}")
    if path.is_dir():
        setting = f"set {key}.path to" if key else "give"
        raise DataSourceError(
            f"data file {path} is a directory; {setting} one file: CSV (.csv), JSON Lines "
            "(.jsonl) or Parquet (.parquet)"
        )
    fmt = file_format or path.suffix.lstrip(".").lower()
    if fmt not in ("parquet", "jsonl", "json", "csv"):
        raise DataSourceError(f"data file {path}: unknown format {fmt!r} (csv, jsonl, parquet)")
    text_encoding = "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding
    try:
        if fmt == "parquet":
            frame = _read_parquet(path)
        elif fmt == "csv":
            frame = _read_csv(path, text_encoding)
        else:
            frame = _read_json_lines(path, text_encoding)
    except UnicodeDecodeError as error:
        raise _decode_error(path, encoding, key) from error
    if frame.empty:
        raise DataSourceError(f"data file {path} has no data rows; add one row per example")
    return frame


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
        frame = frame.assign(role=roles)[list(STANDARD_COLUMNS)]
        return resolve_conflicting_labels(frame, spec, f"task {spec.name!r}: generator")
    if spec.source == "file":
        frame = read_file(
            spec.path,
            spec.file_format,
            encoding=spec.encoding,
            key=f"task_definitions.{spec.name}",
        )
        where = f"file {spec.path}"
        frame = standardize(frame, spec, "train", where)
        return resolve_conflicting_labels(frame, spec, f"task {spec.name!r}: {where}")
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
