"""The ``neuron_training`` row: one step (forward, backward, Adam) of paper B's
neuron-only fine-tuning with 10% of the neurons of every layer against one step of full
fine-tuning (every backbone weight but the word embeddings, paper B's multi-task
training), same batch. Neuron-only training keeps the model frozen and trains deltas of
the chosen rows and columns (:class:`skillneurons.models.neuron_deltas.NeuronDeltas`),
so backward computes activation gradients (needed to reach early layers) but no frozen
weight's gradient: about one forward's cost instead of two, hence a step near 2/3 of
full fine-tuning's before the smaller optimizer update (target 0.75). Adam's state is
two values per trained entry: the neurons' share of the trained entries (10% of the FFN
entries, against every non-embedding weight) bounds it (target 15%)."""

from __future__ import annotations

import numpy as np
import torch
from torch.nn import functional

from benchmarks.common import MINILM, Ratio, Row, median_times
from benchmarks.relevance import review_split
from skillneurons.models.loading import LoadedModel, load_model
from skillneurons.models.neuron_deltas import NeuronDeltas
from skillneurons.models.sites import ffn_sites
from skillneurons.paper_b.classifiers import task_classifier, unfreeze_backbone

#: Neuron-only step / full fine-tuning step.
STEP_TARGET = 0.75
#: Neuron-only Adam state / full fine-tuning Adam state.
STATE_TARGET = 0.15


def optimizer_entries(optimizer: torch.optim.Optimizer) -> int:
    """Values Adam keeps (``exp_avg`` and ``exp_avg_sq`` of every parameter)."""
    return sum(
        value.numel()
        for state in optimizer.state.values()
        for key, value in state.items()
        if key in ("exp_avg", "exp_avg_sq")
    )


def run(
    repeats: int, batch_size: int = 8, fraction: float = 0.1, loaded: LoadedModel | None = None
) -> Row:
    """The row on MiniLM-L6, or on ``loaded`` (on its device; benchmarks/gpu.py)."""
    loaded = loaded or load_model(MINILM)
    name = "MiniLM-L6" if loaded.source == MINILM else loaded.source
    classifier = task_classifier(loaded, ["Negative", "Positive"])
    classifier.eval()
    split = review_split(loaded, batch_size)
    batch = split.batch(range(batch_size), classifier.pad_id, loaded.model.device)
    generator = np.random.default_rng(0)
    neurons = {
        layer: np.sort(generator.choice(site.width, round(fraction * site.width), replace=False))
        for layer, site in enumerate(ffn_sites(loaded.model))
    }

    def stepper(parameters):
        optimizer = torch.optim.Adam(parameters, lr=1e-5)

        def step():
            optimizer.zero_grad(set_to_none=True)
            logits = classifier(**batch)
            functional.cross_entropy(logits, batch["labels"]).backward()
            optimizer.step()

        return step, optimizer

    unfreeze_backbone(loaded, freeze_embeddings=True)
    full_step, full_optimizer = stepper([p for p in loaded.model.parameters() if p.requires_grad])
    times = median_times({"full": full_step}, repeats)
    for parameter in loaded.model.parameters():
        parameter.requires_grad_(False)
    deltas = NeuronDeltas(loaded.model, neurons)
    neuron_step, neuron_optimizer = stepper(list(deltas.parameters()))
    times |= median_times({"neurons": neuron_step}, repeats)
    deltas.remove()
    state_ratio = optimizer_entries(neuron_optimizer) / optimizer_entries(full_optimizer)
    return Row(
        "neuron_training",
        [
            f"neuron_training: {name}, batch {batch_size}, {fraction:.0%} of every "
            f"layer's neurons, Adam",
            f"  full fine-tuning step {1000 * times['full']['median_s']:7.1f} ms, "
            f"neuron-only step {1000 * times['neurons']['median_s']:7.1f} ms",
            f"  Adam state: {optimizer_entries(full_optimizer):,} values (full), "
            f"{optimizer_entries(neuron_optimizer):,} (neurons)",
        ],
        [
            # timed apart: the full step needs the backbone's weights trainable, the
            # neuron-only step frozen
            Ratio.unpaired(
                "neuron-only step / full fine-tuning step",
                times["neurons"]["wall"],
                times["full"]["wall"],
                STEP_TARGET,
            ),
            Ratio("neuron-only / full Adam state", state_ratio, STATE_TARGET),
        ],
        {name: value["median_s"] for name, value in times.items()} | {"state": state_ratio},
    )
