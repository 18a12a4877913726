"""Perturbation curves (paper A §4.2) and the selectivity index (appendix H)."""

import copy

import numpy as np
import pandas as pd
import pytest
import torch

from skillneurons.models.encoding import encode_split
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites, output_weight
from skillneurons.models.training import accuracy
from skillneurons.neurons.activation_dump import ActivationWriter
from skillneurons.neurons.activations import activation_moments, position_std
from skillneurons.neurons.hooks import capture_activations, edit_activations
from skillneurons.neurons.perturbation.curve_table import CURVE_COLUMNS
from skillneurons.neurons.perturbation.noise import (
    PerturbationSettings,
    noise_scale,
    perturbation_edits,
    positions_scale,
)
from skillneurons.neurons.perturbation.orders import (
    NamedOrder,
    layer_matched_random_orders,
    perturbation_orders,
    perturbed_count,
    uniform_random_orders,
)
from skillneurons.neurons.perturbation.sweep import perturbed_accuracy, sweep_orders
from skillneurons.neurons.ranking import Ranking, interleave_layers, ranking_table, split_flat
from skillneurons.neurons.selectivity import (
    SelectivityAccumulator,
    selectivity_index,
    selectivity_order,
    trial_selectivity,
)
from tiny_models import tiny, word_tokenizer

TEXTS = ["very good", "not good", "bad", "very bad", "good good", "not bad", "bad good", "good"]


@pytest.fixture
def classifier():
    """Tiny BERT (2 layers x 32 neurons) with 2 soft prompts: positions 1 and 2."""
    return PromptedClassifier(tiny("masked_lm", word_tokenizer()), ["Negative", "Positive"], 2)


@pytest.fixture
def split(classifier):
    labels = [1, 0, 0, 0, 1, 1, 0, 1]
    return encode_split(word_tokenizer(), TEXTS, [None] * len(TEXTS), labels, 16)


def captured(classifier, split, edits=None):
    """Layer inputs ``a`` of both layers for the first four samples."""
    batch = split.batch(range(4), classifier.pad_id)
    with torch.inference_mode():
        with edit_activations(classifier, edits or {}), capture_activations(classifier) as cap:
            classifier(**batch)
    return cap.activations[0], cap.activations[1]


@pytest.mark.parametrize("draw", ["sample", "position"])
def test_noise_touches_exactly_the_selected_neurons(classifier, split, draw):
    settings = PerturbationSettings(sigma=0.5, draw=draw, seed=3)
    neurons = {1: torch.tensor([2, 7, 30])}
    edits = perturbation_edits(classifier, neurons, settings)
    clean0, clean1 = captured(classifier, split)
    noisy0, noisy1 = captured(classifier, split, edits)
    assert torch.equal(noisy0, clean0)  # layer 0 is upstream of the edit
    others = torch.ones(32, dtype=torch.bool)
    others[neurons[1]] = False
    assert torch.equal(noisy1[..., others], clean1[..., others])  # bit-identical
    delta = noisy1[..., neurons[1]] - clean1[..., neurons[1]]  # [batch, positions, 3]
    assert (delta != 0).all()
    spread = (delta - delta[:, :1]).abs().amax().item()
    if draw == "sample":  # one draw per sample, added at every position
        assert spread < 1e-5
    else:
        assert spread > 0.1
    # Seeded: edits made again with the same seed give the same noise.
    again = captured(classifier, split, perturbation_edits(classifier, neurons, settings))[1]
    assert torch.equal(again, noisy1)


def test_zero_and_baseline_kinds_at_prompt_positions(classifier, split):
    neurons = {0: torch.tensor([1, 4])}
    clean0, _ = captured(classifier, split)
    zero = perturbation_edits(
        classifier,
        neurons,
        PerturbationSettings(kind="zero"),
        positions=classifier.prompt_positions,
    )
    edited0, _ = captured(classifier, split, zero)
    assert (edited0[:, 1:3][..., [1, 4]] == 0).all()
    assert torch.equal(edited0[:, [0, 3, 4]], clean0[:, [0, 3, 4]])  # [MASK] and inputs
    baseline = np.arange(2 * 2 * 32, dtype=np.float32).reshape(2, 2, 32)  # [layers, tokens, n]
    edits = perturbation_edits(
        classifier,
        neurons,
        PerturbationSettings(kind="baseline", positions="prompt"),
        positions=classifier.prompt_positions,
        baseline=baseline,
    )
    edited0, _ = captured(classifier, split, edits)
    for token in range(2):  # prompt token t sits at position t + 1
        expected = torch.tensor(baseline[0, token, [1, 4]]).expand(4, 2)
        assert torch.equal(edited0[:, token + 1][:, [1, 4]], expected)
    everywhere = perturbation_edits(
        classifier, neurons, PerturbationSettings(kind="baseline"), baseline=baseline
    )
    edited0, _ = captured(classifier, split, everywhere)
    mean = baseline[0][:, [1, 4]].mean(axis=0)  # all positions: mean over prompt tokens
    assert torch.allclose(edited0[..., [1, 4]], torch.tensor(mean).expand(4, 5, 2))


def test_rate_zero_reproduces_the_unperturbed_accuracy_exactly(classifier, split):
    clean = accuracy(classifier, split, 3, classifier.pad_id)
    orders = [NamedOrder("random", "random", uniform_random_orders(64, 1, seed=0)[0])]
    settings = PerturbationSettings(sigma=50.0, seed=1)
    table = sweep_orders(classifier, split, orders, [0.0, 0.5, 1.0], settings, 0, 3)
    assert table["accuracy"].iloc[0] == clean
    pd.testing.assert_frame_equal(
        table, sweep_orders(classifier, split, orders, [0.0, 0.5, 1.0], settings, 0, 3)
    )
    with pytest.raises(ValueError, match="must hold all 64 flat neuron ids"):
        sweep_orders(
            classifier, split, [NamedOrder("x", "task", np.arange(10))], [0.1], settings, 0, 3
        )


def test_zeroing_every_neuron_equals_zeroing_every_output_weight(classifier, split):
    orders = [NamedOrder("random", "random", uniform_random_orders(64, 1, seed=0)[0])]
    zero = PerturbationSettings(kind="zero")
    zeroed = sweep_orders(classifier, split, orders, [0.0, 1.0], zero, 0, 3)
    silenced = copy.deepcopy(classifier)
    with torch.no_grad():
        for site in ffn_sites(silenced):
            output_weight(site).zero_()  # each FFN then outputs its bias only
    assert zeroed["accuracy"].tolist() == [
        accuracy(classifier, split, 3, 0),
        accuracy(silenced, split, 3, 0),
    ]


def test_sweep_table_shares_rate_zero_and_has_the_schema(classifier, split):
    orders = [
        NamedOrder("syn_a", "task", np.arange(64)),
        NamedOrder("random", "random", uniform_random_orders(64, 1, 5)[0], repeat=0),
    ]
    settings = PerturbationSettings(sigma=20.0)
    table = sweep_orders(classifier, split, orders, [0.0, 0.25, 0.5], settings, 0, 4)
    assert list(table.columns) == [*CURVE_COLUMNS, "correct"]
    assert table.dtypes.astype(str).tolist() == ["string", "string", "int64"] + [
        "float64",
        "int64",
        "float64",
        "object",
    ]
    # Every row's per-sample correctness is its accuracy's numerator.
    for row in table.itertuples():
        assert len(row.correct) == len(split) and row.correct.mean() == row.accuracy
    assert table["perturbed"].tolist() == [0, 16, 32, 0, 16, 32]
    first = table[table["order"] == "syn_a"]["accuracy"].tolist()
    # Rate r perturbs the first r * 64 neurons of the order: 0-15 (layer 0), then 0-31.
    assert first == [
        accuracy(classifier, split, 4, 0),
        perturbed_accuracy(classifier, split, {0: np.arange(16)}, settings, 0, 4),
        perturbed_accuracy(classifier, split, {0: np.arange(32)}, settings, 0, 4),
    ]
    assert table.loc[table["rate"] == 0, "accuracy"].nunique() == 1


def test_orders_counts_and_layer_splits():
    assert [perturbed_count(r, 9216) for r in (0.0, 0.01, 0.05, 0.2, 1.0)] == [
        0,
        92,
        461,
        1843,
        9216,
    ]
    assert perturbed_count(0.125, 4) == 1 and perturbed_count(0.375, 4) == 2  # half up
    split = split_flat(np.array([5, 0, 7, 3]), [4, 4])
    assert {k: v.tolist() for k, v in split.items()} == {0: [0, 3], 1: [1, 3]}
    with pytest.raises(ValueError, match="0..7"):
        split_flat(np.array([8]), [4, 4])
    first, second = uniform_random_orders(10, 2, seed=4)
    assert sorted(first) == list(range(10)) and not np.array_equal(first, second)
    assert np.array_equal(uniform_random_orders(10, 2, seed=4)[1], second)
    # Per-layer scope: every prefix of layers * k neurons holds k neurons of each layer.
    order = np.array([0, 1, 2, 3, 4, 5, 6, 7])  # layer 0 entirely before layer 1
    assert interleave_layers(order, [4, 4]).tolist() == [0, 4, 1, 5, 2, 6, 3, 7]


def test_flat_order_from_a_ranking_table():
    pred = np.array([[0.6, 0.9, 0.7], [0.95, 0.5, 0.8]])
    table = ranking_table({None: pred}, {None: np.zeros_like(pred)}, {None: np.zeros((2, 3))})
    assert Ranking(table).order().tolist() == [3, 1, 5, 2, 0, 4]
    assert Ranking(table).order("per_layer").tolist() == [1, 3, 2, 5, 0, 4]
    with pytest.raises(ValueError, match="scope 'layer' is unknown"):
        Ranking(table).order("layer")


def test_settings_are_validated():
    with pytest.raises(ValueError, match="kind 'noise' is unknown"):
        PerturbationSettings(kind="noise")
    with pytest.raises(ValueError, match="positions 'inputs' is unknown"):
        PerturbationSettings(positions="inputs")


# --------------------------------------------------------------------------- selectivity


def test_selectivity_index_by_hand():
    # Three classes with means 3, 1, 0 (minimum 0): (3 - 0.5) / (3 + 0.5) = 5/7.
    means = np.array([[3.0], [1.0], [0.0]])
    assert selectivity_index(means)[0] == pytest.approx(5 / 7)
    # Shifted by the minimum: means 1, -1 with minimum -2 -> (3 - 1) / (3 + 1) = 0.5.
    assert selectivity_index(np.array([[1.0], [-1.0]]), np.array([-2.0]))[0] == 0.5
    assert selectivity_index(np.array([[0.0], [0.0]]))[0] == 0.0  # silent cell
    with pytest.raises(ValueError, match="at least two classes"):
        selectivity_index(np.array([[1.0]]))


def test_selectivity_streams_a_dump_and_orders_neurons(tmp_path):
    labels = np.array([0, 1, 0, 1, 1, 0])
    acts = np.zeros((6, 1, 2, 3), dtype=np.float16)  # [samples, layers, tokens, neurons]
    acts[:, 0, 0, 0] = [0, 2, 0, 2, 2, 0]  # token 0, neuron 0: fully selective -> 1
    acts[:, 0, 1, 0] = [1, 1, 1, 1, 1, 1]  # constant -> 0
    acts[:, 0, 1, 1] = [1, 3, 1, 3, 3, 1]  # min 1: (2 - 0) / (2 + 0) = 1 after the shift
    acts[:, 0, 0, 2] = [-1, 1, -1, 1, 0, 0]  # class means -2/3, 2/3; min -1
    path = tmp_path / "dev.parquet"
    with ActivationWriter(path, (1, 2, 3), {"split": "dev"}) as writer:
        for start in (0, 4):
            writer.write(np.arange(start, min(start + 4, 6)), labels[start:][:4], acts[start:][:4])
    index = trial_selectivity(str(path), classes=2)
    # neuron 2: shifted means 1/3 and 5/3 -> (5/3 - 1/3) / (5/3 + 1/3) = 2/3.
    assert index.shape == (1, 3)
    assert index[0].tolist() == [1.0, 1.0, pytest.approx(2 / 3)]
    accumulator = SelectivityAccumulator((1, 2, 3), classes=2)
    accumulator.update(acts, labels)
    assert np.allclose(accumulator.index().max(axis=1), index)
    assert selectivity_order(np.array([[0.2, 0.9], [0.9, 0.1]])).tolist() == [1, 2, 0, 3]
    with pytest.raises(ValueError, match="at least two classes"):
        single = SelectivityAccumulator((1, 2, 3), classes=2)
        single.update(acts[:2], np.array([0, 0]))
        single.index()


def test_curve_columns_read_back(tmp_path, classifier, split):
    orders = [NamedOrder("random", "random", np.arange(64))]
    table = sweep_orders(classifier, split, orders, [0.0], PerturbationSettings(), 0, 8)
    table.to_parquet(tmp_path / "t.parquet")
    back = pd.read_parquet(tmp_path / "t.parquet")
    assert back.dtypes.astype(str).tolist()[:3] == ["string", "string", "int64"]


def test_layer_matched_orders_keep_the_layer_of_every_position():
    widths = [4, 4, 4]
    own = np.array([9, 10, 8, 1, 11, 0, 2, 3, 4, 5, 6, 7])  # layer 2 first, then 0, 1
    first, second = layer_matched_random_orders(own, widths, 2, seed=3)
    assert np.array_equal(first // 4, own // 4)  # the same layer at every position
    assert sorted(first) == list(range(12)) and not np.array_equal(first, own)
    assert not np.array_equal(first, second)
    assert np.array_equal(layer_matched_random_orders(own, widths, 2, seed=3)[1], second)


def test_neuron_std_unit_scales_each_neurons_noise_by_its_std(classifier, split):
    neurons = {1: torch.tensor([2, 7])}
    scale = np.ones((2, 32), dtype=np.float32)
    scale[1, 2], scale[1, 7] = 0.0, 4.0
    clean = captured(classifier, split)[1]

    def noise_of(settings, scale=None):
        edits = perturbation_edits(classifier, neurons, settings, scale=scale)
        return captured(classifier, split, edits)[1] - clean

    absolute = noise_of(PerturbationSettings(sigma=0.5, seed=1))
    relative = noise_of(PerturbationSettings(sigma=0.5, unit="neuron_std", seed=1), scale)
    assert torch.allclose(relative[..., 2], torch.zeros_like(relative[..., 2]))  # std 0
    torch.testing.assert_close(relative[..., 7], 4.0 * absolute[..., 7])
    with pytest.raises(ValueError, match="needs each neuron's activation std"):
        perturbation_edits(classifier, neurons, PerturbationSettings(unit="neuron_std"))


def test_uniform_and_layer_matched_random_orders_have_their_own_counts():
    scores = np.array([[0.9, 0.1, 0.8, 0.2], [0.3, 0.95, 0.4, 0.5]])
    zeros = np.zeros_like(scores)
    rankings = {"task": Ranking(ranking_table({None: scores}, {None: zeros}, {None: zeros}))}
    types = [o.order_type for o in perturbation_orders(rankings, None, 3, 0, matched_to="task")]
    assert types == ["task"] + ["random"] * 3 + ["layer_matched"] * 3
    orders = perturbation_orders(rankings, None, 3, 0, matched_to="task", uniform_count=1)
    assert [(o.order_type, o.repeat) for o in orders] == [
        ("task", 0), ("random", 0), ("layer_matched", 0), ("layer_matched", 1),
        ("layer_matched", 2),
    ]  # fmt: skip
    for order in orders[1:]:
        assert sorted(order.order) == list(range(8))


@pytest.mark.parametrize("draw", ["sample", "position"])
def test_a_sample_and_neuron_get_the_same_noise_in_every_order_and_rate(classifier, split, draw):
    """Common random numbers: neuron 4 of layer 0 gets the same noise on every sample
    whether it is perturbed alone, with other neurons of its layer, or with neurons of
    another layer too (a longer prefix of another order, a higher rate)."""
    settings = PerturbationSettings(sigma=0.5, draw=draw, seed=5)
    clean = captured(classifier, split)[0]

    def noise_at_4(neurons):
        edits = perturbation_edits(classifier, neurons, settings)
        return captured(classifier, split, edits)[0][..., 4] - clean[..., 4]

    alone = noise_at_4({0: torch.tensor([4])})
    assert (alone != 0).all()
    for neurons in (
        {0: torch.tensor([1, 4, 9])},
        {0: torch.tensor([4, 31]), 1: torch.tensor([3])},
        {1: torch.tensor([0, 5]), 0: torch.tensor([0, 2, 4, 6])},
    ):
        torch.testing.assert_close(noise_at_4(neurons), alone, rtol=0, atol=1e-6)


def test_neuron_std_is_measured_where_the_noise_lands(classifier, split):
    """The unit of neuron_std noise is the std over exactly the positions the noise is
    added at: every position the backbone reads (positions "all"), or the prompt
    positions 1 and 2 ("prompt"), both recomputed by hand from the captured activations
    of the 8 baseline samples."""
    baseline = {}
    baseline["prompt"], baseline["prompt_std"] = activation_moments(classifier, split, 3)
    baseline["all_positions_std"] = position_std(classifier, split, 3)
    scale = noise_scale(baseline)
    # By hand: every sample alone (no padding), all positions [MASK] p1 p2 inputs.
    rows = []
    for row in range(len(split)):
        batch = split.batch([row], classifier.pad_id)
        with torch.inference_mode(), capture_activations(classifier) as cap:
            classifier(**batch)
        rows.append(cap.activations[0][0].double().numpy())  # [positions, 32]
    everywhere = np.concatenate(rows)  # 8 samples, 4 or 5 positions each
    assert everywhere.shape == (6 * 5 + 2 * 4, 32)  # 6 samples of 2 tokens, 2 of 1
    prompts = np.concatenate([r[1:3] for r in rows])  # [16, 32]
    np.testing.assert_allclose(scale["all"][0], everywhere.std(axis=0), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(scale["prompt"][0], prompts.std(axis=0), rtol=1e-4, atol=1e-6)
    assert not np.allclose(scale["all"][0], scale["prompt"][0], rtol=0.05)  # the test bites

    # Where the noise lands: samples 0, 1, 3 have 2 input tokens each (no padding).
    neurons = {0: torch.tensor([3, 8])}
    batch = split.batch([0, 1, 3], classifier.pad_id)

    def delta(positions):
        settings = PerturbationSettings(sigma=1.0, unit="neuron_std", positions=positions)
        edits = perturbation_edits(
            classifier, neurons, settings, scale=scale[positions],
            positions=None if positions == "all" else classifier.prompt_positions,
        )  # fmt: skip
        out = []
        for edit in (edits, {}):
            with torch.inference_mode():
                with edit_activations(classifier, edit), capture_activations(classifier) as cap:
                    classifier(**batch)
            out.append(cap.activations[0][..., [3, 8]])
        return out[0] - out[1]  # [3 samples, 5 positions, 2 neurons]

    at_all, at_prompt = delta("all"), delta("prompt")
    assert (at_all != 0).all()  # every position of every sample
    assert (at_prompt[:, 1:3] != 0).all()  # the prompt positions ...
    assert (at_prompt[:, [0, 3, 4]] == 0).all()  # ... and no other
    # One standard draw z per sample and neuron, times the std of where it lands.
    z_all = at_all / torch.tensor(scale["all"][0, [3, 8]])
    z_prompt = at_prompt[:, 1:3] / torch.tensor(scale["prompt"][0, [3, 8]])
    torch.testing.assert_close(z_all, z_all[:, :1].expand_as(z_all), rtol=0, atol=1e-5)
    torch.testing.assert_close(z_prompt, z_all[:, :2], rtol=0, atol=1e-5)
    with pytest.raises(ValueError, match="measured there; it was measured at \\['all'\\]"):
        prompt = PerturbationSettings(unit="neuron_std", positions="prompt")
        positions_scale({"all": scale["all"]}, prompt)


def test_the_papers_design_adds_randn_times_sigma_per_sample_at_every_position(classifier, split):
    """§4.2 as the paper ran it (Plan.paper_perturbation): every perturbed neuron of a
    sample gets ``randn * 0.1`` in absolute units, the same draw at every position of
    the sample, as the original code's ``randn(batch, width) * alpha`` (alpha 0.1); the
    draw is the layer generator's ``randn(batch, 1, width)`` at the neuron's index."""
    from skillneurons.config import validate_config
    from skillneurons.neurons.perturbation.noise import _layer_seed
    from skillneurons.plan import Plan

    design = Plan(validate_config({"tasks": ["syn_sst2"]})).paper_perturbation
    assert design == {
        "kind": "gaussian", "sigma": 0.1, "mean": 0.0, "unit": "absolute",
        "positions": "all", "draw": "sample",
    }  # fmt: skip
    neurons = {1: torch.tensor([3, 17])}
    settings = PerturbationSettings(**design, seed=11)
    delta = captured(classifier, split, perturbation_edits(classifier, neurons, settings))[1]
    delta = delta - captured(classifier, split)[1]
    generator = torch.Generator().manual_seed(_layer_seed(11, 1))
    expected = torch.randn((4, 1, 32), generator=generator)[..., [3, 17]] * 0.1
    torch.testing.assert_close(delta[..., [3, 17]], expected.expand_as(delta[..., [3, 17]]))
    assert delta[..., [0, 1, 2]].abs().max() == 0
