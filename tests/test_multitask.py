"""Multi-task training (paper B, §4.1): the task mixture draws one task per batch, in
turn, deterministically; the multi-task classifier scores each batch with its task's
label words; full fine-tuning on the mixture trains the shared backbone."""

import torch

from skillneurons.models.encoding import encode_split
from skillneurons.models.mixture import MultiTaskClassifier, TaskMixture
from skillneurons.models.training import TrainingSettings, train
from skillneurons.paper_b.classifiers import task_classifiers, unfreeze_backbone
from tiny_models import tiny, word_tokenizer


def split_of(tokenizer, texts, labels):
    return encode_split(tokenizer, texts, [None] * len(texts), labels, 16)


def two_tasks():
    tokenizer = word_tokenizer()
    sentiment = split_of(
        tokenizer, ["good", "bad", "very good", "not good", "very bad"], [1, 0, 1, 0, 0]
    )
    negation = split_of(tokenizer, ["not bad", "bad", "not good", "good"], [1, 0, 1, 0])
    return tokenizer, {"sentiment": sentiment, "negation": negation}


def first_batches(mixture, seed, count=8, batch_size=2):
    stream = mixture.batches(batch_size, torch.Generator().manual_seed(seed))
    return [next(stream) for _ in range(count)]


def test_mixture_batches_take_the_tasks_in_turn_each_batch_one_task():
    _, splits = two_tasks()
    mixture = TaskMixture(splits)
    assert len(mixture) == 9 and mixture.offsets == [0, 5, 9]
    batches = first_batches(mixture, seed=0)
    tasks = [mixture.locate(rows)[0] for rows in batches]
    assert tasks == [0, 1] * 4
    # within a task, one epoch is a permutation of its rows before any row repeats
    sentiment_rows = [row for rows in batches[0:6:2] for row in mixture.locate(rows)[1]]
    assert sorted(sentiment_rows[:5]) == [0, 1, 2, 3, 4]
    negation_rows = [row for rows in batches[1:5:2] for row in mixture.locate(rows)[1]]
    assert sorted(negation_rows) == [0, 1, 2, 3]
    # deterministic for a seed, different for another
    assert first_batches(mixture, seed=0) == batches
    assert first_batches(mixture, seed=1) != batches
    batch = mixture.batch(batches[1], pad_id=0)
    assert int(batch["task"]) == 1 and batch["input_ids"].shape[0] == 2


def test_a_batch_mixing_tasks_is_refused():
    _, splits = two_tasks()
    mixture = TaskMixture(splits)
    try:
        mixture.locate([4, 5])
    except ValueError as error:
        assert "one task" in str(error)
    else:
        raise AssertionError("a batch with rows of two tasks was accepted")


def test_multitask_classifier_scores_each_batch_with_its_task_words():
    tokenizer, splits = two_tasks()
    loaded = tiny("masked_lm", tokenizer)
    heads = task_classifiers(
        loaded, {"sentiment": ["Negative", "Positive"], "negation": ["bad", "good"]}
    )
    model = MultiTaskClassifier(list(heads.values()))
    mixture = TaskMixture(splits)
    for task, rows in ((0, [0, 1]), (1, [5, 6])):
        batch = mixture.batch(rows, model.pad_id)
        expected = list(heads.values())[task](batch["input_ids"], batch["attention_mask"])
        torch.testing.assert_close(model(**batch), expected)
    # the same inputs routed to the other task are scored on the other label words
    batch = mixture.batch([0, 1], model.pad_id)
    other = model(**{**batch, "task": torch.tensor(1)})
    assert not torch.allclose(model(**batch), other)


def test_full_fine_tuning_on_the_mixture_trains_the_backbone_not_the_embeddings():
    tokenizer, splits = two_tasks()
    loaded = tiny("masked_lm", tokenizer)
    heads = task_classifiers(
        loaded, {"sentiment": ["Negative", "Positive"], "negation": ["bad", "good"]}
    )
    model = MultiTaskClassifier(list(heads.values()))
    before = {name: p.detach().clone() for name, p in loaded.model.named_parameters()}
    trained = unfreeze_backbone(loaded, freeze_embeddings=True)
    embeddings = loaded.model.get_input_embeddings().weight
    assert trained == sum(p.numel() for p in loaded.model.parameters()) - embeddings.numel()
    settings = TrainingSettings(learning_rate=1e-2, batch_size=2, max_steps=4, eval_every=4,
                                patience=1, seed=0)  # fmt: skip
    train(model, TaskMixture(splits), None, settings, model.pad_id, progress=False,
          evaluate=lambda _: 0.5)  # fmt: skip
    after = dict(loaded.model.named_parameters())
    name = next(n for n, p in after.items() if p is embeddings)
    assert torch.equal(after[name], before[name])
    changed = [n for n in before if n != name and not torch.equal(after[n], before[n])]
    assert any("intermediate" in n for n in changed) and any("attention" in n for n in changed)
