"""The ``pruning`` row: inference of a model pruned to 2% of its neurons in the top 75% of
its layers against the unpruned model on the same batch (paper A, Table A-T4), on the
default MiniLM-L6 and on a RoBERTa-base-shaped model with random weights (no download).
The measured speedup is compared with the time bound, which measures the work pruning
cannot remove (the pruned model with its pruned layers at zero width, timed in turns
with the other two: :func:`skillneurons.paper_a.speed.floor_classifier`). The two
bounds that count that work in operations, matmul FLOPs alone
(:func:`skillneurons.paper_a.speed.forward_flops`) and with the elementwise work and
embeddings (:func:`skillneurons.paper_a.speed.elementwise_ops`), are printed beside it:
they weigh attention at the matmuls' rate and so promise more on a CPU. Each shape's
attention products and one of its projections are also timed alone, to show their
rates (:func:`flop_rates`)."""

from __future__ import annotations

import numpy as np
import torch
import transformers
from torch.nn import functional as F

from benchmarks.common import MINILM, Ratio, Row, median_times
from skillneurons.models.encoding import encode_split
from skillneurons.models.loading import LoadedModel, load_model
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites
from skillneurons.paper_a.pruning import parameter_count, pruned_copy, pruned_layers
from skillneurons.paper_a.speed import compare_speed

#: Measured speedup / time bound, on each shape.
TARGET = 0.95


def pruned_pair(loaded: LoadedModel, prompt_length: int, keep: float = 0.02):
    """Unpruned and pruned classifiers (random skill-neuron order, frozen at zero)."""
    sites = ffn_sites(loaded.model)
    generator = np.random.default_rng(0)
    layers = pruned_layers(len(sites), 0.75)
    kept = {
        layer: np.sort(
            generator.permutation(sites[layer].width)[: round(keep * sites[layer].width)]
        )
        for layer in layers
    }
    pruned = pruned_copy(loaded, kept, torch.zeros(len(sites), sites[0].width))
    fraction = parameter_count(pruned.model) / parameter_count(loaded.model)
    words = ["Negative", "Positive"]
    return (
        PromptedClassifier(loaded, words, prompt_length),
        PromptedClassifier(pruned, words, prompt_length),
        fraction,
    )


def flop_rates(
    model: torch.nn.Module, batch_size: int, positions: int, repeats: int
) -> dict[str, float]:
    """GFLOP/s of one layer's attention products (scores and weighted values, SDPA with
    the model's heads) and of one of its ``hidden x hidden`` projections, at a shape."""
    config = model.config
    hidden, heads = config.hidden_size, config.num_attention_heads
    generator = torch.Generator().manual_seed(0)
    query, key, value = torch.randn(3, batch_size, heads, positions, hidden // heads,
                                    generator=generator)  # fmt: skip
    states = torch.randn(batch_size * positions, hidden, generator=generator)
    weight = torch.randn(hidden, hidden, generator=generator)
    with torch.inference_mode():
        times = median_times(
            {
                "attention": lambda: F.scaled_dot_product_attention(query, key, value),
                "projection": lambda: states @ weight,
            },
            repeats,
        )
    flops = {
        "attention": 4 * batch_size * positions**2 * hidden,
        "projection": 2 * batch_size * positions * hidden**2,
    }
    return {name: flops[name] / times[name]["median_s"] / 1e9 for name in flops}


def run(repeats: int, batch_size: int = 8) -> Row:
    lines = [f"pruning: 2% of the neurons kept in the top 75% of the layers, batch {batch_size}"]
    minilm = load_model(MINILM)
    texts = [f"review {i}: " + "the plot was gripping and long " * 8 for i in range(batch_size)]
    split = encode_split(minilm.tokenizer, texts, [None] * batch_size, [0] * batch_size, 64)
    shapes = [("MiniLM-L6", minilm, 8, split.batch(range(batch_size), 0))]
    torch.manual_seed(0)
    roberta = transformers.RobertaForMaskedLM(transformers.RobertaConfig()).eval()
    ids = torch.randint(1000, 30000, (batch_size, 127), generator=torch.Generator().manual_seed(0))
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    loaded = LoadedModel(roberta, minilm.tokenizer, "masked_lm", "random RoBERTa-base shape")
    shapes.append(("RoBERTa-base shape", loaded, 16, batch))
    ratios, numbers = [], {}
    for name, model, prompt_length, inputs in shapes:
        unpruned, pruned, fraction = pruned_pair(model, prompt_length)
        result = compare_speed(unpruned, pruned, inputs, repeats)
        rates = flop_rates(model.model, batch_size, result["seq_len"], 5 * repeats)
        lines += [
            f"  {name}: {result['seq_len']} positions, {100 * fraction:.1f}% of parameters",
            f"    unpruned {1000 * result['unpruned_median_s']:8.1f} ms, "
            f"pruned {1000 * result['pruned_median_s']:8.1f} ms, "
            f"pruned layers at zero width {1000 * result['floor_median_s']:8.1f} ms",
            f"    speedup {result['speedup']:5.2f}x (CPU time {result['cpu_speedup']:5.2f}x); "
            f"bounds: time {result['time_bound']:5.2f}x, work {result['work_bound']:5.2f}x "
            f"(speedup / work bound {result['work_efficiency']:.3f}), "
            f"FLOP {result['flop_bound']:5.2f}x ({result['efficiency']:.3f})",
            f"    alone: attention products {rates['attention']:5.1f} GFLOP/s, "
            f"a projection {rates['projection']:5.1f} GFLOP/s",
        ]
        ratios.append(
            Ratio.of_rounds(
                f"{name}: speedup / time bound", result["time_efficiency_rounds"], TARGET, False
            )
        )
        numbers[f"{name} speedup"] = result["speedup"]
        numbers[f"{name} flop_bound"] = result["flop_bound"]
        numbers[f"{name} work_bound"] = result["work_bound"]
        numbers[f"{name} time_bound"] = result["time_bound"]
        numbers.update({f"{name} {kind} GFLOP/s": rate for kind, rate in rates.items()})
    return Row("pruning", lines, ratios, numbers)
