"""Prompt-tuning trials trained together in one pass equal the trials run one by one
(skillneurons.models.trial_training)."""

import pandas as pd
import pytest
import torch

from skillneurons.models.encoding import encode_frame
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.stacked_prompts import StackedPrompts, predict_trials
from skillneurons.models.training import TrainingSettings, predict, result_metrics, train
from skillneurons.models.trial_training import train_trials
from skillneurons.paper_a.prompt_tuning import tune_prompts
from tiny_models import tiny, word_tokenizer

WORDS = ["Negative", "Positive"]
SEEDS = [0, 1, 2]
#: Tolerance of the batched trials against sequential ones: rows padded to the longest
#: of all trials' rows and larger matrix products change float32 rounding only.
ATOL = 1e-5


def noisy_frame(n, seed):
    """A split file's frame: texts of 1 to 3 words (so that batches pad), labels right
    80% of the time."""
    generator = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 2, (n,), generator=generator)
    lengths = torch.randint(0, 3, (n,), generator=generator)
    flips = torch.rand(n, generator=generator) < 0.2
    texts = [
        " ".join(["very"] * int(k) + ["good" if y else "bad"])
        for y, k in zip(labels.tolist(), lengths.tolist(), strict=True)
    ]
    noisy = (labels ^ flips.long()).tolist()
    return pd.DataFrame({"text_a": texts, "text_b": [None] * n, "label": noisy})


def noisy_split(loaded, n, seed):
    return encode_frame(loaded, noisy_frame(n, seed), 8)


def settings(seed):
    return TrainingSettings(
        learning_rate=0.05,
        batch_size=4,
        eval_batch_size=16,
        max_steps=40,
        eval_every=4,
        patience=2,
        seed=seed,
    )


def setup(kind):
    loaded = tiny(kind, word_tokenizer())
    # larger weights than the default init, so that the prompts move the predictions
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for parameter in loaded.model.parameters():
            if parameter.dim() == 2:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.3)
    train_split = noisy_split(loaded, 48, 0)
    dev_split = noisy_split(loaded, 24, 1)
    return loaded, train_split, dev_split


def classifiers(loaded, seeds):
    return [
        PromptedClassifier(loaded, WORDS, prompt_length=3, init_std=1.0, seed=s) for s in seeds
    ]


@pytest.mark.parametrize("kind", ["masked_lm", "causal_lm"])
def test_three_trials_together_equal_three_runs(kind):
    loaded, train_split, dev_split = setup(kind)
    alone = []
    for seed in SEEDS:
        (classifier,) = classifiers(loaded, [seed])
        result = train(classifier, train_split, dev_split, settings(seed), 0, progress=False)
        alone.append((classifier, result))
    stacked = StackedPrompts(classifiers(loaded, SEEDS))
    together = train_trials(stacked, train_split, dev_split, [settings(s) for s in SEEDS], 0)

    # the trials stop at different steps, so per-trial early stopping is exercised
    assert len({result.steps for _, result in alone}) > 1
    assert all(result.converged for _, result in alone)
    for (classifier, one), tuned, batched in zip(
        alone, stacked.classifiers, together, strict=True
    ):
        assert batched.steps == one.steps and batched.best_step == one.best_step
        assert batched.converged == one.converged
        assert batched.best_dev_accuracy == one.best_dev_accuracy
        curve = [(p["step"], p["dev_accuracy"]) for p in batched.dev_curve]
        assert curve == [(p["step"], p["dev_accuracy"]) for p in one.dev_curve]
        losses = torch.tensor([p["train_loss"] for p in batched.dev_curve])
        expected = torch.tensor([p["train_loss"] for p in one.dev_curve])
        torch.testing.assert_close(losses, expected, atol=ATOL, rtol=0)
        torch.testing.assert_close(tuned.prompts, classifier.prompts, atol=ATOL, rtol=0)
    # the best prompts predict the test rows as the trial's own classifier does
    test = noisy_split(loaded, 40, 2)
    predicted = predict_trials(stacked, test, 16, 0, range(len(SEEDS)))
    for row, (classifier, _) in zip(predicted, alone, strict=True):
        assert torch.equal(row, predict(classifier, test, 16, 0))


def test_one_trial_alone_is_the_sequential_run_bit_for_bit():
    loaded, train_split, dev_split = setup("masked_lm")
    (classifier,) = classifiers(loaded, [5])
    one = train(classifier, train_split, dev_split, settings(5), 0, progress=False)
    stacked = StackedPrompts(classifiers(loaded, [5]))
    (batched,) = train_trials(stacked, train_split, dev_split, [settings(5)], 0)
    assert batched.dev_curve == one.dev_curve
    assert torch.equal(stacked.classifiers[0].prompts, classifier.prompts)


def test_a_lone_last_step_evaluation_is_skipped_together_as_one_by_one(monkeypatch):
    loaded, train_split, dev_split = setup("masked_lm")
    once = [
        TrainingSettings(**{**vars(settings(s)), "max_steps": 3, "eval_every": 3}) for s in SEEDS
    ]
    alone = []
    for seed, trial in zip(SEEDS, once, strict=True):
        (classifier,) = classifiers(loaded, [seed])
        alone.append(
            (classifier, train(classifier, train_split, dev_split, trial, 0, progress=False))
        )

    def no_evaluation(*args, **kwargs):
        raise AssertionError("the dev split was scored")

    monkeypatch.setattr("skillneurons.models.trial_training.predict_trials", no_evaluation)
    stacked = StackedPrompts(classifiers(loaded, SEEDS))
    together = train_trials(stacked, train_split, dev_split, once, 0)
    initial = classifiers(loaded, SEEDS)
    for (classifier, one), tuned, batched, start in zip(
        alone, stacked.classifiers, together, initial, strict=True
    ):
        assert (batched.steps, batched.best_step, batched.dev_curve) == (3, 3, [])
        assert (one.steps, one.best_step, one.dev_curve) == (3, 3, [])
        assert batched.best_dev_accuracy != batched.best_dev_accuracy  # NaN: not measured
        assert one.best_dev_accuracy != one.best_dev_accuracy
        # the last prompts (step 3), equal to the run's own
        torch.testing.assert_close(tuned.prompts, classifier.prompts, atol=ATOL, rtol=0)
        assert not torch.allclose(tuned.prompts, start.prompts)  # trained


def test_trials_together_must_share_all_settings_but_the_seed():
    loaded, train_split, dev_split = setup("masked_lm")
    stacked = StackedPrompts(classifiers(loaded, [0, 1]))
    other = TrainingSettings(**{**vars(settings(1)), "learning_rate": 0.01})
    with pytest.raises(ValueError, match="differ only in their seeds"):
        train_trials(stacked, train_split, dev_split, [settings(0), other], 0)


def test_one_seed_of_tune_prompts_writes_what_its_own_run_did_before():
    # The default (one trial per task): prompt and metrics as the sequential run's.
    loaded, train_split, dev_split = setup("masked_lm")
    block = {
        **{k: v for k, v in vars(settings(0)).items() if k != "seed"},
        "prompt_length": 3,
        "init_std": 1.0,
        "max_length": 8,
    }
    frames = {"train": noisy_frame(48, 0), "dev": noisy_frame(24, 1), "test": noisy_frame(40, 2)}
    ((classifier, metrics),) = tune_prompts(
        loaded, frames, label_words=WORDS, settings=block, seeds=[3]
    )
    (own,) = classifiers(loaded, [3])
    result = train(own, train_split, dev_split, settings(3), 0, progress=False)
    expected = result_metrics(own, result, noisy_split(loaded, 40, 2), 16, 0)
    assert {key: metrics[key] for key in expected} == expected
    assert metrics["seed"] == 3 and metrics["label_words"] == WORDS
    assert torch.equal(classifier.prompts, own.prompts)
