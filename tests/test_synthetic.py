"""The synthetic task suite: registry, schema, determinism, balance, noise, difficulty."""

import re

import numpy as np
import pandas as pd
import pytest

from skillneurons.data import synthetic
from skillneurons.data.synthetic import SYNTHETIC_TASKS, SyntheticTask, generate_task, sentiment
from skillneurons.data.synthetic.sampling import word_count

# Label sets of the paper-A twins (appendix A), in the twins' order.
EXPECTED = {
    "syn_sst2": ("sst2", "sentiment", ("negative", "positive"), False),
    "syn_imdb": ("imdb", "sentiment", ("negative", "positive"), False),
    "syn_tweet": ("tweet", "sentiment", ("negative", "neutral", "positive"), False),
    "syn_mnli": ("mnli", "inference", ("entailment", "neutral", "contradiction"), True),
    "syn_qnli": ("qnli", "inference", ("entailment", "not_entailment"), True),
    "syn_agnews": ("agnews", "topic", ("business", "sports"), False),
    "syn_dbpedia": ("dbpedia", "topic", ("company", "athlete"), False),
}
N = 600


@pytest.fixture(scope="module")
def clean_frames() -> dict[str, pd.DataFrame]:
    """Every task, N samples, no label noise."""
    return {name: generate_task(name, N, seed=7, label_noise=0.0) for name in SYNTHETIC_TASKS}


def word_counts(texts: pd.Series) -> np.ndarray:
    return np.array([word_count(text) for text in texts])


# ------------------------------------------------------------------------- registry


def test_registry_mirrors_the_paper_tasks():
    assert list(SYNTHETIC_TASKS) == list(EXPECTED)
    for name, (twin, task_type, label_names, pair) in EXPECTED.items():
        task = SYNTHETIC_TASKS[name]
        assert isinstance(task, SyntheticTask)
        assert (task.name, task.twin, task.type) == (name, twin, task_type)
        assert task.label_names == label_names
        assert task.pair is pair
        assert task.description.endswith(".") and len(task.description) > 20


# --------------------------------------------------------------------------- schema


@pytest.mark.parametrize("name", list(EXPECTED))
def test_schema_columns_dtypes_and_rows(clean_frames, name):
    frame = clean_frames[name]
    n_classes = len(EXPECTED[name][2])
    assert list(frame.columns) == ["text_a", "text_b", "label"]
    assert len(frame) == N
    assert frame.index.equals(pd.RangeIndex(N))
    assert pd.api.types.is_string_dtype(frame["text_a"])
    assert frame["text_b"].dtype == object
    assert frame["label"].dtype == np.int64
    assert frame["label"].between(0, n_classes - 1).all()
    assert all(isinstance(text, str) and text.strip() for text in frame["text_a"])
    if EXPECTED[name][3]:
        assert all(isinstance(text, str) and text.strip() for text in frame["text_b"])
    else:
        assert frame["text_b"].isna().all()
        assert all(text is None for text in frame["text_b"])


@pytest.mark.parametrize("name", list(EXPECTED))
def test_rows_are_unique(clean_frames, name):
    frame = clean_frames[name]
    pairs = list(zip(frame["text_a"], frame["text_b"], strict=True))
    assert len(set(pairs)) == N


def test_lengths_of_sst2_and_imdb(clean_frames):
    sst2 = word_counts(clean_frames["syn_sst2"]["text_a"])
    imdb = word_counts(clean_frames["syn_imdb"]["text_a"])
    assert sst2.min() >= 5 and sst2.max() <= 15
    assert imdb.min() >= 30 and imdb.max() <= 80
    assert imdb.mean() >= 3 * sst2.mean()
    sentences = clean_frames["syn_imdb"]["text_a"].str.count(r"\. ") + 1
    assert sentences.min() >= 3


def test_tweets_look_like_tweets(clean_frames):
    tweets = clean_frames["syn_tweet"]["text_a"]
    assert 0.15 < tweets.str.startswith("@user ").mean() < 0.5
    assert tweets.str.contains("#").mean() > 0.4
    assert (tweets.str.replace(":D", "") == tweets.str.replace(":D", "").str.lower()).all()


# ------------------------------------------------------------------- determinism


@pytest.mark.parametrize("name", list(EXPECTED))
def test_same_arguments_give_the_same_frame(name):
    first = generate_task(name, 200, seed=3, label_noise=0.05)
    second = generate_task(name, 200, seed=3, label_noise=0.05)
    pd.testing.assert_frame_equal(first, second)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_another_seed_gives_other_texts(name):
    first = generate_task(name, 200, seed=3)
    second = generate_task(name, 200, seed=4)
    shared = set(zip(first["text_a"], first["text_b"], strict=True)) & set(
        zip(second["text_a"], second["text_b"], strict=True)
    )
    assert len(shared) < 20  # at most 10% of texts recur by chance


def test_tasks_with_one_seed_differ():
    labels = {
        name: generate_task(name, 300, seed=5, label_noise=0.0)["label"].to_numpy()
        for name in ("syn_sst2", "syn_imdb", "syn_qnli", "syn_agnews", "syn_dbpedia")
    }
    names = list(labels)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            assert (labels[first] != labels[second]).sum() > 50, (first, second)


# -------------------------------------------------------------- balance and noise


@pytest.mark.parametrize("name", list(EXPECTED))
@pytest.mark.parametrize("n_samples", [301, 1000])
def test_clean_labels_are_balanced(name, n_samples):
    frame = generate_task(name, n_samples, seed=11, label_noise=0.0)
    counts = np.bincount(frame["label"], minlength=len(EXPECTED[name][2]))
    assert counts.sum() == n_samples
    assert counts.max() - counts.min() <= 1


def test_labels_are_shuffled(clean_frames):
    labels = clean_frames["syn_sst2"]["label"].to_numpy()
    changes = (labels[1:] != labels[:-1]).sum()
    assert 0.35 * N < changes < 0.65 * N  # about half the neighbours differ


@pytest.mark.parametrize("name", ["syn_sst2", "syn_tweet", "syn_mnli"])
@pytest.mark.parametrize("noise", [0.1, 0.03])
def test_label_noise_flips_an_exact_count(name, noise):
    clean = generate_task(name, 1000, seed=2, label_noise=0.0)
    noisy = generate_task(name, 1000, seed=2, label_noise=noise)
    pd.testing.assert_frame_equal(clean[["text_a", "text_b"]], noisy[["text_a", "text_b"]])
    flipped = clean["label"] != noisy["label"]
    assert flipped.sum() == round(noise * 1000)
    assert noisy["label"].between(0, len(EXPECTED[name][2]) - 1).all()


def test_default_noise_is_three_percent():
    clean = generate_task("syn_qnli", 500, seed=1, label_noise=0.0)
    noisy = generate_task("syn_qnli", 500, seed=1)
    assert (clean["label"] != noisy["label"]).sum() == 15


# --------------------------------------------------------------------------- errors


def test_unknown_task_names_the_known_ones():
    with pytest.raises(ValueError, match="'syn_sst3' is not defined") as error:
        generate_task("syn_sst3", 10, seed=0)
    for name in EXPECTED:
        assert name in str(error.value)


@pytest.mark.parametrize(
    ("name", "n_samples"), [("syn_tweet", 2), ("syn_sst2", 1), ("syn_mnli", 0)]
)
def test_too_few_samples_raise(name, n_samples):
    with pytest.raises(ValueError, match="too small"):
        generate_task(name, n_samples, seed=0)


def test_smallest_size_has_one_sample_per_class():
    frame = generate_task("syn_tweet", 3, seed=0, label_noise=0.0)
    assert sorted(frame["label"]) == [0, 1, 2]


@pytest.mark.parametrize("noise", [-0.1, 1.5])
def test_noise_outside_unit_interval_raises(noise):
    with pytest.raises(ValueError, match="label_noise"):
        generate_task("syn_sst2", 10, seed=0, label_noise=noise)


def test_negative_seed_raises():
    with pytest.raises(ValueError, match="seed"):
        generate_task("syn_sst2", 10, seed=-1)


def test_exhausted_text_space_raises(monkeypatch):
    monkeypatch.setitem(synthetic._GENERATORS, "syn_agnews", lambda s, label: ("same", None))
    with pytest.raises(ValueError, match="cannot produce 4 unique samples"):
        generate_task("syn_agnews", 4, seed=0)


# ------------------------------------------------------------------------ difficulty


def test_sst2_is_not_solved_by_counting_polarity_words():
    """A bag of words that ignores negation and contrast agrees with 55-95% of labels."""
    frame = generate_task("syn_sst2", 3000, seed=0, label_noise=0.0)
    positive = set(sentiment.POSITIVE_CORE + sentiment.POSITIVE_SST2)
    negative = set(sentiment.NEGATIVE_CORE + sentiment.NEGATIVE_SST2)
    agree = 0
    for text, label in zip(frame["text_a"], frame["label"], strict=True):
        words = text.split()
        score = sum(word in positive for word in words) - sum(word in negative for word in words)
        agree += int((score > 0) == (label == 1)) if score else int(label == 1)
    accuracy = agree / len(frame)
    assert 0.55 < accuracy < 0.95, accuracy


def test_sst2_uses_negation_and_contrast(clean_frames):
    texts = clean_frames["syn_sst2"]["text_a"]
    negators = r"\b(?:not|never|hardly|far from|anything but|by no means|rarely)\b"
    # Negation and contrast are a minority of samples (the rest carry a lexical cue).
    assert 0.02 < texts.str.contains(negators).mean() < 0.25
    assert 0.03 < texts.str.contains(r"\b(?:but|although)\b").mean() < 0.4


def overlap(text_a: str, text_b: str) -> float:
    """Fraction of the words of ``text_b`` that also occur in ``text_a``."""
    words_b = set(re.findall(r"[a-z0-9]+", text_b.lower()))
    return len(words_b & set(re.findall(r"[a-z0-9]+", text_a.lower()))) / len(words_b)


def test_mnli_classes_overlap_equally(clean_frames):
    """Hypotheses of every class share most words with their premise."""
    frame = clean_frames["syn_mnli"]
    scores = np.array(
        [overlap(a, b) for a, b in zip(frame["text_a"], frame["text_b"], strict=True)]
    )
    per_class = [scores[frame["label"] == k].mean() for k in range(3)]
    assert min(per_class) > 0.5, per_class
    assert max(per_class) - min(per_class) < 0.1, per_class


def test_qnli_is_not_solved_by_a_word_overlap_threshold(clean_frames):
    frame = clean_frames["syn_qnli"]
    scores = np.array(
        [overlap(a, b) for a, b in zip(frame["text_a"], frame["text_b"], strict=True)]
    )
    entailed = frame["label"].to_numpy() == 0
    best = max(
        max(((scores >= cut) == entailed).mean(), ((scores < cut) == entailed).mean())
        for cut in np.unique(scores)
    )
    # Background-fact sentences share fewer words with the question, so overlap is a
    # real cue (as in QNLI), but the hard minority keeps it well short of solving it.
    assert best < 0.85, best


@pytest.mark.parametrize(
    ("name", "shared_words"),
    [
        ("syn_agnews", ["team", "deal", "record", "season", "shares", "owner"]),
        ("syn_dbpedia", ["team", "founded", "record", "company", "player"]),
    ],
)
def test_topic_classes_share_ambiguous_words(clean_frames, name, shared_words):
    frame = clean_frames[name]
    for word in shared_words:
        rates = [
            frame["text_a"][frame["label"] == k].str.contains(rf"\b{word}\b").mean()
            for k in (0, 1)
        ]
        assert min(rates) > 0.02, (word, rates)


def test_generation_is_fast_enough_for_the_default():
    import time

    start = time.perf_counter()
    for name in EXPECTED:
        generate_task(name, 3000, seed=0)
    assert time.perf_counter() - start < 10  # about 0.5 s on a laptop core
