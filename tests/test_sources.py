"""Loading tasks: Hub datasets (through a local fixture), local copies and user files."""

import logging

import pandas as pd
import pytest

from skillneurons.data.sources import DataSourceError, load_source
from skillneurons.data.tasks import BUILTIN_TASKS, TaskError, resolve_tasks, task_from_config


class FakeDataset:
    """What ``datasets.load_dataset`` returns, reduced to what the loader uses."""

    def __init__(self, frame: pd.DataFrame):
        self.frame = frame

    def to_pandas(self) -> pd.DataFrame:
        return self.frame


def fake_hub(splits: dict[str, pd.DataFrame], calls: list):
    def load_dataset(name, config, revision, cache_dir):
        calls.append((name, config, revision))
        return {split: FakeDataset(frame) for split, frame in splits.items()}

    return load_dataset


def test_glue_qnli_loads_pairs_with_validation_as_test():
    train = pd.DataFrame(
        {"question": ["q1", "q2", "q3"], "sentence": ["s1", "s2", "s3"], "label": [0, 1, 0]}
    )
    validation = pd.DataFrame({"question": ["q4"], "sentence": ["s4"], "label": [1]})
    calls = []
    hub = fake_hub({"train": train, "validation": validation, "test": validation}, calls)
    frame = load_source(BUILTIN_TASKS["qnli"], revision="abc123", load_dataset=hub)
    assert calls == [("nyu-mll/glue", "qnli", "abc123")]
    assert frame["text_a"].tolist() == ["q1", "q2", "q3", "q4"]
    assert frame["text_b"].tolist() == ["s1", "s2", "s3", "s4"]
    assert frame["role"].tolist() == ["train", "train", "train", "test"]


def test_hub_task_keeps_the_first_label_of_a_conflicting_text_and_logs_it(caplog):
    """A built-in task keeps its published rows (the split keeps each text's first row, as
    before) and the log says how many texts conflict."""
    train = pd.DataFrame({"sentence": ["a", "b", "a", "c"], "label": [0, 1, 1, 0]})
    validation = pd.DataFrame({"sentence": ["b", "d"], "label": [0, 1]})
    hub = fake_hub({"train": train, "validation": validation}, [])
    with caplog.at_level(logging.WARNING, logger="skillneurons.data.sources"):
        frame = load_source(BUILTIN_TASKS["sst2"], load_dataset=hub)
    assert frame["label"].tolist() == [0, 1, 1, 0, 0, 1]
    assert (
        "task 'sst2': nyu-mll/glue (sst2): 2 texts appear with different labels (4 rows; "
        "rows 1, 3 ('a': negative, positive); rows 2, 5 ('b': positive, negative)); kept the "
        "label of each text's first row (on_conflicting_labels: first): 2 later rows of "
        "those texts are removed as repeats when the task is split"
    ) in caplog.text


def test_ag_news_keeps_business_and_sports_only_and_renumbers():
    # AG News labels: 0 World, 1 Sports, 2 Business, 3 Sci/Tech.
    train = pd.DataFrame({"text": ["w", "s", "b", "t", "b2"], "label": [0, 1, 2, 3, 2]})
    test = pd.DataFrame({"text": ["s3", "w3"], "label": [1, 0]})
    frame = load_source(
        BUILTIN_TASKS["agnews"], load_dataset=fake_hub({"train": train, "test": test}, [])
    )
    assert frame["text_a"].tolist() == ["s", "b", "b2", "s3"]
    assert frame["label"].tolist() == [1, 0, 0, 1]  # business = 0, sports = 1


def test_paper_b_tasks_load_their_hub_columns_and_splits():
    # QQP: GLUE, validation as test; question pairs, 1 = duplicate (paraphrase).
    qqp_train = pd.DataFrame({"question1": ["a", "b"], "question2": ["c", "d"], "label": [1, 0]})
    qqp_val = pd.DataFrame({"question1": ["e"], "question2": ["f"], "label": [0]})
    calls = []
    splits = {"train": qqp_train, "validation": qqp_val, "test": qqp_val.assign(label=-1)}
    frame = load_source(BUILTIN_TASKS["qqp"], load_dataset=fake_hub(splits, calls))
    assert calls == [("nyu-mll/glue", "qqp", "main")]
    assert frame[["text_a", "text_b", "label", "role"]].values.tolist() == [
        ["a", "c", 1, "train"],
        ["b", "d", 0, "train"],
        ["e", "f", 0, "test"],
    ]
    # PAWS keeps its own validation split as dev.
    pair = {"sentence1": ["x"], "sentence2": ["y"]}
    paws = {name: pd.DataFrame({**pair, "label": [label]}) for name, label in
            (("train", 1), ("validation", 0), ("test", 1))}  # fmt: skip
    frame = load_source(BUILTIN_TASKS["paws"], load_dataset=fake_hub(paws, calls))
    assert calls[-1] == ("google-research-datasets/paws", "labeled_final", "main")
    assert frame["role"].tolist() == ["train", "dev", "test"]
    assert BUILTIN_TASKS["paws"].type == BUILTIN_TASKS["qqp"].type == "paraphrase"
    # MARC (paper B's AmazonFood): 1-star reviews negative, 5-star positive, others out.
    stars = pd.DataFrame({"text": ["one", "three", "five", "two"], "label": [0, 2, 4, 1]})
    marc = {"train": stars, "validation": stars.iloc[:1], "test": stars.iloc[2:3]}
    frame = load_source(BUILTIN_TASKS["amazon"], load_dataset=fake_hub(marc, calls))
    assert calls[-1] == ("mteb/AmazonReviewsClassification", "en", "main")
    assert frame[["text_a", "label", "role"]].values.tolist() == [
        ["one", 0, "train"],
        ["five", 1, "train"],
        ["one", 0, "dev"],
        ["five", 1, "test"],
    ]


def local_copy(folder, splits: dict[str, pd.DataFrame]) -> str:
    """A local copy of a Hub dataset as data.local_datasets reads it: <split>.parquet."""
    folder.mkdir()
    for split, frame in splits.items():
        frame.to_parquet(folder / f"{split}.parquet")
    return str(folder)


def test_continual_learning_tasks_keep_every_class(tmp_path):
    """Paper B §6's Standard and Large benchmarks, from local copies with the Hub
    datasets' columns: AG News 4-way, Amazon 5-way, DBPedia 14-way, Yahoo 10-way, RTE."""
    news = {"train": pd.DataFrame({"text": ["w", "s", "b", "t"], "label": [0, 1, 2, 3]}),
            "test": pd.DataFrame({"text": ["t2"], "label": [3]})}  # fmt: skip
    spec = BUILTIN_TASKS["agnews4"]
    frame = load_source(spec, local_copy=local_copy(tmp_path / "agnews4", news))
    assert (spec.dataset, spec.dataset_config) == ("fancyzhx/ag_news", None)
    assert frame[["text_a", "label", "role"]].values.tolist() == [
        ["w", 0, "train"], ["s", 1, "train"], ["b", 2, "train"], ["t", 3, "train"],
        ["t2", 3, "test"],
    ]  # fmt: skip
    stars = pd.DataFrame({"text": [f"r{k}" for k in range(5)], "label": [4, 3, 2, 1, 0]})
    marc = {"train": stars, "validation": stars.iloc[:2], "test": stars.iloc[4:]}
    spec = BUILTIN_TASKS["amazon5"]
    frame = load_source(spec, local_copy=local_copy(tmp_path / "amazon5", marc))
    assert (spec.dataset, spec.dataset_config) == ("mteb/AmazonReviewsClassification", "en")
    assert frame["label"].tolist() == [4, 3, 2, 1, 0, 4, 3, 0]
    assert frame["role"].tolist() == ["train"] * 5 + ["dev"] * 2 + ["test"]
    ontology = pd.DataFrame({"title": ["x", "y"], "content": ["film", "book"], "label": [12, 13]})
    dbpedia = {"train": ontology, "test": ontology.iloc[:1]}
    frame = load_source(
        BUILTIN_TASKS["dbpedia14"], local_copy=local_copy(tmp_path / "dbpedia14", dbpedia)
    )
    assert frame[["text_a", "label"]].values.tolist() == [["film", 12], ["book", 13], ["film", 12]]
    answers = pd.DataFrame({"question_title": ["why?"], "question_content": [""],
                            "best_answer": ["because"], "topic": [9]})  # fmt: skip
    spec = BUILTIN_TASKS["yahoo10"]
    yahoo = local_copy(tmp_path / "yahoo10", {"train": answers, "test": answers})
    frame = load_source(spec, local_copy=yahoo)
    assert spec.dataset == "fancyzhx/yahoo_answers_topics"
    assert frame[["text_a", "text_b", "label"]].values.tolist()[0] == ["why?", "because", 9]
    rte = {name: pd.DataFrame({"sentence1": ["p"], "sentence2": ["h"], "label": [label]})
           for name, label in (("train", 1), ("validation", 0), ("test", -1))}  # fmt: skip
    spec = BUILTIN_TASKS["rte"]
    frame = load_source(spec, local_copy=local_copy(tmp_path / "rte", rte))
    assert (spec.dataset, spec.dataset_config) == ("nyu-mll/glue", "rte")
    assert frame[["label", "role"]].values.tolist() == [[1, "train"], [0, "test"]]
    # Labels outside a task's classes are refused, not wrapped.
    bad = local_copy(tmp_path / "bad", {"train": ontology.assign(label=14), "test": ontology})
    with pytest.raises(DataSourceError, match=r"labels \[14\] outside 0..13"):
        load_source(BUILTIN_TASKS["dbpedia14"], local_copy=bad)
    for name in ("agnews4", "amazon5", "dbpedia14", "yahoo10"):
        spec = BUILTIN_TASKS[name]
        assert len(spec.label_words) == spec.num_labels == len(set(spec.label_words))


@pytest.mark.parametrize("task", ["qqp", "paws", "amazon", "sst2", "mnli"])
def test_paper_b_tasks_load_from_local_copies_as_from_the_hub(tmp_path, task):
    """Paper B's classification tasks (configs/llm.yaml) offline: a local copy with the
    Hub dataset's columns gives the frame the Hub would."""
    spec = BUILTIN_TASKS[task]
    columns = {name: [f"{name} {i}" for i in range(4)] for name in spec.text_columns}
    split = pd.DataFrame({**columns, spec.label_column: [0, 1, 1, 0]})
    names = [spec.train_split, spec.dev_split, spec.test_split]
    splits = {name: split for name in names if name is not None}
    from_hub = load_source(spec, load_dataset=fake_hub(splits, []))
    copied = load_source(spec, local_copy=local_copy(tmp_path / task, splits))
    pd.testing.assert_frame_equal(copied, from_hub)
    assert set(copied["role"]) == {"train", "test"} | ({"dev"} if spec.dev_split else set())


def test_hub_failure_names_the_offline_alternatives():
    def offline(*args, **kwargs):
        raise ConnectionError("no network")

    with pytest.raises(DataSourceError, match="syn_sst2.*local_datasets.sst2"):
        load_source(BUILTIN_TASKS["sst2"], load_dataset=offline)
    # A task without a synthetic twin is not offered one.
    with pytest.raises(DataSourceError, match="alternatives: put a local copy") as error:
        load_source(BUILTIN_TASKS["qqp"], load_dataset=offline)
    assert "syn_qqp" not in str(error.value)


def test_local_copy_of_a_hub_dataset(tmp_path):
    pd.DataFrame({"text": ["good", "bad"], "label": [1, 0]}).to_parquet(tmp_path / "train.parquet")
    pd.DataFrame({"text": ["fine"], "label": [1]}).to_parquet(tmp_path / "test.parquet")
    frame = load_source(BUILTIN_TASKS["imdb"], local_copy=str(tmp_path))
    assert frame[["text_a", "label", "role"]].values.tolist() == [
        ["good", 1, "train"],
        ["bad", 0, "train"],
        ["fine", 1, "test"],
    ]


@pytest.mark.parametrize("suffix", ["csv", "jsonl", "parquet"])
def test_user_file_with_label_names(tmp_path, suffix):
    data = pd.DataFrame({"review": ["a", "b", "c"], "y": ["pos", "neg", "pos"]})
    path = tmp_path / f"mine.{suffix}"
    {
        "csv": lambda: data.to_csv(path, index=False),
        "jsonl": lambda: data.to_json(path, orient="records", lines=True),
        "parquet": lambda: data.to_parquet(path),
    }[suffix]()
    spec = task_from_config(
        "mine",
        {
            "path": str(path),
            "text_columns": ["review"],
            "label_column": "y",
            "label_names": ["neg", "pos"],
        },
    )
    frame = load_source(spec)
    assert frame["label"].tolist() == [1, 0, 1]
    assert frame["text_b"].isna().all()


def test_user_file_errors_name_the_problem(tmp_path):
    path = tmp_path / "bad.csv"
    pd.DataFrame({"text": ["a", "b"], "label": [0, 5]}).to_csv(path, index=False)
    definition = {"path": str(path), "text_columns": ["text"], "label_names": ["x", "y"]}
    with pytest.raises(DataSourceError, match=r"labels \[5\] outside 0..1"):
        load_source(task_from_config("bad", definition))
    with pytest.raises(DataSourceError, match="no column.*'sentence'"):
        load_source(task_from_config("bad", {**definition, "text_columns": ["sentence"]}))
    with pytest.raises(DataSourceError, match="does not exist"):
        load_source(task_from_config("bad", {**definition, "path": str(tmp_path / "no.csv")}))


def test_unknown_task_lists_the_known_ones():
    with pytest.raises(
        TaskError, match="task 'sst3' is not defined; known tasks: agnews, agnews4, amazon,"
    ):
        resolve_tasks(["sst3"])
