"""The ``trial_batching`` row: ``k = 3`` prompt-tuning trials of one task trained
together, one forward pass of ``3 x B`` rows per step
(:func:`skillneurons.models.trial_training.train_trials`), against the same three
trials trained one after the other (:func:`skillneurons.models.training.train`), on
MiniLM-L6 with dev evaluations half way and at the last step (a lone last-step
evaluation would be skipped by both, :func:`skillneurons.models.training.train`).

:func:`curve` measures the same ratio at every ``k`` of :data:`CURVE` (``python -m
benchmarks --rows trial_batching --curve``): where the ratio stops falling, larger
matrix products stop paying on that machine, and ``prompt_tuning.trials_per_pass``
should stay below it."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from benchmarks.common import Ratio, Row, median_times, minilm, ratio_curve
from skillneurons.models.encoding import EncodedSplit, encode_split
from skillneurons.models.loading import LoadedModel
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.stacked_prompts import StackedPrompts
from skillneurons.models.training import TrainingSettings, train
from skillneurons.models.trial_training import train_trials

#: Batched trials / sequential trials: never slower. On a 2-core AMD EPYC both kernel
#: sets reach about 0.95 (native AVX-512 0.985 [0.877, 1.107], ATEN_CPU_CAPABILITY=avx2
#: 0.950 [0.898, 1.005]): MiniLM's GEMMs are compute-bound on this CPU at these sizes,
#: so larger ones save little; the 0.8 a GPU's occupancy would give is not measured here
#: (benchmarks/gpu.sh prints the curve).
TARGET = 1.0
#: The trials per pass of the ratio curve.
CURVE = (1, 2, 3, 5, 8)


def review_split(loaded: LoadedModel, samples: int) -> EncodedSplit:
    texts = [
        f"the film was {'not ' * (i % 2)}good and the acting was fine {i}" for i in range(samples)
    ]
    labels = [i % 2 for i in range(samples)]
    return encode_split(loaded.tokenizer, texts, [None] * samples, labels, 64)


def trial_times(
    loaded: LoadedModel,
    split: EncodedSplit,
    trials: int,
    steps: int,
    prompt_length: int,
    repeats: int,
) -> tuple[list[float], list[float]]:
    """The seconds of each round of ``trials`` trials of ``steps`` steps one after the
    other, and trained together (in turns)."""
    pad = loaded.tokenizer.pad_token_id
    device = loaded.model.device
    seeds = list(range(trials))
    settings = [
        TrainingSettings(
            batch_size=16,
            eval_batch_size=64,
            max_steps=steps,
            eval_every=max(steps // 2, 1),
            seed=seed,
        )
        for seed in seeds
    ]

    def classifiers() -> list[PromptedClassifier]:
        words = ["Negative", "Positive"]
        return [
            PromptedClassifier(loaded, words, prompt_length, seed=seed).to(device)
            for seed in seeds
        ]

    def sequential() -> None:
        for classifier, trial in zip(classifiers(), settings, strict=True):
            train(classifier, split, split, trial, pad, progress=False)

    def batched() -> None:
        train_trials(StackedPrompts(classifiers()), split, split, settings, pad)

    times = median_times({"sequential": sequential, "batched": batched}, repeats)
    return times["sequential"]["wall"], times["batched"]["wall"]


def run(
    repeats: int,
    trials: int = 3,
    steps: int = 4,
    prompt_length: int = 8,
    *,
    device: str = "cpu",
    tiny: bool = False,
) -> Row:
    loaded = minilm(device, tiny)
    split = review_split(loaded, 16 if tiny else 64)
    steps = 2 if tiny else steps
    sequential, batched = trial_times(loaded, split, trials, steps, prompt_length, repeats)
    one_by_one, together = statistics.median(sequential), statistics.median(batched)
    name = f"k={trials} trials batched / {trials} sequential"
    return Row(
        "trial_batching",
        [
            f"trial_batching: {loaded.source} on {device}, {trials} prompt-tuning trials of "
            f"{steps} steps (batch 16) and two dev evaluations of {len(split)} samples each",
            f"  one after the other  {1000 * one_by_one:8.1f} ms",
            f"  together             {1000 * together:8.1f} ms",
        ],
        [Ratio.paired(name, batched, sequential, TARGET)],
        {"sequential_s": one_by_one, "batched_s": together},
    )


def curve(
    repeats: int, points: Sequence[int] = CURVE, *, device: str = "cpu", tiny: bool = False
) -> Row:
    """The ratio batched / sequential at every ``k`` of ``points``; the target holds
    at ``k = 3`` when it is among them (a report only otherwise)."""
    loaded = minilm(device, tiny)
    split = review_split(loaded, 16 if tiny else 64)
    steps = 2 if tiny else 4
    header = (
        f"trial_batching curve: {loaded.source} on {device}, trials of {steps} steps "
        "(batch 16) and two dev evaluations each, trained together / one after the other"
    )

    def measure(k: int) -> tuple[str, str, tuple[list[float], list[float]]]:
        sequential, batched = trial_times(loaded, split, k, steps, 8, repeats)
        one_by_one, together = statistics.median(sequential), statistics.median(batched)
        line = (
            f"  k={k:3d}: {1000 * one_by_one:8.1f} ms sequential, {1000 * together:8.1f} ms "
            f"together, ratio {together / one_by_one:.3f}"
        )
        return f"k={k}", line, (batched, sequential)

    checked = (3, "k=3 trials batched / 3 sequential", TARGET)
    return ratio_curve("trial_batching", header, points, measure, checked)
