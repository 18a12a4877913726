"""Predictivity (paper A, Eqs. 3-6, §3.2, appendix G) against hand-computed numbers."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from skillneurons.neurons.predictivity import (
    PredictivityAccumulator,
    combine_trials,
    neuron_accuracy,
    neuron_predictivity,
    neuron_sign,
    predictivity_per_token,
)
from skillneurons.neurons.ranking import (
    RANKING_COLUMNS,
    Ranking,
    rank_neurons,
    ranking_table,
    tie_key,
)

# ---------------------------------------------------------------------------
# Hand-made example: 2 layers x 2 tokens x 3 neurons, 6 dev samples.
# ---------------------------------------------------------------------------

LABELS = np.array([1, 1, 1, 0, 0, 0])

# ACTS[layer][token][neuron] is the neuron's activation on the 6 samples; BASELINE[...]
# its a_bsl. "above" = a > a_bsl (strict); a sample is correct iff above == label.
ACTS = np.array(
    [
        [  # layer 0
            [
                [1, 2, 3, -1, -2, -3],  # bsl 0:    above 111000 -> 6/6 correct
                [0, 1, 0, 1, 0, 0],  # bsl 0.5:  above 010100 -> 3/6
                [0, 0, 2, 2, 2, 2],  # bsl 1:    above 001111 -> 1/6 (Acc < 0.5)
            ],
            [
                [1, 1, -1, -1, -1, -1],  # bsl 0:  above 110000 -> 5/6
                [0.25, 0.25, 1, 0.25, 0.25, 0.25],  # bsl 0.25: ties are 0 -> 001000 -> 4/6
                [-1, -1, -1, 0, 0, 0],  # bsl -0.5: above 000111 -> 0/6
            ],
        ],
        [  # layer 1
            [
                [3, 1, 3, 1, 3, 1],  # bsl 2: above 101010 -> 4/6
                [-1, -1, -1, -1, -1, 1],  # bsl 0: above 000001 -> 2/6
                [0.5, 0.5, 0.5, 0.5, -0.5, -0.5],  # bsl 0: above 111100 -> 5/6
            ],
            [
                [1, 1, 1, 1, 1, -1],  # bsl 0: above 111110 -> 4/6
                [-1, -1, 1, 1, 1, 1],  # bsl 0: above 001111 -> 1/6
                [1, -1, 1, -1, 1, -1],  # bsl 0: above 101010 -> 4/6
            ],
        ],
    ]
)  # [layers, tokens, neurons, samples]
BASELINE = np.array(
    [
        [[0, 0.5, 1], [0, 0.25, -0.5]],
        [[2, 0, 0], [0, 0, 0]],
    ]
)  # [layers, tokens, neurons]
DEV = np.moveaxis(ACTS, -1, 0)  # [samples, layers, tokens, neurons]

# Eq. 4, from the comments above.
EXPECTED_ACC = (
    np.array(
        [
            [[6, 3, 1], [5, 4, 0]],
            [[4, 2, 5], [4, 1, 4]],
        ]
    )
    / 6
)
# Eq. 5: max(Acc, 1 - Acc).
EXPECTED_PRED_TOKEN = (
    np.array(
        [
            [[6, 3, 5], [5, 4, 6]],
            [[4, 4, 5], [4, 5, 4]],
        ]
    )
    / 6
)
# Eq. 6 inner term: max over the 2 tokens; ties (layer 1, neuron 0: 4/6 on both)
# go to the first token.
EXPECTED_MAX = np.array([[6, 4, 6], [4, 5, 5]]) / 6
EXPECTED_MAX_TOKEN = np.array([[0, 1, 1], [0, 1, 0]])
# Appendix G "mean": mean over tokens of Pred; best token still argmax of Pred.
EXPECTED_MEAN = np.array([[11, 7, 11], [8, 9, 9]]) / 12
# Appendix G "positive": max over tokens of Acc itself.
EXPECTED_POSITIVE = np.array([[6, 4, 1], [4, 2, 5]]) / 6
EXPECTED_POSITIVE_TOKEN = np.array([[0, 1, 0], [0, 0, 0]])


def accumulate(*chunks, baseline=BASELINE):
    accumulator = PredictivityAccumulator(baseline)
    for activations, labels in chunks:
        accumulator.update(activations, labels)
    return accumulator


def test_accuracy_and_predictivity_by_hand():
    accumulator = accumulate((DEV, LABELS))
    assert accumulator.count == 6
    acc = accumulator.accuracy()
    assert acc.shape == (2, 2, 3) and acc.dtype == np.float64
    np.testing.assert_allclose(acc, EXPECTED_ACC)
    np.testing.assert_allclose(predictivity_per_token(acc), EXPECTED_PRED_TOKEN)
    pred, best = neuron_predictivity(acc)
    np.testing.assert_allclose(pred, EXPECTED_MAX)
    np.testing.assert_array_equal(best, EXPECTED_MAX_TOKEN)
    assert best.dtype == np.int64 and pred.shape == (2, 3)


def test_chunks_and_float16_give_the_same_counts():
    whole = accumulate((DEV, LABELS)).accuracy()
    halves = accumulate((DEV[:2], LABELS[:2]), (DEV[2:], LABELS[2:])).accuracy()
    np.testing.assert_array_equal(halves, whole)
    half_precision = accumulate((DEV.astype(np.float16), LABELS)).accuracy()
    np.testing.assert_array_equal(half_precision, whole)
    # Chunking inside update() (one row per step) changes nothing either.
    accumulator = PredictivityAccumulator(BASELINE)
    accumulator.chunk_elements = 1
    accumulator.update(DEV.astype(np.float16), LABELS)
    np.testing.assert_array_equal(accumulator.accuracy(), whole)


def test_torch_inputs():
    torch = pytest.importorskip("torch")
    acc = accumulate(
        (torch.from_numpy(DEV).to(torch.float16), torch.from_numpy(LABELS)),
        baseline=torch.from_numpy(BASELINE),
    ).accuracy()
    np.testing.assert_allclose(acc, EXPECTED_ACC)


def test_ties_predict_zero():
    baseline = np.full((1, 1, 1), 0.5)
    activations = np.array([0.5, 0.5, 0.75, 0.25]).reshape(4, 1, 1, 1)
    # Strict >: predictions 0 0 1 0. Against labels 1 1 1 0: 2/4 correct (ties
    # predicting 1 would give 3/4); against labels 0 0 1 0: 4/4 (ties as 1: 2/4).
    acc = accumulate((activations, np.array([1, 1, 1, 0])), baseline=baseline).accuracy()
    assert acc.item() == 0.5
    acc = accumulate((activations, np.array([0, 0, 1, 0])), baseline=baseline).accuracy()
    assert acc.item() == 1.0
    assert neuron_accuracy(activations[:, 0, 0, 0], np.array([0, 0, 1, 0]), 0.5, +1) == 1.0


def test_comparison_is_exact_against_a_float64_baseline():
    baseline = np.full((1, 1, 1), 0.1)  # not representable in float32 or float16
    labels = np.array([1])
    above = np.array([0.1], dtype=np.float32).reshape(1, 1, 1, 1)  # 0.10000000149 > 0.1
    below = np.array([0.1], dtype=np.float16).reshape(1, 1, 1, 1)  # 0.0999755859 < 0.1
    assert accumulate((above, labels), baseline=baseline).accuracy().item() == 1.0
    assert accumulate((below, labels), baseline=baseline).accuracy().item() == 0.0


def test_alternative_definitions():
    acc = EXPECTED_ACC
    pred, best = neuron_predictivity(acc, "mean")
    np.testing.assert_allclose(pred, EXPECTED_MEAN)
    np.testing.assert_array_equal(best, EXPECTED_MAX_TOKEN)
    pred, best = neuron_predictivity(acc, "positive")
    np.testing.assert_allclose(pred, EXPECTED_POSITIVE)
    np.testing.assert_array_equal(best, EXPECTED_POSITIVE_TOKEN)
    # Both under-estimate the default (appendix G, Figure 10).
    assert (neuron_predictivity(acc, "mean")[0] <= EXPECTED_MAX).all()
    assert (neuron_predictivity(acc, "positive")[0] <= EXPECTED_MAX).all()
    with pytest.raises(ValueError, match="known definitions: max, mean, positive"):
        neuron_predictivity(acc, "median")


def test_invalid_inputs_are_named():
    accumulator = PredictivityAccumulator(BASELINE)
    with pytest.raises(ValueError, match=r"\[rows, 2, 2, 3\]"):
        accumulator.update(DEV[:, :1], LABELS)
    with pytest.raises(ValueError, match="binary"):
        accumulator.update(DEV, LABELS + 1)
    with pytest.raises(ValueError, match="update"):
        accumulator.accuracy()


def test_combine_trials_mean_and_sem():
    trials = [
        np.array([[0.6, 0.5, 0.9]]),
        np.array([[0.7, 0.5, 0.6]]),
        np.array([[0.8, 0.5, 0.6]]),
    ]
    mean, sem = combine_trials(trials)
    # Neuron 0: mean 0.7, std (ddof=1) 0.1, sem 0.1 / sqrt(3).
    # Neuron 1: constant, sem 0.
    # Neuron 2: mean 0.7, deviations .2 -.1 -.1, var .06 / 2 = .03, sem sqrt(.03 / 3) = .1.
    np.testing.assert_allclose(mean, [[0.7, 0.5, 0.7]])
    np.testing.assert_allclose(sem, [[0.1 / np.sqrt(3), 0.0, 0.1]], atol=1e-12)
    single_mean, single_sem = combine_trials(trials[:1])
    np.testing.assert_array_equal(single_mean, trials[0])
    np.testing.assert_array_equal(single_sem, np.zeros((1, 3)))


#: 5 neurons, 3 trials of 100 dev samples: every neuron's counts sum to 201 (Eq. 6: 0.67).
TIED_COUNTS = np.array([[67, 67, 67], [66, 68, 67], [68, 66, 67], [65, 69, 67], [69, 65, 67]]).T


def test_equal_trial_means_are_exactly_equal_and_the_tie_key_orders_them():
    per_trial = [(row / 100).astype(np.float32)[None, :] for row in TIED_COUNTS]
    # A float mean of the stored float32 values splits the tie by 2e-8: neurons 0-2 above
    # 3-4, whatever the tie key says.
    plain = combine_trials(per_trial)[0]
    assert plain[0, 0] - plain[0, 3] == pytest.approx(1.99e-8, rel=0.01)
    mean, sem = combine_trials(per_trial, samples=100)
    assert mean.dtype == np.float64 and mean.tolist() == [[201 / 300] * 5]
    # s.e.m. from the counts: neuron 0 constant; neuron 1 deviations -1, 1, 0 (/100).
    np.testing.assert_allclose(sem[0, :2], [0.0, 0.01 / np.sqrt(3)], atol=1e-15)
    for order in ([2, 0, 1], [1, 2, 0]):  # any order of the trials: the same floats
        again = combine_trials([per_trial[t] for t in order], samples=100)
        assert np.array_equal(again[0], mean) and np.array_equal(again[1], sem)
    key = tie_key(mean.shape, seed=3)
    assert key.tolist() == [[4, 2, 1, 3, 0]]
    assert rank_neurons(mean, key)["neuron"].tolist() == [4, 2, 1, 3, 0]  # ascending key
    assert rank_neurons(plain, key)["neuron"].tolist() == [2, 1, 0, 4, 3]  # by rounding


def test_trial_means_do_not_depend_on_the_order_of_float64_trials():
    # Neuron 0 sees trials 0.1, 0.2, 0.3 and neuron 1 the same in reverse order: summed in
    # float64 they end 7e-17 apart; from the counts both are exactly 0.2.
    tenths = [np.array([[0.1, 0.3]]), np.array([[0.2, 0.2]]), np.array([[0.3, 0.1]])]
    assert combine_trials(tenths)[0].tolist() == [[0.20000000000000004, 0.19999999999999998]]
    assert combine_trials(tenths, samples=10)[0].tolist() == [[0.2, 0.2]]
    # Thirds: the float64 nearest to 5/9, where the float mean is one unit below it.
    thirds = [np.array([[1 / 3, 2 / 3]]), np.array([[2 / 3, 1 / 3]]), np.array([[2 / 3, 2 / 3]])]
    assert combine_trials(thirds)[0].tolist() == [[0.5555555555555555] * 2]
    assert combine_trials(thirds, samples=3)[0].tolist() == [[5 / 9] * 2]
    assert 5 / 9 == 0.5555555555555556


def test_trial_values_off_the_dev_grid_are_refused():
    with pytest.raises(ValueError, match=r"not multiples of 1/100 .* dev samples"):
        combine_trials([np.array([[0.675]])], samples=100)
    # float32 rounding of k / 1000 is within the grid's tolerance
    values = np.float32(np.arange(500, 1001) / 1000)[None, :]
    mean = combine_trials([values], samples=1000)[0]
    assert mean.tolist() == [list(np.arange(500, 1001) / 1000)]


PRED = np.array([[0.6, 0.9, 0.6], [0.9, 0.7, 0.5]])


def test_rank_neurons_breaks_ties_by_layer_then_neuron():
    frame = rank_neurons(PRED)
    # 0.9 at (0,1) and (1,0): (0,1) first; 0.6 at (0,0) and (0,2): (0,0) first.
    assert list(zip(frame.layer, frame.neuron, strict=True)) == [
        (0, 1),
        (1, 0),
        (1, 1),
        (0, 0),
        (0, 2),
        (1, 2),
    ]
    assert frame["rank"].tolist() == [0, 1, 2, 3, 4, 5]
    # Layer 0 [0.6, 0.9, 0.6] -> ranks 1, 0, 2; layer 1 [0.9, 0.7, 0.5] -> 0, 1, 2.
    assert frame["rank_in_layer"].tolist() == [0, 0, 1, 1, 2, 2]
    np.testing.assert_array_equal(frame.predictivity, [0.9, 0.9, 0.7, 0.6, 0.6, 0.5])


def top_neurons(pred, k, per_layer=False):
    """:meth:`Ranking.top` of a ``[layers, neurons]`` array (or subtask -> array)."""
    preds = pred if isinstance(pred, dict) else {None: pred}
    zeros = {key: np.zeros(value.shape) for key, value in preds.items()}
    tokens = {key: np.zeros(value.shape, np.int64) for key, value in preds.items()}
    return Ranking(ranking_table(preds, zeros, tokens)).top(k, per_layer=per_layer)


def test_top_neurons_binary_fraction_and_per_layer():
    assert top_neurons(PRED, 2).tolist() == [[0, 1], [1, 0]]
    assert top_neurons(PRED, 0.25).tolist() == [[0, 1], [1, 0]]  # 1.5 rounds up to 2
    assert top_neurons(PRED, 0.1).tolist() == [[0, 1]]  # 0.6 -> 1
    assert top_neurons(PRED, 0.01).tolist() == [[0, 1]]  # at least 1
    assert len(top_neurons(PRED, 1.0)) == 6
    assert top_neurons(PRED, 2).dtype == np.int64
    # 1/3 of each layer's 3 neurons: one per layer, in layer order.
    assert top_neurons(PRED, 1 / 3, per_layer=True).tolist() == [[0, 1], [1, 0]]
    assert top_neurons(PRED, 2, per_layer=True).tolist() == [[0, 1], [0, 0], [1, 0], [1, 1]]
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        top_neurons(PRED, 1.5)
    with pytest.raises(ValueError, match="between 1 and 6"):
        top_neurons(PRED, 7)


# Multi-class: two subtasks whose best neuron is the same, (0, 0).
SUB_A = np.array([[0.9, 0.8, 0.1], [0.7, 0.2, 0.3]])  # flat order 0 1 3 5 4 2
SUB_B = np.array([[0.95, 0.1, 0.85], [0.2, 0.3, 0.6]])  # flat order 0 2 5 4 3 1
SUBTASKS = {"pos_vs_neg": SUB_A, "neutral_vs_rest": SUB_B}
# Round robin: A 0, B (0 taken) 2, A 1, B 5, A 3, B 4.
SUBTASK_ORDER = [0, 2, 1, 5, 3, 4]


def test_top_neurons_multiclass_round_robin_skips_duplicates():
    assert top_neurons(SUBTASKS, 4).tolist() == [[0, 0], [0, 2], [0, 1], [1, 2]]
    everything = top_neurons(SUBTASKS, 1.0)
    np.testing.assert_array_equal(everything[:, 0] * 3 + everything[:, 1], SUBTASK_ORDER)
    # Per layer, 2 of 3: layer 0 A 0, B 2; layer 1 A 0 (0.7), B 2 (0.6).
    assert top_neurons(SUBTASKS, 2 / 3, per_layer=True).tolist() == [
        [0, 0],
        [0, 2],
        [1, 0],
        [1, 2],
    ]


def test_ranking_table_schema_and_order(tmp_path):
    best = np.array([[1, 0, 2], [0, 0, 1]])
    sem = np.full((2, 3), 0.01)
    binary = ranking_table({None: PRED}, {None: sem}, {None: best})
    assert list(binary.columns) == list(RANKING_COLUMNS)
    for column in ("layer", "neuron", "best_token", "rank", "rank_in_layer"):
        assert binary[column].dtype == np.int64, column
    assert binary["predictivity"].dtype == np.float64 and binary["sem"].dtype == np.float64
    assert isinstance(binary["subtask"].dtype, pd.StringDtype)
    assert binary["subtask"].isna().all()
    assert binary["rank"].tolist() == list(range(6))
    assert binary["best_token"].tolist() == [0, 0, 0, 1, 2, 1]  # best at (0,1),(1,0),...
    np.testing.assert_array_equal(Ranking(binary).order(), [1, 3, 4, 0, 2, 5])

    multi = ranking_table(
        SUBTASKS,
        {name: sem for name in SUBTASKS},
        {name: best for name in SUBTASKS},
    )
    assert len(multi) == 12
    assert multi["subtask"].tolist() == ["pos_vs_neg"] * 6 + ["neutral_vs_rest"] * 6
    assert multi["rank"].tolist() == list(range(6)) * 2
    np.testing.assert_array_equal(Ranking(multi).order(), SUBTASK_ORDER)

    # The order survives the Parquet file contract.
    path = tmp_path / "task.parquet"
    pq.write_table(pa.Table.from_pandas(multi, preserve_index=False), path)
    np.testing.assert_array_equal(Ranking.from_parquet(path).order(), SUBTASK_ORDER)
    path = tmp_path / "binary.parquet"
    pq.write_table(pa.Table.from_pandas(binary, preserve_index=False), path)
    np.testing.assert_array_equal(Ranking.from_parquet(path).order(), [1, 3, 4, 0, 2, 5])

    with pytest.raises(ValueError, match="single key None"):
        ranking_table({None: PRED, "x": PRED}, {None: sem, "x": sem}, {None: best, "x": best})


def test_neuron_accuracy_both_signs():
    activations = np.array([1.0, 1.5, 2.0, 0.2, 2.5])
    labels = np.array([0, 1, 1, 0, 0])
    # sign +1, a > 1: 0 1 1 0 1 (the tie at 1.0 predicts 0) -> 4/5 correct.
    assert neuron_accuracy(activations, labels, 1.0, +1) == pytest.approx(0.8)
    # sign -1, a <= 1: 1 0 0 1 0 -> 1/5 correct.
    assert neuron_accuracy(activations, labels, 1.0, -1) == pytest.approx(0.2)
    assert neuron_sign(0.5) == 1 and neuron_sign(0.8) == 1 and neuron_sign(0.49) == -1
    with pytest.raises(ValueError, match="sign"):
        neuron_accuracy(activations, labels, 1.0, 0)


def test_update_is_vectorised_on_a_realistic_chunk():
    rng = np.random.default_rng(0)
    activations = rng.standard_normal((200, 6, 8, 1536)).astype(np.float16)
    labels = rng.integers(0, 2, 200)
    baseline = activations.astype(np.float32).mean(axis=0)
    accumulator = PredictivityAccumulator(baseline)
    accumulator.update(activations, labels)
    acc = accumulator.accuracy()
    assert acc.shape == (6, 8, 1536) and accumulator.count == 200
    # Spot-check a few neurons against the definition, one at a time.
    for layer, token, neuron in [(0, 0, 0), (5, 7, 1535), (3, 2, 700)]:
        column = activations[:, layer, token, neuron].astype(np.float32)
        expected = np.mean((column > baseline[layer, token, neuron]) == labels.astype(bool))
        assert acc[layer, token, neuron] == expected


def test_ties_follow_a_seeded_random_key_and_the_ranks_drive_the_top_neurons():
    pred = np.full((3, 4), 0.7)  # every neuron ties
    pred[2, 3] = 0.9
    key = tie_key(pred.shape, seed=5)
    assert np.array_equal(key, tie_key(pred.shape, seed=5))
    assert not np.array_equal(key, tie_key(pred.shape, seed=6))
    table = rank_neurons(pred, key)
    flat = table["layer"].to_numpy() * 4 + table["neuron"].to_numpy()
    assert flat[0] == 11  # the one untied neuron first
    assert flat[1:].tolist() == sorted(range(11), key=lambda i: key.ravel()[i])
    # Not index order: the lowest layers are not favoured among the ties.
    assert flat[1:].tolist() != list(range(11))
    zeros = np.zeros_like(pred)
    ranking = Ranking(ranking_table({None: pred}, {None: zeros}, {None: zeros.astype(int)}, key))
    top = ranking.top(4)
    assert (top[:, 0] * 4 + top[:, 1]).tolist() == flat[:4].tolist()
    in_layer = ranking.top(2, per_layer=True)
    for layer in range(3):
        expected = sorted(range(4), key=lambda n: (-pred[layer, n], key[layer, n]))[:2]
        assert in_layer[in_layer[:, 0] == layer, 1].tolist() == expected
