"""Seeded, label-stratified subsets of a split (every subset the pipeline takes)."""

import numpy as np
import pandas as pd
import pytest

from skillneurons.data.subsets import (
    SubsetError,
    class_quotas,
    proportional_quotas,
    stratified_subset,
    subset_rows,
)


def test_quotas_are_as_equal_as_the_classes_allow():
    assert class_quotas([50, 50], 40) == [20, 20]
    assert class_quotas([50, 50, 50], 40) == [14, 13, 13]
    assert class_quotas([5, 80], 40) == [5, 35]  # the short class gives all it has
    assert class_quotas([3, 4, 80], 20) == [3, 4, 13]
    with pytest.raises(ValueError, match="needs that many"):
        class_quotas([3, 4], 8)


def test_subset_is_balanced_seeded_and_in_split_order():
    # 70 negatives first, then 30 positives: the first 40 rows would be all negative.
    frame = pd.DataFrame({"idx": range(100), "label": [0] * 70 + [1] * 30})
    subset = stratified_subset(frame, 40, seed=7)
    assert subset["label"].value_counts().to_dict() == {0: 20, 1: 20}
    assert subset["idx"].is_monotonic_increasing
    assert subset.equals(stratified_subset(frame, 40, seed=7))
    assert not subset.equals(stratified_subset(frame, 40, seed=8))
    assert stratified_subset(frame, None, seed=7) is frame
    assert stratified_subset(frame, 100, seed=7) is frame


def test_proportional_quotas_mirror_the_split_and_keep_every_class():
    assert proportional_quotas([70, 30], 40) == [28, 12]
    # one row each first, then 7 by largest remainders: 899*7/997 = 6.31, 89*7/997 = 0.62
    assert proportional_quotas([900, 90, 10], 10) == [7, 2, 1]
    assert proportional_quotas([5, 5, 5], 2) == [1, 1, 0]  # fewer rows than classes


def test_a_label_sorted_split_gives_every_class_and_a_short_subset_fails():
    # Sorted by label, like the Hub copies of IMDB: the first 10 rows are all class 0.
    labels = np.repeat([0, 1, 2], [50, 30, 20])
    rows = subset_rows(labels, 10, seed=4, split="imdb/train (activations.baseline_samples)")
    assert np.bincount(labels[rows]).tolist() == [5, 3, 2]
    assert (np.diff(rows) > 0).all()  # split order
    assert np.array_equal(rows, subset_rows(labels, 10, seed=4))
    assert not np.array_equal(rows, subset_rows(labels, 10, seed=5))
    with pytest.raises(SubsetError) as error:
        subset_rows(labels, 2, seed=4, split="imdb/train (activations.baseline_samples)")
    assert str(error.value) == (
        "imdb/train (activations.baseline_samples): a subset of 2 rows leaves out class(es) "
        "[2] of the 3 classes the split holds; raise the sample count to at least 3 (or "
        "null: every row)"
    )


def test_a_split_without_labels_gets_a_seeded_uniform_draw():
    rows = subset_rows(None, 4, seed=1, length=10)
    assert len(rows) == 4 and (np.diff(rows) > 0).all()
    assert np.array_equal(rows, subset_rows(None, 4, seed=1, length=10))
    assert np.array_equal(subset_rows(None, None, seed=1, length=3), [0, 1, 2])
