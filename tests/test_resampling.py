"""The findings' linear-time resampled ranks and top sets equal the sorting they replace."""

import numpy as np
import pytest
from scipy.stats import rankdata

from skillneurons.reporting.resampling import ResampledRanks, top_positions


def tied_values(shape, seed=0) -> np.ndarray:
    """Values drawn from few levels, so that rows hold many ties."""
    return np.random.default_rng(seed).integers(0, 7, shape) / 4.0


def test_ranks_of_a_hand_made_resample():
    # values 3, 1, 3, 2 at columns 0..3; drawing columns 0, 0, 1, 3 gives 3, 3, 1, 2:
    # ranks 3.5, 3.5, 1, 2.
    ranks = ResampledRanks(np.array([3.0, 1.0, 3.0, 2.0]))
    np.testing.assert_array_equal(ranks(np.array([0, 0, 1, 3])), [[3.5, 3.5, 1.0, 2.0]])


@pytest.mark.parametrize("seed", range(5))
def test_ranks_equal_rankdata_on_resamples_with_repeats(seed):
    values = tied_values((3, 40), seed)
    ranks = ResampledRanks(values)
    generator = np.random.default_rng(seed)
    for _ in range(20):
        chosen = generator.integers(0, 40, 40)
        np.testing.assert_array_equal(ranks(chosen), rankdata(values[:, chosen], axis=1))


def test_ranks_refuse_values_that_cannot_be_ranked():
    with pytest.raises(ValueError, match="finite"):
        ResampledRanks(np.array([1.0, np.nan]))


def test_top_positions_by_hand():
    # the two largest of 5, 9, 5, 1: 9 (position 1), then the first 5 (position 0).
    np.testing.assert_array_equal(top_positions(np.array([5.0, 9.0, 5.0, 1.0]), 2), [0, 1])
    assert top_positions(np.array([1.0, 2.0]), 0).size == 0
    with pytest.raises(ValueError, match="top 3 of 2"):
        top_positions(np.array([1.0, 2.0]), 3)


@pytest.mark.parametrize("seed", range(5))
def test_top_positions_equal_a_stable_sort(seed):
    generator = np.random.default_rng(seed)
    values = tied_values(60, seed)
    for count in (1, 7, 30, 60):
        chosen = values[generator.integers(0, 60, 60)]
        expected = np.sort(np.argsort(-chosen, kind="stable")[:count])
        np.testing.assert_array_equal(top_positions(chosen, count), expected)
