"""Perturbation conditions batched into one forward pass equal one pass each (
item 2): skillneurons.neurons.hooks.GroupedEdit and
skillneurons.neurons.perturbation.sweep.grouped_predictions."""

import numpy as np
import pytest
import torch

from skillneurons.models.encoding import encode_split, repeated_batch
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.training import predict
from skillneurons.neurons.hooks import edit_activations
from skillneurons.neurons.perturbation.noise import (
    PerturbationSettings,
    grouped_perturbation_edits,
    perturbation_edits,
)
from skillneurons.neurons.perturbation.orders import NamedOrder, uniform_random_orders
from skillneurons.neurons.perturbation.sweep import perturbed_predictions, sweep_orders
from tiny_models import tiny, word_tokenizer

TEXTS = ["very good", "not good", "bad", "very bad", "good good", "not bad", "bad good", "good"]
#: Logits of a condition in a batched pass against its own pass: float32 rounding of
#: larger matrix products only.
ATOL = 1e-5
#: [layers, tokens, neurons] baseline activations (kind "baseline").
BASELINE = np.linspace(-2, 2, 2 * 2 * 32, dtype=np.float32).reshape(2, 2, 32)
SCALE = np.linspace(0.5, 3.0, 2 * 32, dtype=np.float32).reshape(2, 32)
SETTINGS = {
    "gaussian, one draw per sample": PerturbationSettings(sigma=2.0, seed=3),
    "gaussian, per position, neuron std": PerturbationSettings(
        sigma=1.0, draw="position", unit="neuron_std", seed=4
    ),
    "zero at the prompts": PerturbationSettings(kind="zero", positions="prompt"),
    "baseline at the prompts": PerturbationSettings(kind="baseline", positions="prompt"),
}


@pytest.fixture
def classifier():
    """Tiny BERT (2 layers x 32 neurons), larger weights than its default init so that
    perturbations change predictions, with 2 soft prompts."""
    loaded = tiny("masked_lm", word_tokenizer())
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for parameter in loaded.model.parameters():
            if parameter.dim() == 2:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.3)
    return PromptedClassifier(loaded, ["Negative", "Positive"], 2, init_std=1.0)


@pytest.fixture
def split():
    texts = TEXTS * 3
    labels = [i % 2 for i in range(len(texts))]
    return encode_split(word_tokenizer(), texts, [None] * len(texts), labels, 16)


def conditions():
    """Three sets of neurons, touching one layer, the other, and both."""
    return [
        {0: torch.tensor([1, 4, 9])},
        {1: torch.arange(0, 32, 2)},
        {0: torch.arange(20), 1: torch.tensor([3, 30])},
    ]


@pytest.mark.parametrize("name", list(SETTINGS))
def test_a_grouped_pass_gives_each_condition_the_logits_of_its_own_pass(classifier, split, name):
    settings = SETTINGS[name]
    positions = classifier.prompt_positions if settings.positions == "prompt" else None
    extra = {"positions": positions, "baseline": BASELINE, "scale": SCALE}
    batch = split.batch(range(8), classifier.pad_id)
    with torch.no_grad():
        clean = classifier(**batch)
        alone = []
        for neurons in conditions():
            with edit_activations(
                classifier, perturbation_edits(classifier, neurons, settings, **extra)
            ):
                alone.append(classifier(**batch))
        grouped = grouped_perturbation_edits(classifier, conditions(), settings, **extra)
        with edit_activations(classifier, grouped):
            together = classifier(**repeated_batch(batch, 3)).view(3, 8, -1)
    torch.testing.assert_close(together, torch.stack(alone), atol=ATOL, rtol=0)
    # perturbed (edits of the last layer at the prompts cannot reach the [MASK]'s logits)
    assert all((alone[i] - clean).abs().max() > 0.01 for i in (0, 2))


@pytest.mark.parametrize("name", list(SETTINGS))
def test_batched_sweep_predicts_as_one_pass_per_condition(classifier, split, name):
    settings = SETTINGS[name]
    orders = [
        NamedOrder(f"random{i}", "random", order, i)
        for i, order in enumerate(uniform_random_orders(64, 2, seed=5))
    ]
    rates = [0.0, 0.1, 0.3, 0.6, 1.0]
    pad = classifier.pad_id
    tables = [  # two conditions a pass (of 8 rows each), or all of them in one
        sweep_orders(
            classifier, split, orders, rates, settings, pad, 8, BASELINE, SCALE, max_rows=rows
        )
        for rows in (16, 512)
    ]
    clean = predict(classifier, split, 8, pad)
    changed = 0
    for index, row in enumerate(tables[0].itertuples()):
        order = next(o for o in orders if o.name == row.order).order
        chosen = order[: row.perturbed]
        neurons = {0: chosen[chosen < 32], 1: chosen[chosen >= 32] - 32}
        alone = perturbed_predictions(
            classifier, split, neurons, settings, pad, 8, BASELINE, SCALE
        )
        for table in tables:
            assert np.array_equal(table["correct"][index], (alone == split.labels).numpy())
        changed += int(not torch.equal(alone, clean))
    assert changed >= 2  # the sweep's perturbations change predictions
