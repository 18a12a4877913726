"""The ``peers`` row: this project's neuron seam against the peers that read and edit
the same neurons, TransformerLens, nnsight and Captum (the optional extra ``peers``:
``pip install -e '.[peers]'``), on a GPT-2-small-shaped model with random weights (12
layers, hidden 768, 3,072 neurons a layer, 50,257 vocabulary ids). Each ratio is this
project's time over a peer's, the two timed in turns after a warm-up on the same inputs,
and each pair is first checked to give the same numbers (tests/test_peers.py asserts
the same on a tiny model, through the peer paths of this module):

- **capture** of every layer's FFN activations to memory (the input of each ``c_proj``):
  :func:`skillneurons.neurons.hooks.capture_activations` with ``stop`` (the dump's
  capture), against TransformerLens's ``run_with_cache`` filtered to every
  ``blocks.{l}.mlp.hook_post`` on a ``HookedTransformer`` holding the same weights, and
  against an nnsight trace saving every ``mlp.c_proj`` input. Every path stops once it
  has the last layer's activations: TransformerLens with ``stop_at_layer`` = the layer
  count (the last block's output projection runs, the unembedding does not), nnsight by
  stopping its trace; no path pays for autograd (inference mode, frozen weights);
- **relevance** of every layer's neurons on one batch (paper B, Eqs. 2-3, the default
  ``sample_abs``): :func:`skillneurons.paper_b.relevance.relevance` against Captum's
  ``LayerGradientXActivation`` of each sample's loss at the input of every ``c_proj``
  (one attribution over all layers), reduced to the same ``[layers, neurons]``;
- **a deactivation sweep of 20 conditions** (4 random orders x 5 rates, the chosen
  neurons zeroed, kind ``zero``): :func:`skillneurons.neurons.perturbation.sweep.sweep_orders`
  (its conditions batched into one pass) against 20 nnsight traces, each zeroing one
  condition's neurons; also reported, not held to a target: the project one pass per
  condition (:func:`~skillneurons.neurons.perturbation.sweep.perturbed_predictions`),
  which tells how much of the gap is batching and how much each path's own overhead.

nnsight wraps its own copy of the model: wrapping a module replaces every submodule's
``forward`` for good (a controller that is inert outside a trace but still a Python
call per module), which would slow this project's paths on a shared model; and it is
imported without its process-wide patches (:func:`import_peer`).

Where the peers stand, on an idle 2-core AMD EPYC (torch 2.13.0, transformer-lens
3.9.0, nnsight 0.8.1, captum 0.9.0), native AVX-512 kernels / ATEN_CPU_CAPABILITY=avx2:

- capture: 0.956 [0.919, 0.996] / 0.911 [0.839, 0.989] of TransformerLens. Its
  ``HookedTransformer`` runs its own implementation: torch's profiler finds the same
  matrix products but its LayerNorm written as separate elementwise ops where the HF
  model calls the fused ``layer_norm``, more copies (rearranged weights and
  activations), and an explicit attention pattern where the HF model calls SDPA; idle,
  that costs it 5-9%, on cores shared with other jobs 2.5 times (0.40 and 0.41 there).
  nnsight: 1.053 [0.955, 1.161] / 0.999 [0.883, 1.130], the noise of the machine: both
  run the same HF forward, stopped at the same place, each with a few milliseconds of
  its own on a forward of 0.6 s;
- relevance: 0.963 [0.932, 0.994] / 0.986 [0.947, 1.027] of Captum's: both one forward
  and one backward to the same activations; Captum also clones every layer's input;
- sweep: 0.973 [0.832, 1.137] / 1.072 [1.051, 1.095] of 20 nnsight interventions, the
  second missing the target: on this CPU one pass of the 20 conditions' 160 rows is no
  faster than 20 passes of 8 (the ``sweep_batching`` row finds the same), and one pass
  per condition (the line not held to a target) costs 0.918 / 0.982 of nnsight's: per
  forward neither has an overhead that matters. On cores shared with other jobs the
  batched pass was 0.28-0.34 of nnsight's, whose 20 passes each wait on the cores.

At a tiny size (2 layers of hidden 64, milliseconds a call) Captum's relevance came out
faster (15.3 against 18.3 ms over 40 rounds), but there every op costs microseconds and
the waits for threads on the shared cores dominated (about 4 ms a layer norm in torch's
profiler, on both paths): a measurement of the machine, not of the paths.

A peer that is not installed skips its ratios with a printed line; with none the row
reports only that.
"""

from __future__ import annotations

import copy
import importlib
import importlib.metadata
import importlib.util
import os
import platform
import statistics
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import torch
import transformers
from transformers import GPT2Config, GPT2LMHeadModel

from benchmarks.common import MINILM, Ratio, Row
from skillneurons.infra.timing import interleaved_times
from skillneurons.models.decoding import sample_losses
from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.loading import LoadedModel, load_model
from skillneurons.models.sites import ffn_sites
from skillneurons.neurons.hooks import capture_activations
from skillneurons.neurons.perturbation.noise import PerturbationSettings
from skillneurons.neurons.perturbation.orders import (
    NamedOrder,
    perturbed_count,
    uniform_random_orders,
)
from skillneurons.neurons.perturbation.sweep import perturbed_predictions, sweep_orders
from skillneurons.neurons.ranking import split_flat
from skillneurons.paper_b.classifiers import task_classifier
from skillneurons.paper_b.evaluation import deactivated
from skillneurons.paper_b.relevance import relevance

#: This project / the peer, every ratio.
TARGET = 1.0
INSTALL = "pip install -e '.[peers]'"
#: Import name -> distribution name of each peer.
PEERS = {"transformer_lens": "transformer-lens", "nnsight": "nnsight", "captum": "captum"}
#: nnsight's settings here (:func:`import_peer`).
NNSIGHT_CONFIG = Path(__file__).with_name("nnsight.yaml")
RATES = (0.01, 0.05, 0.1, 0.2, 0.5)
ORDERS = 4
#: At most this many timed rounds of the sweep (each round is 60 forward passes of the
#: three paths; its ratio lies far from the target).
SWEEP_REPEATS = 3
LABEL_WORDS = ("Negative", "Positive")


def installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def versions() -> str:
    """The installed peers and their versions, as one line."""
    found = [
        f"{dist} {importlib.metadata.version(dist)}"
        for name, dist in PEERS.items()
        if installed(name)
    ]
    return ", ".join(found) or "none"


# --------------------------------------------------------------------------- the peers


def import_peer(name: str):
    """The peer's module (ImportError when it is not installed), imported without the
    process-wide changes that would outlive this row (or a test) and reach code that
    never asked for them: TransformerLens sets transformers' log level to errors only
    (put back here); nnsight's config ``PYMOUNT`` would mount ``.save`` on every object
    of the process (off, through ``NNSIGHT_CONFIG`` = benchmarks/nnsight.yaml unless it
    is set: this module calls ``nnsight.save``), and its patch of
    ``torch.Tensor.backward`` (a look for a ``with`` block around every backward call,
    for its backward traces, which this module does not use) is undone at once."""
    if name in sys.modules:
        return sys.modules[name]
    if name.split(".")[0] == "nnsight":
        os.environ.setdefault("NNSIGHT_CONFIG", str(NNSIGHT_CONFIG))
    backward, verbosity = torch.Tensor.backward, transformers.logging.get_verbosity()
    try:
        return importlib.import_module(name)
    finally:
        torch.Tensor.backward = backward
        transformers.logging.set_verbosity(verbosity)


def hooked_transformer(model: GPT2LMHeadModel):
    """TransformerLens's ``HookedTransformer`` with ``model``'s weights (a transformers
    GPT-2), converted by TransformerLens's own GPT-2 conversion and loaded unprocessed:
    no LayerNorm folding, no centring of the writing weights or the unembedding, no
    folded value biases, so every hook sees the values the HF model computes. Frozen, in
    eval mode. TransformerLens 4 removed ``HookedTransformer`` (its ``TransformerBridge``
    wraps a model by hub name instead): the extra pins 3.9.0, the last release with it."""
    transformer_lens = import_peer("transformer_lens")
    from transformer_lens.pretrained.weight_conversions import convert_gpt2_weights

    c = model.config
    cfg = transformer_lens.HookedTransformerConfig(
        n_layers=c.n_layer,
        d_model=c.n_embd,
        n_heads=c.n_head,
        d_head=c.n_embd // c.n_head,
        d_mlp=c.n_inner or 4 * c.n_embd,
        d_vocab=c.vocab_size,
        n_ctx=c.n_positions,
        act_fn=c.activation_function,
        normalization_type="LN",
        eps=c.layer_norm_epsilon,
        original_architecture="GPT2LMHeadModel",
        device=str(model.device),
    )
    with warnings.catch_warnings():  # 3.x's notice that 4.0 drops HookedTransformer
        warnings.simplefilter("ignore", DeprecationWarning)
        hooked = transformer_lens.HookedTransformer(cfg)
    hooked.load_and_process_state_dict(
        convert_gpt2_weights(model, cfg),
        fold_ln=False,
        center_writing_weights=False,
        center_unembed=False,
        fold_value_biases=False,
    )
    hooked.requires_grad_(False)
    return hooked.eval()


def lens_capture(hooked, tokens: torch.Tensor, stop: bool = True) -> list[torch.Tensor]:
    """Every layer's ``blocks.{l}.mlp.hook_post`` ``[batch, positions, neurons]`` from one
    ``run_with_cache`` (``stop``: no unembedding)."""
    layers = hooked.cfg.n_layers
    names = {f"blocks.{layer}.mlp.hook_post" for layer in range(layers)}
    with torch.inference_mode():
        _, cache = hooked.run_with_cache(
            tokens,
            names_filter=lambda name: name in names,
            stop_at_layer=layers if stop else None,
        )
    return [cache[f"blocks.{layer}.mlp.hook_post"] for layer in range(layers)]


def nnsight_capture(wrapped, tokens: torch.Tensor, stop: bool = True) -> list[torch.Tensor]:
    """Every layer's input of ``mlp.c_proj`` saved by one nnsight trace of ``wrapped``
    (``nnsight.NNsight`` of a transformers GPT-2); ``stop``: the trace ends once the
    last one is saved."""
    nnsight = import_peer("nnsight")
    with torch.inference_mode(), wrapped.trace(tokens) as tracer:
        saved = nnsight.save([block.mlp.c_proj.input for block in wrapped.transformer.h])
        if stop:
            tracer.stop()
    return saved


def gpt2_blocks(envoy):
    """The envoy of the blocks of an nnsight-wrapped transformers GPT-2."""
    return envoy.transformer.h


def classifier_blocks(envoy):
    """The envoy of the blocks of an nnsight-wrapped classifier on a GPT-2 (paper B's
    :func:`skillneurons.paper_b.classifiers.task_classifier`: the model is its
    ``backbone``)."""
    return envoy.backbone.transformer.h


def nnsight_zeroed(
    wrapped, blocks: Callable, inputs: Mapping[str, torch.Tensor], neurons: Mapping
) -> torch.Tensor:
    """The output of ``wrapped`` (an ``nnsight.NNsight``) on ``inputs`` with ``neurons``
    (``{layer: indices}``) set to 0 at every position by an intervention on the input of
    each layer's ``mlp.c_proj``; ``blocks(wrapped)`` is the envoy of the model's list of
    GPT-2 blocks."""
    nnsight = import_peer("nnsight")
    with torch.inference_mode(), wrapped.trace(**inputs):
        layers = blocks(wrapped)
        for layer, chosen in neurons.items():
            index = torch.as_tensor(np.asarray(chosen), dtype=torch.long)
            layers[layer].mlp.c_proj.input[:, :, index] = 0
        output = nnsight.save(wrapped.output)
    return output


def captum_relevance(
    classifier: torch.nn.Module, split: EncodedSplit, definition: str = "sample_abs"
) -> np.ndarray:
    """Paper B's relevance of every neuron, float64 ``[layers, neurons]``, from Captum on
    one batch of all of ``split``'s rows.

    ``LayerGradientXActivation`` of each sample's loss (:func:`sample_losses` of the
    classifier's label logits, the loss :func:`relevance` differentiates) at the input
    of every layer's output projection (``attribute_to_layer_input=True``) gives
    ``g_t * a_t`` per sample, position and neuron: Captum differentiates the sum of the
    per-sample losses, and a frozen model in eval mode couples no samples, so ``g`` is
    each sample's own gradient. Eqs. 2-3 reduce it (in float64) by ``definition``:

    - ``sample_abs``: ``|Σ_t g_t a_t|`` per sample, then the mean over samples;
    - ``token_abs``: ``Σ_t |g_t a_t|`` per sample, then the mean over samples;
    - ``dataset_abs``: ``|Σ_samples Σ_t g_t a_t|`` / samples.

    Padding positions add 0: their activations reach no loss (masked out of attention),
    so their gradient is 0.
    """
    LayerGradientXActivation = import_peer("captum.attr").LayerGradientXActivation

    count = len(split)
    batch = split.batch(range(count), classifier.pad_id, next(classifier.parameters()).device)

    def sample_loss(input_ids, attention_mask, labels):
        return sample_losses(classifier(input_ids, attention_mask), labels, count)

    layers = [site.output_projection for site in ffn_sites(classifier)]
    products = LayerGradientXActivation(sample_loss, layers).attribute(
        batch["input_ids"],
        additional_forward_args=(batch["attention_mask"], batch["labels"]),
        attribute_to_layer_input=True,
    )
    reduced = []
    for product in products:
        product = (product[0] if isinstance(product, tuple) else product).detach().double()
        if definition == "sample_abs":
            reduced.append(product.sum(dim=1).abs().sum(dim=0))
        elif definition == "token_abs":
            reduced.append(product.abs().sum(dim=(0, 1)))
        else:
            reduced.append(product.sum(dim=(0, 1)).abs())
    return (torch.stack(reduced) / count).cpu().numpy()


# --------------------------------------------------------------------------- the row


def gpt2(tiny: bool = False) -> LoadedModel:
    """A GPT-2 of GPT-2 small's shape with random weights (``tiny``: 2 layers of hidden
    64, a check of the code path), frozen, with MiniLM's tokenizer (no download; its ids,
    below 30,522, are GPT-2 ids too)."""
    tokenizer = load_model(MINILM).tokenizer
    config = GPT2Config(n_layer=2, n_embd=64, n_head=4) if tiny else GPT2Config()
    torch.manual_seed(0)
    model = GPT2LMHeadModel(config).eval()
    model.requires_grad_(False)
    name = "random GPT-2, 2 layers of hidden 64 (tiny)" if tiny else "random GPT-2 small shape"
    return LoadedModel(model, tokenizer, "causal_lm", name)


def random_split(samples: int, lengths: Sequence[int], seed: int = 0) -> EncodedSplit:
    """``samples`` rows of random token ids, their lengths cycling through ``lengths``
    (sorted, shortest first: the order the project batches rows in), labels
    alternating."""
    generator = torch.Generator().manual_seed(seed)
    sizes = sorted(lengths[i % len(lengths)] for i in range(samples))
    ids = [torch.randint(1000, 30000, (size,), generator=generator).tolist() for size in sizes]
    return EncodedSplit(ids, None, torch.tensor([i % 2 for i in range(samples)]))


def agree(name: str, ours, theirs, rtol: float = 1e-4) -> None:
    """Refuse to time two paths that do not compute the same numbers."""
    for mine, other in zip(ours, theirs, strict=True):
        mine, other = torch.as_tensor(mine), torch.as_tensor(other)
        scale = float(mine.abs().max())
        if not torch.allclose(mine.double(), other.double(), rtol=rtol, atol=rtol * scale):
            raise AssertionError(f"peers row: {name} differ from this project's numbers")


def timed(
    runs: Mapping[str, Callable[[], object]], repeats: int, warmup: int = 2
) -> dict[str, dict]:
    """Per run, the median wall-clock and process CPU seconds of ``repeats`` calls taken
    in turns after ``warmup`` rounds (:func:`interleaved_times`), and the wall-clock
    seconds of each round (``wall``). On a machine that
    other jobs share, CPU time (the process's, all its threads) is less sensitive to
    them than the wall clock, though not free of them (caches, memory bandwidth)."""
    times = interleaved_times(runs, repeats, warmup)
    return {
        name: {
            "wall_s": statistics.median(clock["wall"]),
            "cpu_s": statistics.median(clock["cpu"]),
            "wall": clock["wall"],
        }
        for name, clock in times.items()
    }


class Part:
    """The lines, ratios and numbers the row collects."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.ratios: list[Ratio] = []
        self.numbers: dict[str, float] = {}

    def skip(self, what: str, peer: str) -> None:
        self.lines.append(f"  {what}: skipped, {peer} is not installed ({INSTALL})")

    def add(self, what: str, times: Mapping[str, Mapping], ours: str, peer: str):
        """The ratio of ``ours`` to ``peer`` in ``times`` (:func:`timed`), held to the
        target on wall-clock time; the CPU-time ratio is printed beside it."""
        mine, other = times[ours], times[peer]
        cpu = mine["cpu_s"] / other["cpu_s"]
        self.lines.append(
            f"  {what}: this project {1000 * mine['wall_s']:8.1f} ms, {peer} "
            f"{1000 * other['wall_s']:8.1f} ms (CPU time: {cpu:.3f} of {peer}'s)"
        )
        name = f"{what}: this project / {peer}"
        self.ratios.append(Ratio.paired(name, mine["wall"], other["wall"], TARGET))
        self.numbers[f"{what}: {peer} s"] = other["wall_s"]
        self.numbers[f"{what}: this project s"] = mine["wall_s"]
        self.numbers[f"{what}: CPU-time ratio to {peer}"] = cpu


def capture(part: Part, loaded: LoadedModel, repeats: int, batch: int, length: int) -> None:
    model = loaded.model
    tokens = torch.randint(
        1000, 30000, (batch, length), generator=torch.Generator().manual_seed(0)
    )
    what = f"capture of {model.config.n_layer} layers, {batch} x {length} tokens"

    def ours() -> list[torch.Tensor]:
        with torch.inference_mode(), capture_activations(model, stop=True) as seam:
            model(input_ids=tokens)
        return [seam.activations[layer] for layer in seam.layers]

    runs: dict[str, Callable[[], object]] = {"this project": ours}
    reference = ours()
    if installed("transformer_lens"):
        hooked = hooked_transformer(model)
        agree("TransformerLens's hook_post", reference, lens_capture(hooked, tokens))
        runs["TransformerLens"] = lambda: lens_capture(hooked, tokens)
    else:
        part.skip(what, "TransformerLens")
    if installed("nnsight"):
        wrapped = import_peer("nnsight").NNsight(copy.deepcopy(model))  # see the module docstring
        agree("nnsight's c_proj inputs", reference, nnsight_capture(wrapped, tokens))
        runs["nnsight"] = lambda: nnsight_capture(wrapped, tokens)
    else:
        part.skip(what, "nnsight")
    if len(runs) == 1:
        return
    times = timed(runs, repeats)
    for peer in runs:
        if peer != "this project":
            part.add(what, times, "this project", peer)


def attribution(part: Part, loaded: LoadedModel, repeats: int, samples: int, length: int):
    what = f"relevance of every neuron, {samples} samples of {length // 2}-{length} tokens"
    if not installed("captum"):
        part.skip(what, "Captum")
        return
    classifier = task_classifier(loaded, LABEL_WORDS).eval()  # no dropout on any path
    split = random_split(samples, range(length // 2, length + 1))
    agree(
        "Captum's relevance",
        [relevance(classifier, split, samples)],
        [captum_relevance(classifier, split)],
    )
    runs = {
        "this project": lambda: relevance(classifier, split, samples),
        "Captum": lambda: captum_relevance(classifier, split),
    }
    part.add(what, timed(runs, repeats), "this project", "Captum")


def check_sweep(classifier, inputs, neurons, right: np.ndarray, wrapped, labels) -> None:
    """Refuse to time the sweep unless every condition's nnsight logits are this
    project's zeroing's (:func:`skillneurons.paper_b.evaluation.deactivated`), and the
    batched sweep's right and wrong answers (``right``, ``[conditions, samples]``) are
    theirs wherever the two label logits are not within rounding of a tie (a batched
    pass's larger products round differently)."""
    for chosen, row in zip(neurons, right, strict=True):
        theirs = nnsight_zeroed(wrapped, classifier_blocks, inputs, chosen)
        with torch.inference_mode(), deactivated(classifier, chosen):
            ours = classifier(**inputs)
        agree("nnsight's zeroed logits", [ours], [theirs])
        clear = (theirs[:, 0] - theirs[:, 1]).abs() > 1e-4 * theirs.abs().max()
        if not np.array_equal(row[clear.numpy()], (theirs.argmax(-1) == labels)[clear].numpy()):
            raise AssertionError("peers row: the sweep's answers differ from nnsight's")


def deactivation_sweep(part: Part, loaded: LoadedModel, repeats: int, samples: int, length: int):
    conditions = ORDERS * len(RATES)
    what = (
        f"sweep of {conditions} zeroed conditions, {samples} samples of "
        f"{length // 2}-{length} tokens"
    )
    if not installed("nnsight"):
        part.skip(what, "nnsight")
        return
    nnsight = import_peer("nnsight")
    classifier = task_classifier(loaded, LABEL_WORDS).eval()  # no dropout on any path
    split = random_split(samples, range(length // 2, length + 1), seed=1)
    widths = [site.width for site in ffn_sites(classifier)]
    total = sum(widths)
    named = [
        NamedOrder("random", "random", order, repeat)
        for repeat, order in enumerate(uniform_random_orders(total, ORDERS, seed=0))
    ]
    neurons = [
        split_flat(order.order[: perturbed_count(rate, total)], widths)
        for order in named
        for rate in RATES
    ]
    settings, pad = PerturbationSettings(kind="zero"), classifier.pad_id
    inputs = split.batch(range(samples), pad)
    inputs.pop("labels")
    wrapped = nnsight.NNsight(copy.deepcopy(classifier))  # see the module docstring

    def ours() -> np.ndarray:
        table = sweep_orders(classifier, split, named, RATES, settings, pad, samples)
        return np.stack(table["correct"].to_list())

    def one_pass_each() -> np.ndarray:
        predicted = [
            perturbed_predictions(classifier, split, chosen, settings, pad, samples)
            for chosen in neurons
        ]
        return (torch.stack(predicted) == split.labels).numpy()

    def peer() -> np.ndarray:
        predicted = [
            nnsight_zeroed(wrapped, classifier_blocks, inputs, chosen).argmax(dim=-1)
            for chosen in neurons
        ]
        return (torch.stack(predicted) == split.labels).numpy()

    check_sweep(classifier, inputs, neurons, ours(), wrapped, split.labels)
    runs = {"this project": ours, "nnsight": peer, "one pass each": one_pass_each}
    times = timed(runs, min(repeats, SWEEP_REPEATS), warmup=1)
    part.add(what, times, "this project", "nnsight")
    single = times["one pass each"]["wall_s"]
    part.lines.append(
        f"    (not held to a target) this project one pass per condition {1000 * single:8.1f} ms:"
        f" {single / times['nnsight']['wall_s']:.3f} of nnsight's"
    )
    part.numbers[f"{what}: one pass each s"] = single


def processor() -> str:
    """The CPU's model name (Linux), or the machine type."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def run(repeats: int, *, tiny: bool = False) -> Row:
    """The row (``tiny``: a 2-layer model and a few samples, a check of the code path)."""
    header = f"peers: {versions()}; {processor()}, {torch.get_num_threads()} threads"
    missing = [dist for name, dist in PEERS.items() if not installed(name)]
    if len(missing) == len(PEERS):
        return Row("peers", [f"peers: skipped, none is installed ({INSTALL})"], [])
    loaded = gpt2(tiny)
    part = Part()
    part.lines.append(f"{header}; {loaded.source}")
    attribution(part, loaded, repeats, *((4, 8) if tiny else (8, 48)))
    capture(part, loaded, repeats, *((2, 8) if tiny else (8, 64)))
    deactivation_sweep(part, loaded, repeats, *((4, 8) if tiny else (8, 32)))
    return Row("peers", part.lines, part.ratios, part.numbers)
