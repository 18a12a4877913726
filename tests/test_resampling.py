"""The findings' linear-time resampled ranks equal the sorting they replace."""

import numpy as np
import pytest
from scipy.stats import rankdata

from skillneurons.reporting.resampling import ResampledRanks


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
