"""The task registry: paper A's seven tasks, paper B's, their synthetic twins, user tasks.

Paper A (appendix A, Table 5) studies seven English classification tasks of three
types. Each task here is a :class:`TaskSpec` that says where its examples come from
and how they are split:

============  =============================  ==========  ======================================
task          Hugging Face dataset (config)  type        labels (paper A, appendix A)
============  =============================  ==========  ======================================
sst2          nyu-mll/glue (sst2)            sentiment   negative, positive
imdb          stanfordnlp/imdb               sentiment   negative, positive
tweet         cardiffnlp/tweet_eval          sentiment   negative, neutral, positive
              (sentiment)
mnli          nyu-mll/glue (mnli)            inference   entailment, neutral, contradiction
qnli          nyu-mll/glue (qnli)            inference   entailment, not_entailment
agnews        fancyzhx/ag_news               topic       business, sports (2 of 4 classes)
dbpedia       fancyzhx/dbpedia_14            topic       company, athlete (2 of 14 classes)
============  =============================  ==========  ======================================

Paper B (§4, appendix A.1) adds its classification tasks (SST-2 and MNLI are shared):

- ``amazon``: paper B's "AmazonFood", MARC (Keung et al. 2020), from
  ``mteb/AmazonReviewsClassification`` (en); 1-star reviews are negative, 5-star ones
  positive (two of five classes, as paper A restricts AG News and DBpedia; paper B
  does not list the label set of its classification tables);
- ``qqp``: ``nyu-mll/glue`` (qqp), type paraphrase: different, paraphrase;
- ``paws``: ``google-research-datasets/paws`` (labeled_final), type paraphrase.

GPTNLI has no public source we could identify: define it from a local file under
``task_definitions`` (type inference).

Paper B's continual-learning benchmarks (§6, Table 14) keep every class of their
datasets, so they are registered under their own names beside paper A's binary
restrictions; SST-2, MNLI and QQP are shared:

============  =====================================  ==========  =======================
task          Hugging Face dataset (config)          type        labels
============  =====================================  ==========  =======================
agnews4       fancyzhx/ag_news                       topic       4 news topics
amazon5       mteb/AmazonReviewsClassification (en)  sentiment   1 to 5 stars
dbpedia14     fancyzhx/dbpedia_14                    topic       14 ontology classes
yahoo10       fancyzhx/yahoo_answers_topics          topic       10 answer categories
rte           nyu-mll/glue (rte)                     inference   entailment, not_entailment
============  =====================================  ==========  =======================

Yahoo Answers is a pair task: its question title and best answer (the question's body
is often empty). Tasks with more than three classes carry one label word per class
(``label_words``): single words, each one token in SmolLM2's byte-level BPE vocabulary
(the verbalizer scores a word's first token); the config's ``label_words`` replaces
them.

Split rules (what Table 5's counts imply): GLUE tasks (QQP too) use the released
validation set as test and split the training set 80/20 into train/dev; MARC and PAWS
keep their own validation (as dev) and test sets; IMDB, AG News and
DBpedia split their training set 80/20 and keep their test set; TweetEval keeps its
own train/validation/test. Multi-class tasks (TweetEval, MNLI) also define binary
subtasks (section 3.2), used to rank neurons with the original task's prompts.

The synthetic twins (``syn_*``, :mod:`skillneurons.data.synthetic`) mirror the paper tasks
one to one and run offline. User tasks point at a local CSV, JSON Lines or Parquet
file (see :func:`task_from_config`).
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from dataclasses import dataclass, field

from skillneurons.data.synthetic import SYNTHETIC_TASKS

TASK_TYPES = ("sentiment", "inference", "topic", "paraphrase")
SPLITS = ("train", "dev", "test")
#: What a task does with a text that appears with different labels (see
#: :func:`skillneurons.data.sources.resolve_conflicting_labels`).
CONFLICT_POLICIES = ("error", "drop", "first")


class TaskError(ValueError):
    """A task is unknown or its definition or data is invalid."""


@dataclass(frozen=True)
class Subtask:
    """A binary subtask of a multi-class task (paper A, section 3.2).

    ``negative`` original labels become label 0, ``positive`` ones label 1; samples
    with other labels are left out.
    """

    name: str
    negative: tuple[int, ...]
    positive: tuple[int, ...]
    label_names: tuple[str, str]


@dataclass(frozen=True)
class TaskSpec:
    """Where a task's examples come from, what they mean, and how they are split.

    Attributes
    ----------
    name : registry name, also the ``{task}`` wildcard of every path.
    type : one of :data:`TASK_TYPES`.
    label_names : names of labels ``0 .. k-1``.
    source : ``"hub"`` (Hugging Face ``datasets``), ``"synthetic"`` or ``"file"``.
    dataset, dataset_config : Hub dataset id and config (hub tasks).
    text_columns : one or two source columns that become ``text_a`` / ``text_b``.
    label_column : source column holding the label.
    keep_labels : for tasks restricted to some source classes (AG News, DBpedia),
        the source label ids kept, in the order of ``label_names``.
    train_split : source split the training data comes from.
    dev_split : source split used as dev, or ``None`` to carve dev out of
        ``train_split`` (``dev_fraction`` of it).
    test_split : source split used as test, or ``None`` to carve test out of the
        training data as well (user tasks with a single file).
    path, file_format : the local file of a user task.
    encoding : text encoding of that file when it is CSV or JSON Lines.
    subtasks : binary subtasks of a multi-class task.
    twin : for a synthetic task, the paper task it mirrors.
    label_words : the verbalizer's words of a task with more than three labels, one
        per label (paper A's defaults cover two and three labels).
    on_conflicting_labels : what a text that appears with different labels does, one
        of :data:`CONFLICT_POLICIES`: ``"error"`` refuses the data, ``"drop"`` removes
        every row of such a text, ``"first"`` keeps its first row's label (the later
        rows go with the other repeated texts when the task is split). User tasks
        default to ``"error"`` (:func:`task_from_config`). Built-in tasks keep
        ``"first"``, logged with counts: their splits are the published datasets' (a
        Hub dataset that repeats a text with another label cannot be edited from the
        config, and refusing it would leave the paper's task unusable), and the
        synthetic suite never repeats a text (its generator draws unique texts, label
        noise flips labels without copying rows), so its splits are unchanged.
    """

    name: str
    type: str
    label_names: tuple[str, ...]
    source: str
    dataset: str | None = None
    dataset_config: str | None = None
    text_columns: tuple[str, ...] = ("text",)
    label_column: str = "label"
    keep_labels: tuple[int, ...] | None = None
    train_split: str = "train"
    dev_split: str | None = None
    test_split: str | None = "test"
    path: str | None = None
    file_format: str | None = None
    encoding: str = "utf-8"
    subtasks: tuple[Subtask, ...] = field(default_factory=tuple)
    twin: str | None = None
    label_words: tuple[str, ...] | None = None
    on_conflicting_labels: str = "first"

    @property
    def num_labels(self) -> int:
        return len(self.label_names)

    @property
    def is_pair(self) -> bool:
        return len(self.text_columns) == 2

    def subtask(self, name: str) -> Subtask:
        for sub in self.subtasks:
            if sub.name == name:
                return sub
        known = ", ".join(s.name for s in self.subtasks) or "none"
        raise TaskError(f"task {self.name!r} has no subtask {name!r}; its subtasks: {known}")


def _three_way_subtasks(neutral: int, negative: int, positive: int, pos_neg: str) -> tuple:
    """Paper A, appendix A: X vs Y, and neutral vs non-neutral, for 3-way tasks."""
    a, b = pos_neg.split("_vs_")
    return (
        Subtask(pos_neg, negative=(negative,), positive=(positive,), label_names=(b, a)),
        Subtask(
            "neutral_vs_rest",
            negative=tuple(sorted((negative, positive))),
            positive=(neutral,),
            label_names=("non_neutral", "neutral"),
        ),
    )


PAPER_TASKS: dict[str, TaskSpec] = {
    "sst2": TaskSpec(
        name="sst2",
        type="sentiment",
        label_names=("negative", "positive"),
        source="hub",
        dataset="nyu-mll/glue",
        dataset_config="sst2",
        text_columns=("sentence",),
        test_split="validation",
    ),
    "imdb": TaskSpec(
        name="imdb",
        type="sentiment",
        label_names=("negative", "positive"),
        source="hub",
        dataset="stanfordnlp/imdb",
        text_columns=("text",),
        test_split="test",
    ),
    "tweet": TaskSpec(
        name="tweet",
        type="sentiment",
        label_names=("negative", "neutral", "positive"),
        source="hub",
        dataset="cardiffnlp/tweet_eval",
        dataset_config="sentiment",
        text_columns=("text",),
        dev_split="validation",
        test_split="test",
        subtasks=_three_way_subtasks(
            neutral=1, negative=0, positive=2, pos_neg="positive_vs_negative"
        ),
    ),
    "mnli": TaskSpec(
        name="mnli",
        type="inference",
        label_names=("entailment", "neutral", "contradiction"),
        source="hub",
        dataset="nyu-mll/glue",
        dataset_config="mnli",
        text_columns=("premise", "hypothesis"),
        test_split="validation_matched",
        subtasks=_three_way_subtasks(
            neutral=1, negative=2, positive=0, pos_neg="entailment_vs_contradiction"
        ),
    ),
    "qnli": TaskSpec(
        name="qnli",
        type="inference",
        label_names=("entailment", "not_entailment"),
        source="hub",
        dataset="nyu-mll/glue",
        dataset_config="qnli",
        text_columns=("question", "sentence"),
        test_split="validation",
    ),
    "agnews": TaskSpec(
        name="agnews",
        type="topic",
        label_names=("business", "sports"),
        source="hub",
        dataset="fancyzhx/ag_news",
        text_columns=("text",),
        keep_labels=(2, 1),
        test_split="test",
    ),
    "dbpedia": TaskSpec(
        name="dbpedia",
        type="topic",
        label_names=("company", "athlete"),
        source="hub",
        dataset="fancyzhx/dbpedia_14",
        text_columns=("content",),
        keep_labels=(0, 3),
        test_split="test",
    ),
    "amazon": TaskSpec(
        name="amazon",
        type="sentiment",
        label_names=("negative", "positive"),
        source="hub",
        dataset="mteb/AmazonReviewsClassification",
        dataset_config="en",
        text_columns=("text",),
        keep_labels=(0, 4),
        dev_split="validation",
        test_split="test",
    ),
    "qqp": TaskSpec(
        name="qqp",
        type="paraphrase",
        label_names=("different", "paraphrase"),
        source="hub",
        dataset="nyu-mll/glue",
        dataset_config="qqp",
        text_columns=("question1", "question2"),
        test_split="validation",
    ),
    "paws": TaskSpec(
        name="paws",
        type="paraphrase",
        label_names=("different", "paraphrase"),
        source="hub",
        dataset="google-research-datasets/paws",
        dataset_config="labeled_final",
        text_columns=("sentence1", "sentence2"),
        dev_split="validation",
        test_split="test",
    ),
    "agnews4": TaskSpec(
        name="agnews4",
        type="topic",
        label_names=("world", "sports", "business", "sci_tech"),
        source="hub",
        dataset="fancyzhx/ag_news",
        text_columns=("text",),
        test_split="test",
        label_words=("World", "Sports", "Business", "Technology"),
    ),
    "amazon5": TaskSpec(
        name="amazon5",
        type="sentiment",
        label_names=("1_star", "2_stars", "3_stars", "4_stars", "5_stars"),
        source="hub",
        dataset="mteb/AmazonReviewsClassification",
        dataset_config="en",
        text_columns=("text",),
        dev_split="validation",
        test_split="test",
        label_words=("Bad", "Poor", "Okay", "Good", "Great"),
    ),
    "dbpedia14": TaskSpec(
        name="dbpedia14",
        type="topic",
        label_names=(
            "company", "educational_institution", "artist", "athlete", "office_holder",
            "transportation", "building", "natural_place", "village", "animal", "plant",
            "album", "film", "written_work",
        ),  # fmt: skip
        source="hub",
        dataset="fancyzhx/dbpedia_14",
        text_columns=("content",),
        test_split="test",
        label_words=(
            "Company", "School", "Artist", "Player", "Leader", "Vehicle", "Building",
            "Nature", "Village", "Animal", "Plant", "Record", "Film", "Book",
        ),  # fmt: skip
    ),
    "yahoo10": TaskSpec(
        name="yahoo10",
        type="topic",
        label_names=(
            "society", "science", "health", "education", "computers", "sports",
            "business", "entertainment", "family", "politics",
        ),  # fmt: skip
        source="hub",
        dataset="fancyzhx/yahoo_answers_topics",
        text_columns=("question_title", "best_answer"),
        label_column="topic",
        test_split="test",
        label_words=(
            "Society", "Science", "Health", "Education", "Computers", "Sports",
            "Business", "Entertainment", "Family", "Politics",
        ),  # fmt: skip
    ),
    "rte": TaskSpec(
        name="rte",
        type="inference",
        label_names=("entailment", "not_entailment"),
        source="hub",
        dataset="nyu-mll/glue",
        dataset_config="rte",
        text_columns=("sentence1", "sentence2"),
        test_split="validation",
    ),
}


def _synthetic_spec(name: str) -> TaskSpec:
    syn = SYNTHETIC_TASKS[name]
    twin = PAPER_TASKS[syn.twin]
    return TaskSpec(
        name=name,
        type=syn.type,
        label_names=syn.label_names,
        source="synthetic",
        text_columns=("text_a", "text_b") if syn.pair else ("text_a",),
        label_column="label",
        test_split=None,
        subtasks=twin.subtasks,
        twin=syn.twin,
    )


SYNTHETIC_SPECS: dict[str, TaskSpec] = {name: _synthetic_spec(name) for name in SYNTHETIC_TASKS}
BUILTIN_TASKS: dict[str, TaskSpec] = {**PAPER_TASKS, **SYNTHETIC_SPECS}


def _file_format(name: str, definition: Mapping) -> str:
    """The format of a user task's file: its ``format`` key, else the path's suffix."""
    path = str(definition["path"])
    fmt = definition.get("format") or path.rsplit(".", 1)[-1].lower()
    fmt = {"jsonl": "jsonl", "json": "jsonl", "csv": "csv", "parquet": "parquet"}.get(fmt)
    if fmt is None:
        raise TaskError(
            f"task {name!r}: cannot tell the format of {path!r}; "
            "set 'format' to one of csv, jsonl, parquet"
        )
    return fmt


def _encoding(name: str, definition: Mapping) -> str:
    """The ``encoding`` key of a user task (default utf-8), checked to be a known codec."""
    encoding = definition.get("encoding", "utf-8")
    try:
        codecs.lookup(encoding)
    except LookupError as error:
        raise TaskError(
            f"task {name!r}: encoding {encoding!r} is not a known text encoding; "
            "use e.g. utf-8, latin-1 or cp1252"
        ) from error
    return encoding


def _label_names(name: str, definition: Mapping) -> tuple[str, ...]:
    """The ``label_names`` of a user task: two or more, all different."""
    label_names = tuple(definition["label_names"])
    if len(label_names) < 2:
        raise TaskError(
            f"task {name!r}: label_names must list at least two labels; it lists "
            f"{list(label_names)}"
        )
    repeated = sorted({label for label in label_names if label_names.count(label) > 1})
    if repeated:
        raise TaskError(
            f"task {name!r}: label_names {list(label_names)} repeat "
            f"{', '.join(map(repr, repeated))}; give each label its own name"
        )
    return label_names


def _conflict_policy(name: str, definition: Mapping) -> str:
    """The ``on_conflicting_labels`` key of a user task (default error), checked."""
    policy = definition.get("on_conflicting_labels", "error")
    if policy not in CONFLICT_POLICIES:
        raise TaskError(
            f"task {name!r}: on_conflicting_labels {policy!r} is not one of "
            f"{', '.join(CONFLICT_POLICIES)}"
        )
    return policy


def task_from_config(name: str, definition: Mapping) -> TaskSpec:
    """Build the spec of a user task from its ``task_definitions`` entry in the config.

    ``definition`` holds ``path``, ``format`` (csv, jsonl or parquet; guessed from the
    suffix when absent), ``encoding`` (of a csv or jsonl file; default utf-8),
    ``text_columns`` (one or two), ``label_column``, ``label_names``, ``type`` and
    ``on_conflicting_labels`` (error, drop or first; default error).
    Labels in the file may be integers ``0..k-1`` or the label names themselves
    (see :func:`skillneurons.data.sources.standardize`). The file is split into
    train/dev/test by the config's ``data.dev_fraction`` and ``data.test_fraction``;
    see :func:`skillneurons.data.splits.make_splits`.
    """
    fmt = _file_format(name, definition)
    task_type = definition.get("type", "sentiment")
    if task_type not in TASK_TYPES:
        raise TaskError(f"task {name!r}: type {task_type!r} is not one of {', '.join(TASK_TYPES)}")
    text_columns = tuple(definition["text_columns"])
    if len(text_columns) not in (1, 2):
        raise TaskError(
            f"task {name!r}: text_columns must name one or two columns (text_a and the "
            f"optional text_b of a pair); it names {len(text_columns)}: {list(text_columns)}"
        )
    return TaskSpec(
        name=name,
        type=task_type,
        label_names=_label_names(name, definition),
        source="file",
        text_columns=text_columns,
        label_column=definition.get("label_column", "label"),
        test_split=None,
        path=str(definition["path"]),
        file_format=fmt,
        encoding=_encoding(name, definition),
        on_conflicting_labels=_conflict_policy(name, definition),
    )


def resolve_tasks(
    names: list[str], definitions: Mapping[str, Mapping] | None = None
) -> dict[str, TaskSpec]:
    """Look up the tasks a config asks for: built-in ones by name, user ones by definition.

    Raises :class:`TaskError` naming the unknown task and listing the known ones.
    """
    definitions = definitions or {}
    known = {**BUILTIN_TASKS}
    for name, definition in definitions.items():
        if name in BUILTIN_TASKS:
            raise TaskError(
                f"task {name!r} is a built-in task; give the one under task_definitions "
                "another name"
            )
        known[name] = task_from_config(name, definition)
    resolved = {}
    for name in names:
        if name not in known:
            raise TaskError(
                f"task {name!r} is not defined; known tasks: {', '.join(sorted(known))} "
                "(define your own under 'task_definitions')"
            )
        resolved[name] = known[name]
    return resolved


def task_spec(name: str, definition: Mapping | None = None) -> TaskSpec:
    """One task's spec: a built-in task by name, or a user task from its definition."""
    if definition is not None:
        return task_from_config(name, definition)
    return resolve_tasks([name])[name]
