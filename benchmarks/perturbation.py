"""The ``perturbation`` row: test-set accuracy of a prompted MiniLM-L6 while 20% of its
neurons get Gaussian noise (paper A §4.2; hooks on every layer) against the same pass
without hooks."""

from __future__ import annotations

from benchmarks.common import MINILM, Ratio, Row, median_times
from skillneurons.models.encoding import encode_split
from skillneurons.models.loading import load_model
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites
from skillneurons.models.training import accuracy
from skillneurons.neurons.perturbation.noise import PerturbationSettings
from skillneurons.neurons.perturbation.orders import perturbed_count, uniform_random_orders
from skillneurons.neurons.perturbation.sweep import perturbed_accuracy
from skillneurons.neurons.ranking import split_flat

#: Perturbed / clean evaluation time.
TARGET = 1.1


def run(repeats: int, samples: int = 64, rate: float = 0.2) -> Row:
    loaded = load_model(MINILM)
    texts = [
        f"review {i}: the plot was {'dull' if i % 2 else 'gripping'} and long"
        for i in range(samples)
    ]
    labels = [i % 2 for i in range(samples)]
    split = encode_split(loaded.tokenizer, texts, [None] * samples, labels, 64)
    classifier = PromptedClassifier(loaded, ["Negative", "Positive"], 8)
    widths = [site.width for site in ffn_sites(classifier)]
    order = uniform_random_orders(sum(widths), 1, seed=0)[0]
    neurons = split_flat(order[: perturbed_count(rate, sum(widths))], widths)
    settings, pad = PerturbationSettings(), loaded.tokenizer.pad_token_id
    times = median_times(
        {
            "clean": lambda: accuracy(classifier, split, samples, pad),
            "perturbed": lambda: perturbed_accuracy(
                classifier, split, neurons, settings, pad, samples
            ),
        },
        repeats,
    )
    clean, noisy = times["clean"]["median_s"], times["perturbed"]["median_s"]
    return Row(
        "perturbation",
        [
            f"perturbation: MiniLM-L6, {samples} samples, Gaussian noise on {100 * rate:.0f}% "
            f"of {sum(widths)} neurons",
            f"  no hooks   {samples / clean:8.1f} samples/s",
            f"  perturbed  {samples / noisy:8.1f} samples/s",
        ],
        [
            Ratio.paired(
                "perturbed / clean time",
                times["perturbed"]["wall"],
                times["clean"]["wall"],
                TARGET,
            )
        ],
        {"clean_s": clean, "perturbed_s": noisy},
    )
