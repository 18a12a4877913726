"""Paper B's generation tasks (Table 3) and their synthetic twins, as source/target pairs.

Paper B (§5, appendix A.5) pairs three generation types, each with a training
(in-domain) task and an out-of-domain test task: summarization (CNN/DailyMail,
XSum), question generation (SciQ, TweetQA) and data-to-text (E2E, CommonGen). A
generation example is a ``source`` text the model reads and a ``target`` text it
should write; ROUGE-L F1 of the greedy continuation against the target scores it.

The standard generation frame has the columns ``source`` (str), ``target`` (str)
and ``role`` (``"train"``, ``"dev"``, ``"test"``). :func:`load_generation_source`
builds it from the synthetic twin, a local copy of the Hub dataset (one
``{split}.parquet``, ``.jsonl`` or ``.csv`` per split) or the Hub itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from skillneurons.data.sources import (
    DataSourceError,
    download_splits,
    local_copy_advice,
    read_local_splits,
)
from skillneurons.data.synthetic.generation_twins import GENERATION_TWINS, generate_generation_task

GENERATION_TYPES = ("summarization", "question_generation", "data_to_text")
GENERATION_COLUMNS = ("source", "target", "role")


@dataclass(frozen=True)
class GenerationSpec:
    """Where a generation task's examples come from and how a source is written.

    Attributes
    ----------
    name : registry name, the ``{task}`` wildcard.
    type : one of :data:`GENERATION_TYPES`.
    source : ``"hub"`` or ``"synthetic"``.
    dataset, dataset_config : Hub dataset id and config.
    source_columns : the columns the model reads; with several, each is written as
        ``"<label>: <text>"`` on its own line (``source_labels``); list cells (the
        concepts of CommonGen, the answers of TweetQA) are joined by ``", "``.
    source_labels : the label of each source column (several columns only).
    target_column : the column the model should write.
    train_split, dev_split, test_split : source splits; a ``None`` dev split is
        carved out of train (the splitter's ``dev_fraction``).
    max_new_tokens : greedy-decoding budget, sized to the task's targets.
    twin : for a synthetic task, the paper task it mirrors.
    """

    name: str
    type: str
    source: str
    source_columns: tuple[str, ...]
    target_column: str
    max_new_tokens: int
    dataset: str | None = None
    dataset_config: str | None = None
    source_labels: tuple[str, ...] = ()
    train_split: str = "train"
    dev_split: str | None = "validation"
    test_split: str = "test"
    twin: str | None = None


PAPER_GENERATION_TASKS: dict[str, GenerationSpec] = {
    spec.name: spec
    for spec in (
        GenerationSpec(
            "cnn_dailymail", "summarization", "hub", ("article",), "highlights", 96,
            dataset="abisee/cnn_dailymail", dataset_config="3.0.0",
        ),
        GenerationSpec(
            "xsum", "summarization", "hub", ("document",), "summary", 64,
            dataset="EdinburghNLP/xsum",
        ),
        GenerationSpec(
            "sciq", "question_generation", "hub", ("correct_answer", "support"), "question",
            48, dataset="allenai/sciq", source_labels=("answer", "context"),
        ),
        GenerationSpec(
            "tweet_qa", "question_generation", "hub", ("Answer", "Tweet"), "Question", 32,
            dataset="ucsbnlp/tweet_qa", source_labels=("answer", "tweet"),
        ),
        GenerationSpec(
            "e2e_nlg", "data_to_text", "hub", ("meaning_representation",),
            "human_reference", 64, dataset="tuetschek/e2e_nlg",
        ),
        # CommonGen's test split has no targets: validation is the test split and
        # dev is carved out of train.
        GenerationSpec(
            "common_gen", "data_to_text", "hub", ("concepts",), "target", 32,
            dataset="allenai/common_gen", dev_split=None, test_split="validation",
        ),
    )
}  # fmt: skip

SYNTHETIC_GENERATION_TASKS: dict[str, GenerationSpec] = {
    name: GenerationSpec(
        name,
        twin.type,
        "synthetic",
        ("source",),
        "target",
        # the twins' targets are short: 6 to 14 words
        32,
        twin=twin.twin,
    )
    for name, twin in GENERATION_TWINS.items()
}

GENERATION_TASKS = {**PAPER_GENERATION_TASKS, **SYNTHETIC_GENERATION_TASKS}


def generation_spec(name: str) -> GenerationSpec:
    """The registered generation task ``name``; the error lists the known ones."""
    if name not in GENERATION_TASKS:
        known = ", ".join(GENERATION_TASKS)
        raise DataSourceError(f"generation task {name!r} is not defined; known tasks: {known}")
    return GENERATION_TASKS[name]


def _cell_text(value: object) -> str:
    if isinstance(value, (list, tuple, np.ndarray)):
        return ", ".join(str(item) for item in value)
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)


def generation_frame(frame: pd.DataFrame, spec: GenerationSpec, role: str, where: str):
    """One source split as the standard generation frame (see the module docstring).

    Raises
    ------
    DataSourceError
        If a column is missing (naming the columns there are) or a target is empty
        (naming the first such rows).
    """
    needed = [*spec.source_columns, spec.target_column]
    missing = [column for column in needed if column not in frame.columns]
    if missing:
        raise DataSourceError(
            f"generation task {spec.name!r}: {where} has no column(s) {', '.join(missing)}; "
            f"it has {', '.join(map(str, frame.columns))}"
        )
    parts = [frame[column].map(_cell_text) for column in spec.source_columns]
    if len(parts) == 1:
        source = parts[0]
    else:
        labelled = [
            label + ": " + part for label, part in zip(spec.source_labels, parts, strict=True)
        ]
        source = labelled[0].str.cat(labelled[1:], sep="\n")
    target = frame[spec.target_column].map(_cell_text)
    empty = np.flatnonzero((target.str.strip() == "").to_numpy())
    if len(empty):
        rows = ", ".join(str(row + 1) for row in empty[:5])
        raise DataSourceError(
            f"generation task {spec.name!r}: {where} has {len(empty)} empty "
            f"{spec.target_column!r} cells (rows {rows}); a generation split needs a target "
            "in every row"
        )
    return pd.DataFrame(
        {"source": source.to_numpy(), "target": target.to_numpy(), "role": role}
    ).astype({"source": "str", "target": "str"})


def _roles(spec: GenerationSpec) -> dict[str, str]:
    roles = {spec.train_split: "train", spec.test_split: "test"}
    if spec.dev_split is not None:
        roles[spec.dev_split] = "dev"
    return roles


def _from_splits(spec: GenerationSpec, splits: Mapping[str, pd.DataFrame], where: str):
    parts = []
    for split, role in _roles(spec).items():
        if split not in splits:
            raise DataSourceError(
                f"generation task {spec.name!r}: {where} has no split {split!r}; it has "
                f"{', '.join(splits)}"
            )
        parts.append(generation_frame(splits[split], spec, role, f"{where} split {split!r}"))
    return pd.concat(parts, ignore_index=True)


def _local_copy(spec: GenerationSpec, folder: Path) -> pd.DataFrame:
    splits = read_local_splits(folder, _roles(spec), f"generation task {spec.name!r}")
    return _from_splits(spec, splits, f"local copy {folder}")


def load_generation_source(
    spec: GenerationSpec,
    *,
    seed: int = 0,
    synthetic_sizes: Mapping[str, int] | None = None,
    revision: str = "main",
    cache_dir: str = "data/hf_cache",
    local_copy: str | None = None,
    load_dataset: Callable | None = None,
) -> pd.DataFrame:
    """All examples of a generation task as the standard generation frame.

    Parameters mirror :func:`skillneurons.data.sources.load_source`:
    ``synthetic_sizes`` gives ``{"train": n, "dev": n, "test": n}`` for twins,
    ``local_copy`` a folder used instead of the Hub, ``load_dataset`` a replacement
    for ``datasets.load_dataset`` (tests).
    """
    if spec.source == "synthetic":
        sizes = synthetic_sizes or {}
        counts = [int(sizes.get(split, 0)) for split in ("train", "dev", "test")]
        frame = generate_generation_task(spec.name, sum(counts), seed=seed)
        roles: Sequence[str] = ["train"] * counts[0] + ["dev"] * counts[1] + ["test"] * counts[2]
        return frame.assign(role=roles)[list(GENERATION_COLUMNS)]
    if local_copy:
        return _local_copy(spec, Path(local_copy))
    alternatives = (
        f"use a synthetic twin ({', '.join(SYNTHETIC_GENERATION_TASKS)}) or "
        f"{local_copy_advice(spec.name)}."
    )
    splits, where = download_splits(
        spec.dataset, spec.dataset_config, revision, cache_dir, load_dataset,
        owner=f"generation task {spec.name!r}", alternatives=alternatives,
    )  # fmt: skip
    return _from_splits(spec, splits, where)


def generation_splits(
    frame: pd.DataFrame, *, dev_fraction: float, seed: int
) -> dict[str, pd.DataFrame]:
    """Train, dev and test frames (``source``, ``target``) of a standard generation frame.

    Rows keep their role; a task without dev rows gets a seeded ``dev_fraction`` of
    its train rows as dev (at least one).
    """
    train, dev = frame[frame["role"] == "train"], frame[frame["role"] == "dev"]
    if dev.empty:
        rng = np.random.default_rng(seed)
        count = max(1, int(round(dev_fraction * len(train))))
        chosen = np.zeros(len(train), dtype=bool)
        chosen[rng.choice(len(train), size=count, replace=False)] = True
        train, dev = train[~chosen], train[chosen]
    splits = {"train": train, "dev": dev, "test": frame[frame["role"] == "test"]}
    for name, part in splits.items():
        if part.empty:
            raise DataSourceError(f"generation split {name!r} is empty ({len(frame)} rows)")
    return {
        name: part[["source", "target"]].reset_index(drop=True) for name, part in splits.items()
    }


def cap_splits(
    splits: Mapping[str, pd.DataFrame], caps: Mapping[str, int | None], seed: int
) -> dict[str, pd.DataFrame]:
    """At most ``caps[split]`` rows of each split (a seeded subset in the split's own
    order; a missing or null cap keeps every row): how a downloaded dataset of hundreds
    of thousands of pairs is cut to what greedy decoding can score."""
    capped = {}
    for index, (name, frame) in enumerate(splits.items()):
        cap = caps.get(name)
        if cap is None or len(frame) <= cap:
            capped[name] = frame
            continue
        rng = np.random.default_rng(seed + index)
        keep = np.sort(rng.choice(len(frame), size=int(cap), replace=False))
        capped[name] = frame.iloc[keep].reset_index(drop=True)
    return capped
