"""CPU inference speed of a pruned vs an unpruned model, and its FLOP bound (paper A, Table 4).

Paper A reports the speedup of its pruned RoBERTa-base on a single CPU (1.32-1.38x).
Here the two models run on the same batch, in turns (unpruned, pruned, unpruned, ...)
after a warm-up, so slow drifts of a shared machine hit both alike; each model's
median time over the repeats and the spread (max - min) are reported, and the
speedup is the ratio of the medians. The process's CPU time is recorded beside the
wall-clock time: with one thread its ratio is nearly immune to other processes
competing for the cores, which on a busy machine inflate wall-clock times at random.

The upper bound a measured speedup can approach is the ratio of the models' matmul
FLOPs (:func:`forward_flops`): every linear projection inside the Transformer
blocks (attention Q/K/V/output, the FFN's, at every position), the attention score
and value products, and the label head at the answer position only (the verbalizer
scores the ``[MASK]`` position alone, so no full-vocabulary head runs at every
position). That bound leaves out the elementwise work (softmax, activation, layer
norms, residual adds) and the embeddings, most of which pruning cannot remove, so a
measured speedup falls short of it. The second bound, ``work_bound``, counts them too
(:func:`elementwise_ops`, as DeepSpeed's FLOPs profiler counts them): the work that
pruning removes is then the pruned layers' FFN products and their activations only,
beside the same attention, embeddings, norms and un-pruned layers in both models.
Kernel launches and Python dispatch, the same per layer in both models, are counted in
neither.

Counted in FLOPs, the work pruning cannot remove is weighed at the matmuls' rate, yet
on a CPU it runs slower: at MiniLM-L6's shapes (batch 8, 62 positions, head size 32)
the attention products run at about a quarter of the projections' FLOPs per second, so
both FLOP bounds promise more than any pruning of the FFNs can give. The third bound,
``time_bound``, measures that work instead (:func:`floor_classifier`): the pruned
model with its pruned layers shrunk to zero neurons runs, in turns with the other two,
in ``floor_median_s``, the time of everything pruning cannot remove (attention,
embeddings, norms, the un-pruned layers, the head, dispatch). The bound is the
speedup if the kept neurons cost their share of the pruned FFNs' measured time:

    time_bound = T_unpruned / (T_floor + q (T_unpruned - T_floor)),

with ``q`` the pruned layers' kept neurons over their original ones (:func:`kept_share`).
A pruned model whose layers did not really shrink (neurons masked, not removed) would
run at about the unpruned model's speed, ``1 / time_bound`` of this bound.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Mapping

import torch
from torch import nn
from transformers.pytorch_utils import Conv1D

from skillneurons.infra.timing import interleaved_times, timing_summary
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites, shrink_site


def _linear_shape(module: nn.Module) -> tuple[int, int] | None:
    """(in, out) features of a linear projection, None for other modules."""
    if isinstance(module, nn.Linear):
        return module.in_features, module.out_features
    if isinstance(module, Conv1D):  # weight [in, out]
        return module.weight.shape[0], module.weight.shape[1]
    return None


def forward_flops(classifier: PromptedClassifier, seq_len: int) -> int:
    """Matmul FLOPs of one sample's forward pass of ``seq_len`` positions (the input's and
    the classifier's added ones).

    Per Transformer block: ``2 * T * in * out`` for every linear projection in it and
    ``4 * T^2 * hidden`` for the attention scores and the weighted values; plus
    ``2 * in * out`` for each linear module of the label head, which runs at the
    answer position only. Multiply by the batch size for a batch.
    """
    sites = ffn_sites(classifier.backbone)
    hidden = int(classifier.backbone.config.hidden_size)
    total = 0
    for site in sites:
        shapes = [_linear_shape(module) for module in site.block.modules()]
        total += sum(2 * seq_len * n_in * n_out for n_in, n_out in filter(None, shapes))
        total += 4 * seq_len * seq_len * hidden
    head = [_linear_shape(module) for module in classifier.scorer.modules()]
    total += sum(2 * n_in * n_out for n_in, n_out in filter(None, head))
    return total


#: Operations per element, as DeepSpeed's FLOPs profiler counts them: a normalisation
#: with an affine (LayerNorm; RMSNorm counted alike) 5; a softmax, an activation function
#: or a residual or embedding add 1.
NORM_OPS = 5
ELEMENT_OPS = 1


def _norm_width(module: nn.Module) -> int | None:
    """Normalised width of a LayerNorm or RMSNorm module, None for other modules."""
    if isinstance(module, nn.LayerNorm):
        return int(module.normalized_shape[-1])
    if type(module).__name__.endswith("RMSNorm"):
        return int(module.weight.shape[-1])
    return None


def _norm_ops(modules, positions: int) -> int:
    widths = filter(None, (_norm_width(module) for module in modules))
    return sum(NORM_OPS * positions * width for width in widths)


def elementwise_ops(classifier: PromptedClassifier, seq_len: int) -> int:
    """The elementwise operations of one sample's forward pass of ``seq_len`` positions
    that :func:`forward_flops` leaves out.

    Per Transformer block: its norms (``NORM_OPS * T * width`` each), the attention
    softmax (``heads * T^2``), the FFN's activation (``T * neurons``: the only term
    pruning shrinks) and two residual adds (``2 * T * hidden``). Outside the blocks:
    the sum of the embedding tables (``(tables - 1) * T * hidden``) and the norms of the
    embeddings and of the final layer; the label head's norms at the answer position.
    Rotary position embeddings and a gated FFN's product are not counted.
    """
    backbone = classifier.backbone
    config = backbone.config
    hidden, heads = int(config.hidden_size), int(config.num_attention_heads)
    sites = ffn_sites(backbone)
    in_blocks = {id(module) for site in sites for module in site.block.modules()}
    total = 0
    for site in sites:
        total += _norm_ops(site.block.modules(), seq_len)
        total += ELEMENT_OPS * (heads * seq_len * seq_len + seq_len * site.width)
        total += ELEMENT_OPS * 2 * seq_len * hidden
    outside = [m for m in backbone.base_model.modules() if id(m) not in in_blocks]
    tables = sum(isinstance(module, nn.Embedding) for module in outside)
    total += ELEMENT_OPS * max(tables - 1, 0) * seq_len * hidden
    total += _norm_ops(outside, seq_len)
    total += _norm_ops(classifier.scorer.modules(), 1)
    return total


def _pruned_layers(unpruned: PromptedClassifier, pruned: PromptedClassifier) -> list[int]:
    """Layers whose FFN is narrower in ``pruned`` than in ``unpruned``."""
    widths = zip(ffn_sites(unpruned.backbone), ffn_sites(pruned.backbone), strict=True)
    return [layer for layer, (full, kept) in enumerate(widths) if kept.width < full.width]


def kept_share(unpruned: PromptedClassifier, pruned: PromptedClassifier) -> float:
    """``q``: the pruned layers' neurons in ``pruned`` over theirs in ``unpruned``; 1
    where no layer is narrower (``pruning.keep: 1.0``: nothing removed, time bound 1)."""
    layers = _pruned_layers(unpruned, pruned)
    if not layers:
        return 1.0
    full, kept = ffn_sites(unpruned.backbone), ffn_sites(pruned.backbone)
    return sum(kept[i].width for i in layers) / sum(full[i].width for i in layers)


def floor_classifier(
    unpruned: PromptedClassifier, pruned: PromptedClassifier
) -> PromptedClassifier:
    """A copy of ``pruned`` whose pruned layers keep no neuron: the work pruning those
    layers cannot remove, to be timed (its outputs are not meaningful)."""
    floor = copy.deepcopy(pruned)
    weight = next(floor.backbone.parameters())
    empty = torch.zeros(0, dtype=torch.long)
    hidden = weight.new_zeros(int(floor.backbone.config.hidden_size))
    with warnings.catch_warnings():  # initialising the zero-width weights is a no-op
        warnings.filterwarnings("ignore", "Initializing zero-element tensors")
        for layer in _pruned_layers(unpruned, pruned):
            shrink_site(floor.backbone, layer, empty, hidden)
    return floor.eval()


def compare_speed(
    unpruned: PromptedClassifier,
    pruned: PromptedClassifier,
    batch: Mapping[str, torch.Tensor],
    repeats: int,
    warmup: int = 2,
) -> dict[str, float]:
    """Time both classifiers on the same batch (inference mode); speedup and FLOP bound.

    Returns median/min/spread wall-clock seconds of each model (``unpruned_*``,
    ``pruned_*``) and of its process CPU time (``unpruned_cpu_*``, ``pruned_cpu_*``),
    ``speedup`` (ratio of the wall-clock medians, the headline), ``cpu_speedup`` (ratio
    of the CPU-time medians: with one thread, a check that other processes sharing the
    cores barely disturb), ``flop_bound`` (ratio of :func:`forward_flops`),
    ``efficiency`` (speedup / flop bound), ``work_bound`` (ratio of
    :func:`forward_flops` plus :func:`elementwise_ops`: the bound that counts the work
    pruning cannot remove), ``work_efficiency`` (speedup / work bound),
    ``floor_median_s`` (and its ``floor_*`` summary: :func:`floor_classifier`),
    ``kept_share``, ``time_bound`` (the measured bound of the module docstring),
    ``time_efficiency`` (speedup / time bound) and ``time_efficiency_rounds`` (its
    value in each round of the repeats: the interval of the benchmark row), the batch
    shape and the thread count.
    """
    inputs = {name: value for name, value in batch.items() if name != "labels"}

    def runner(classifier: PromptedClassifier) -> Callable[[], object]:
        def run() -> object:
            with torch.inference_mode():
                return classifier(**inputs)

        return run

    unpruned.eval()
    pruned.eval()
    floor = floor_classifier(unpruned, pruned)
    times = interleaved_times(
        {"unpruned": runner(unpruned), "pruned": runner(pruned), "floor": runner(floor)},
        repeats,
        warmup,
    )
    seq_len = unpruned.added_length + int(inputs["input_ids"].shape[1])
    flops = {
        "unpruned": forward_flops(unpruned, seq_len),
        "pruned": forward_flops(pruned, seq_len),
    }
    work = {
        name: flops[name] + elementwise_ops(classifier, seq_len)
        for name, classifier in (("unpruned", unpruned), ("pruned", pruned))
    }
    summary = {}
    for name, clocks in times.items():
        for clock, values in clocks.items():
            prefix = name if clock == "wall" else f"{name}_cpu"
            summary.update({f"{prefix}_{k}": v for k, v in timing_summary(values).items()})
    speedup = summary["unpruned_median_s"] / summary["pruned_median_s"]
    bound = flops["unpruned"] / flops["pruned"]
    work_bound = work["unpruned"] / work["pruned"]
    share = kept_share(unpruned, pruned)
    full, least = summary["unpruned_median_s"], summary["floor_median_s"]
    time_bound = full / (least + share * (full - least))
    # speedup / time bound in each round: (T_floor + q (T_unpruned - T_floor)) / T_pruned
    walls = {name: clocks["wall"] for name, clocks in times.items()}
    rounds = [
        (floor_time + share * (unpruned_time - floor_time)) / pruned_time
        for unpruned_time, pruned_time, floor_time in zip(
            walls["unpruned"], walls["pruned"], walls["floor"], strict=True
        )
    ]
    return {
        **summary,
        "speedup": speedup,
        "cpu_speedup": summary["unpruned_cpu_median_s"] / summary["pruned_cpu_median_s"],
        "flop_bound": bound,
        "efficiency": speedup / bound,
        "work_bound": work_bound,
        "work_efficiency": speedup / work_bound,
        "kept_share": share,
        "time_bound": time_bound,
        "time_efficiency": speedup / time_bound,
        "time_efficiency_rounds": rounds,
        "unpruned_gflops": flops["unpruned"] * inputs["input_ids"].shape[0] / 1e9,
        "pruned_gflops": flops["pruned"] * inputs["input_ids"].shape[0] / 1e9,
        "batch_size": int(inputs["input_ids"].shape[0]),
        "seq_len": seq_len,
        "repeats": repeats,
        "threads": torch.get_num_threads(),
    }
