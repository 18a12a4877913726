"""Split rules: proportions, disjointness, determinism, balanced subtasks, bad input."""

import hashlib

import numpy as np
import pandas as pd
import pytest

from skillneurons.data.splits import (
    SplitError,
    make_splits,
    read_split,
    split_metadata,
    subtask_split,
    write_split,
)
from skillneurons.data.tasks import BUILTIN_TASKS, TaskSpec

BINARY = TaskSpec(name="toy", type="sentiment", label_names=("neg", "pos"), source="file")


def pool(n: int, roles=None, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "text_a": [f"text number {i}" for i in range(n)],
            "text_b": None,
            "label": rng.integers(0, 2, n),
            "role": roles if roles is not None else ["train"] * n,
        }
    )


def test_carved_proportions_follow_the_fractions():
    splits = make_splits(pool(1000), BINARY, seed=1, dev_fraction=0.2, test_fraction=0.1)
    assert {name: len(frame) for name, frame in splits.items()} == {
        "train": 700,
        "dev": 200,
        "test": 100,
    }


def test_glue_rule_carves_dev_from_train_and_keeps_the_test_split():
    roles = ["train"] * 500 + ["test"] * 80
    splits = make_splits(pool(580, roles), BINARY, seed=1, dev_fraction=0.2, test_fraction=0.1)
    assert (len(splits["train"]), len(splits["dev"]), len(splits["test"])) == (400, 100, 80)
    assert splits["test"]["idx"].tolist() == list(range(500, 580))


def test_splits_are_disjoint_by_idx_and_by_text():
    frame = pool(400, ["train"] * 300 + ["test"] * 100)
    # Test rows 300..309 repeat training texts; train has internal duplicates too.
    frame.loc[300:309, "text_a"] = frame.loc[0:9, "text_a"].to_numpy()
    frame.loc[20:29, "text_a"] = frame.loc[30:39, "text_a"].to_numpy()
    splits = make_splits(frame, BINARY, seed=3, dev_fraction=0.25, test_fraction=0.1)
    for a, b in [("train", "dev"), ("train", "test"), ("dev", "test")]:
        assert not set(splits[a]["idx"]) & set(splits[b]["idx"])
        assert not set(splits[a]["text_a"]) & set(splits[b]["text_a"])
    assert len(splits["test"]) == 90
    assert len(splits["train"]) + len(splits["dev"]) == 290


def test_same_seed_same_bytes_and_other_seed_other_split(tmp_path):
    digests = []
    for run, seed in enumerate([5, 5, 6]):
        splits = make_splits(pool(300), BINARY, seed=seed, dev_fraction=0.2, test_fraction=0.2)
        path = tmp_path / f"dev{run}.parquet"
        write_split(str(path), splits["dev"], split_metadata(BINARY, "dev", seed))
        digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
    assert digests[0] == digests[1] != digests[2]


def test_split_file_schema_and_metadata(tmp_path):
    splits = make_splits(pool(50), BINARY, seed=0, dev_fraction=0.2, test_fraction=0.2)
    path = tmp_path / "train.parquet"
    write_split(str(path), splits["train"], split_metadata(BINARY, "train", 0))
    frame, meta = read_split(str(path))
    assert list(frame.columns) == ["idx", "text_a", "text_b", "label"]
    assert [str(t) for t in frame.dtypes] == ["int64", "str", "str", "int64"] or [
        str(t) for t in frame.dtypes
    ] == ["int64", "object", "object", "int64"]
    assert meta == {
        "task": "toy",
        "split": "train",
        "task_type": "sentiment",
        "label_names": ["neg", "pos"],
        "seed": 0,
    }


def test_empty_split_is_an_error():
    with pytest.raises(SplitError, match="split 'test' is empty"):
        make_splits(pool(3), BINARY, seed=0, dev_fraction=0.2, test_fraction=0.1)


def test_subtasks_are_balanced_random_and_keep_parent_idx():
    tweet = BUILTIN_TASKS["tweet"]
    labels = np.array([0] * 50 + [1] * 120 + [2] * 30)
    frame = pd.DataFrame(
        {"idx": np.arange(200) + 1000, "text_a": "x", "text_b": None, "label": labels}
    )
    pos_neg = subtask_split(frame, tweet.subtask("positive_vs_negative"), seed=1)
    assert pos_neg["label"].value_counts().to_dict() == {0: 30, 1: 30}
    # Positives (label 2) are all kept; 30 of the 50 negatives are drawn at random.
    assert set(pos_neg.loc[pos_neg["label"] == 1, "idx"]) == set(range(1170, 1200))
    negatives = pos_neg.loc[pos_neg["label"] == 0, "idx"]
    assert negatives.between(1000, 1049).all() and negatives.tolist() != list(range(1000, 1030))
    neutral = subtask_split(frame, tweet.subtask("neutral_vs_rest"), seed=1)
    assert neutral["label"].value_counts().to_dict() == {0: 80, 1: 80}
    again = subtask_split(frame, tweet.subtask("neutral_vs_rest"), seed=1)
    pd.testing.assert_frame_equal(neutral, again)


def test_subtask_with_one_class_is_an_error():
    frame = pd.DataFrame({"idx": [0, 1], "text_a": "x", "text_b": None, "label": [1, 1]})
    with pytest.raises(SplitError, match="single class"):
        subtask_split(frame, BUILTIN_TASKS["mnli"].subtask("neutral_vs_rest"), seed=0)


def test_a_split_without_a_declared_class_is_refused():
    """syn_tweet's dev rows lack 'neutral': the split rule refuses the task and says which
    size to raise (a synthetic task's roles are its splits)."""
    labels = {"train": [0, 1, 2, 0], "dev": [0, 2, 2], "test": [1, 0, 2]}
    roles = [role for role, values in labels.items() for _ in values]
    frame = pool(len(roles), roles).assign(label=sum(labels.values(), []))
    message = (
        r"^task 'syn_tweet': split 'dev' has no row labelled 'neutral' \(rows per class in "
        r"train: negative 2, neutral 1, positive 1; dev: negative 1, neutral 0, positive 2; "
        r"test: negative 1, neutral 1, positive 1\); raise synthetic\.dev_size$"
    )
    with pytest.raises(SplitError, match=message):
        make_splits(frame, BUILTIN_TASKS["syn_tweet"], seed=0, dev_fraction=0.2, test_fraction=0.1)


def test_every_class_in_every_split_passes():
    labels = {"train": [0, 1, 2, 0], "dev": [0, 1, 2], "test": [1, 0, 2]}
    roles = [role for role, values in labels.items() for _ in values]
    frame = pool(len(roles), roles).assign(label=sum(labels.values(), []))
    splits = make_splits(
        frame, BUILTIN_TASKS["syn_tweet"], seed=0, dev_fraction=0.2, test_fraction=0.1
    )
    assert {name: split["label"].tolist() for name, split in splits.items()} == labels
