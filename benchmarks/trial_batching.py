"""The ``trial_batching`` row: ``k = 3`` prompt-tuning trials of one task trained
together, one forward pass of ``3 x B`` rows per step
(:func:`skillneurons.models.trial_training.train_trials`), against the same three
trials trained one after the other (:func:`skillneurons.models.training.train`), on
MiniLM-L6 with a dev evaluation at the last step (issue 37, item 1)."""

from __future__ import annotations

from benchmarks.common import MINILM, Ratio, Row, median_times
from skillneurons.models.encoding import encode_split
from skillneurons.models.loading import load_model
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.stacked_prompts import StackedPrompts
from skillneurons.models.training import TrainingSettings, train
from skillneurons.models.trial_training import train_trials

#: Batched trials / sequential trials.
TARGET = 0.8


def run(repeats: int, trials: int = 3, steps: int = 4, prompt_length: int = 8) -> Row:
    loaded = load_model(MINILM)
    texts = [f"the film was {'not ' * (i % 2)}good and the acting was fine {i}" for i in range(64)]
    split = encode_split(loaded.tokenizer, texts, [None] * 64, [i % 2 for i in range(64)], 64)
    pad = loaded.tokenizer.pad_token_id
    seeds = list(range(trials))
    settings = [
        TrainingSettings(
            batch_size=16, eval_batch_size=64, max_steps=steps, eval_every=steps, seed=seed
        )
        for seed in seeds
    ]

    def classifiers() -> list[PromptedClassifier]:
        words = ["Negative", "Positive"]
        return [PromptedClassifier(loaded, words, prompt_length, seed=seed) for seed in seeds]

    def sequential() -> None:
        for classifier, trial in zip(classifiers(), settings, strict=True):
            train(classifier, split, split, trial, pad, progress=False)

    def batched() -> None:
        train_trials(StackedPrompts(classifiers()), split, split, settings, pad)

    times = median_times({"sequential": sequential, "batched": batched}, repeats)
    one_by_one, together = times["sequential"]["median_s"], times["batched"]["median_s"]
    return Row(
        "trial_batching",
        [
            f"trial_batching: MiniLM-L6, {trials} prompt-tuning trials of {steps} steps "
            "(batch 16) and one dev evaluation of 64 samples each",
            f"  one after the other  {1000 * one_by_one:8.1f} ms",
            f"  together             {1000 * together:8.1f} ms",
        ],
        [Ratio(f"k={trials} trials batched / {trials} sequential", together / one_by_one, TARGET)],
        {"sequential_s": one_by_one, "batched_s": together},
    )
