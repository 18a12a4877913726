"""Label-stratified evaluation subsets (the perturbation curves' test samples)."""

import pandas as pd
import pytest

from skillneurons.data.subsets import class_quotas, stratified_subset


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
