"""The ``sweep_batching`` row: a perturbation sweep of 20 conditions (4 random orders x
5 rates, Gaussian noise, paper A §4.2) on a prompted MiniLM-L6, all conditions in one
forward pass per batch (:func:`skillneurons.neurons.perturbation.sweep.sweep_orders`),
against one pass per condition
(:func:`skillneurons.neurons.perturbation.sweep.perturbed_predictions`; issue 37,
item 2)."""

from __future__ import annotations

from benchmarks.common import MINILM, Ratio, Row, median_times
from skillneurons.models.encoding import encode_split
from skillneurons.models.loading import load_model
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites
from skillneurons.neurons.perturbation.noise import PerturbationSettings
from skillneurons.neurons.perturbation.orders import (
    NamedOrder,
    perturbed_count,
    uniform_random_orders,
)
from skillneurons.neurons.perturbation.sweep import perturbed_predictions, sweep_orders
from skillneurons.neurons.ranking import split_flat

#: Batched sweep / one forward pass per condition.
TARGET = 0.8
RATES = (0.01, 0.05, 0.1, 0.2, 0.5)


def run(repeats: int, samples: int = 32, orders: int = 4) -> Row:
    loaded = load_model(MINILM)
    texts = [
        f"review {i}: the plot was {'dull' if i % 2 else 'gripping'} and long"
        for i in range(samples)
    ]
    split = encode_split(
        loaded.tokenizer, texts, [None] * samples, [i % 2 for i in range(samples)], 64
    )
    classifier = PromptedClassifier(loaded, ["Negative", "Positive"], 8)
    widths = [site.width for site in ffn_sites(classifier)]
    named = [
        NamedOrder("random", "random", order, repeat)
        for repeat, order in enumerate(uniform_random_orders(sum(widths), orders, seed=0))
    ]
    settings, pad = PerturbationSettings(), loaded.tokenizer.pad_token_id
    conditions = len(named) * len(RATES)

    def separate() -> None:
        for order in named:
            for rate in RATES:
                neurons = split_flat(order.order[: perturbed_count(rate, sum(widths))], widths)
                perturbed_predictions(classifier, split, neurons, settings, pad, samples)

    def batched() -> None:
        sweep_orders(
            classifier, split, named, RATES, settings, pad, samples, max_rows=conditions * samples
        )

    times = median_times({"separate": separate, "batched": batched}, repeats)
    one_each, together = times["separate"]["median_s"], times["batched"]["median_s"]
    return Row(
        "sweep_batching",
        [
            f"sweep_batching: MiniLM-L6, {conditions} conditions ({len(named)} orders x "
            f"{len(RATES)} rates) on {samples} samples",
            f"  one pass per condition  {1000 * one_each:8.1f} ms",
            f"  one batched pass        {1000 * together:8.1f} ms",
        ],
        [
            Ratio(
                f"sweep of {conditions} conditions batched / {conditions} separate forwards",
                together / one_each,
                TARGET,
            )
        ],
        {"separate_s": one_each, "batched_s": together},
    )
