"""The ``pruning`` row: inference of a model pruned to 2% of its neurons in the top 75% of
its layers against the unpruned model on the same batch (paper A, Table A-T4), on the
default MiniLM-L6 and on a RoBERTa-base-shaped model with random weights (no download).
The measured speedup is compared with the bound that counts the work pruning cannot
remove (matmul FLOPs plus elementwise work and embeddings,
:func:`skillneurons.paper_a.speed.elementwise_ops`); the ratio of matmul FLOPs alone
(:func:`skillneurons.paper_a.speed.forward_flops`), a looser bound, is printed beside
it."""

from __future__ import annotations

import numpy as np
import torch
import transformers

from benchmarks.common import MINILM, Ratio, Row
from skillneurons.models.encoding import encode_split
from skillneurons.models.loading import LoadedModel, load_model
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites
from skillneurons.paper_a.pruning import parameter_count, pruned_copy, pruned_layers
from skillneurons.paper_a.speed import compare_speed

#: Measured speedup / work bound, on each shape.
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
        lines += [
            f"  {name}: {result['seq_len']} positions, {100 * fraction:.1f}% of parameters",
            f"    unpruned {1000 * result['unpruned_median_s']:8.1f} ms, "
            f"pruned {1000 * result['pruned_median_s']:8.1f} ms",
            f"    speedup {result['speedup']:5.2f}x, FLOP bound {result['flop_bound']:5.2f}x "
            f"(speedup / FLOP bound {result['efficiency']:.3f}), work bound "
            f"{result['work_bound']:5.2f}x, CPU-time speedup {result['cpu_speedup']:5.2f}x",
        ]
        ratios.append(
            Ratio(f"{name}: speedup / work bound", result["work_efficiency"], TARGET, False)
        )
        numbers[f"{name} speedup"] = result["speedup"]
        numbers[f"{name} flop_bound"] = result["flop_bound"]
        numbers[f"{name} work_bound"] = result["work_bound"]
    return Row("pruning", lines, ratios, numbers)
