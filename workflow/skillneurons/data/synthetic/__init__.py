"""Synthetic twins of the seven tasks of paper A: an offline, deterministic task suite.

Paper A (Wang et al., EMNLP 2022; appendix A and Table 5) finds skill neurons on
seven English classification datasets of three types: sentiment (SST-2, IMDB,
TweetEval sentiment), natural language inference (MNLI, QNLI) and topic (AG News
restricted to business/sports, DBpedia restricted to company/athlete). A machine
without network access cannot download them, so the embedded default runs on this
suite: seven generated tasks that mirror the paper tasks one to one, with the same
label sets in the same order and the same task types, so that the pattern of skills
shared between tasks (the diagonal blocks of the task-correlation heatmaps) has a
chance to appear. Every lexicon and template below is written for this project.

Texts are deterministic from ``(task, n_samples, seed, label_noise)``. Each task is
sized for the embedded default (MiniLM-L6, 8 soft prompt tokens, 150 tuning steps on
CPU): most samples carry a clear cue of their class, a minority needs more than one
word to be read right, so a prompt-tuned small encoder learns the task well above its
majority class and stays below 100%:

* **sentiment** -- most samples carry polarity words ("good", "boring"); a minority
  flips them with negation ("not good", "never boring") or puts the label on the
  clause after "but" / the main clause after "although". The three sentiment tasks
  share a core polarity lexicon, each adds its own words and surface form: short
  critic lines (SST-2), longer reviews with plot filler (IMDB), tweets with mentions,
  hashtags and emoticons and a neutral class of announcements, plans and questions
  that share the opinion tweets' things, places and times (TweetEval);
* **inference** -- most pairs carry their class's cue (MNLI: a generalised copy of
  the premise, added information, an incompatible activity or state; QNLI: the
  sentence states the asked relation, or a background fact no question asks about);
  a minority are hard pairs with heavy word overlap: negated or swapped copies,
  premises more general than the hypothesis, sentences that name the asked entity
  but answer about another one;
* **topic** -- class keywords are mixed with words both classes use ("team", "deal",
  "record", "season", "shares", "owner", ...), some samples carry only weak cues,
  and entity names are drawn from the same invented syllables for both classes;
* **no giveaways** -- no (sub)task can be read from the presence of a few words to
  better than 96% (:mod:`skillneurons.data.word_cues`, tested): a small family of
  template words that separates two classes makes hundreds of neurons perfectly
  "predictive" and the ranking measures the template instead of a skill;
* **label noise** -- an exact fraction of labels is flipped to another class,
  capping attainable accuracy below 100%.

Every task draws from ``numpy.random.default_rng([seed, crc32(task name)])``, so two
tasks with one seed differ, and from independent child streams for the label order,
the texts and the label noise, so changing the noise rate flips labels without
changing any text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from skillneurons.data.synthetic.inference import mnli_sample, qnli_sample
from skillneurons.data.synthetic.sampling import Sampler, draw_unique, task_rng, word_count
from skillneurons.data.synthetic.sentiment import imdb_sample, sst2_sample, tweet_sample
from skillneurons.data.synthetic.topic import agnews_sample, dbpedia_sample

# A generator turns a sampler and a clean label into (text_a, text_b).
_SampleGenerator = Callable[[Sampler, int], tuple[str, str | None]]



@dataclass(frozen=True)
class SyntheticTask:
    """A synthetic task and the paper task it mirrors.

    Attributes
    ----------
    name : registry name (``syn_*``).
    twin : the paper-A task it mirrors (``sst2``, ``imdb``, ``tweet``, ``mnli``,
        ``qnli``, ``agnews``, ``dbpedia``).
    type : ``"sentiment"``, ``"inference"`` or ``"topic"``.
    label_names : names of labels ``0 .. k-1``, those of the twin, in its order.
    pair : whether samples are sentence pairs (``text_b`` is set).
    description : one sentence on what the texts look like.
    """

    name: str
    twin: str
    type: str
    label_names: tuple[str, ...]
    pair: bool
    description: str


SYNTHETIC_TASKS: dict[str, SyntheticTask] = {
    task.name: task
    for task in (
        SyntheticTask(
            name="syn_sst2",
            twin="sst2",
            type="sentiment",
            label_names=("negative", "positive"),
            pair=False,
            description="Short lowercase movie-review lines (5-15 words) with negation, "
            "graded adjectives, contrast clauses and polarity words in neutral topics.",
        ),
        SyntheticTask(
            name="syn_imdb",
            twin="imdb",
            type="sentiment",
            label_names=("negative", "positive"),
            pair=False,
            description="Multi-sentence movie reviews (30-80 words) whose opinion is spread "
            "over sentences, mixed with plot-description filler and concessions.",
        ),
        SyntheticTask(
            name="syn_tweet",
            twin="tweet",
            type="sentiment",
            label_names=("negative", "neutral", "positive"),
            pair=False,
            description="Lowercase tweets with @user mentions, hashtags and emoticons; the "
            "neutral class holds announcements, plans and questions about the same things.",
        ),
        SyntheticTask(
            name="syn_mnli",
            twin="mnli",
            type="inference",
            label_names=("entailment", "neutral", "contradiction"),
            pair=True,
            description="Scene premises about people, actions and places with generalised, "
            "contradicting or information-adding hypotheses of high word overlap.",
        ),
        SyntheticTask(
            name="syn_qnli",
            twin="qnli",
            type="inference",
            label_names=("entailment", "not_entailment"),
            pair=True,
            description="Questions about invented towns and landmarks, paired with a sentence "
            "that answers them or shares their words but not the asked fact.",
        ),
        SyntheticTask(
            name="syn_agnews",
            twin="agnews",
            type="topic",
            label_names=("business", "sports"),
            pair=False,
            description="News headlines with a lead sentence about companies and markets or "
            "teams and players, sharing words such as team, deal, record and season.",
        ),
        SyntheticTask(
            name="syn_dbpedia",
            twin="dbpedia",
            type="topic",
            label_names=("company", "athlete"),
            pair=False,
            description="Encyclopedia-style entries about invented companies and athletes, "
            "some mentioning sport (companies) or business (athletes).",
        ),
    )
}


# ----------------------------------------------------------------------- the suite

_GENERATORS: dict[str, _SampleGenerator] = {
    "syn_sst2": sst2_sample,
    "syn_imdb": imdb_sample,
    "syn_tweet": tweet_sample,
    "syn_mnli": mnli_sample,
    "syn_qnli": qnli_sample,
    "syn_agnews": agnews_sample,
    "syn_dbpedia": dbpedia_sample,
}
# Documented length bounds (in words, see word_count); a draw outside is redrawn.
_WORD_RANGES: dict[str, tuple[int, int]] = {"syn_sst2": (5, 15), "syn_imdb": (30, 60)}


def generate_task(name: str, n_samples: int, seed: int, label_noise: float = 0.03) -> pd.DataFrame:
    """Generate ``n_samples`` examples of a synthetic task.

    Parameters
    ----------
    name : a key of :data:`SYNTHETIC_TASKS`.
    n_samples : number of rows; at least the number of classes.
    seed : non-negative seed; combined with a CRC-32 of ``name``, so tasks differ.
    label_noise : fraction in ``[0, 1]`` of labels flipped to another class, chosen
        uniformly; exactly ``round(label_noise * n_samples)`` labels are flipped.

    Returns
    -------
    pandas.DataFrame
        ``n_samples`` rows in random order with columns ``text_a`` (str), ``text_b``
        (object: str for pair tasks, None otherwise) and ``label`` (int64 in
        ``0 .. k-1``, after noise). Clean labels are balanced (class counts differ
        by at most one) and ``(text_a, text_b)`` pairs are unique. Texts do not
        depend on ``label_noise``.

    Raises
    ------
    ValueError
        If the task is unknown, ``n_samples`` is below the number of classes,
        ``seed`` is negative, ``label_noise`` is outside ``[0, 1]``, or the task
        cannot produce ``n_samples`` unique texts.
    """
    if name not in SYNTHETIC_TASKS:
        known = ", ".join(SYNTHETIC_TASKS)
        raise ValueError(f"synthetic task {name!r} is not defined; known tasks: {known}")
    task = SYNTHETIC_TASKS[name]
    n_classes = len(task.label_names)
    if n_samples < n_classes:
        raise ValueError(
            f"synthetic task {name!r}: n_samples={n_samples} is too small; it needs at least "
            f"one sample per class ({n_classes})"
        )
    if seed < 0:
        raise ValueError(f"synthetic task {name!r}: seed must be non-negative, got {seed}")
    if not 0.0 <= label_noise <= 1.0:
        raise ValueError(
            f"synthetic task {name!r}: label_noise must be in [0, 1], got {label_noise}"
        )

    label_rng, text_rng, noise_rng = task_rng(name, seed).spawn(3)
    labels = label_rng.permutation(np.arange(n_samples, dtype=np.int64) % n_classes)

    sampler, generator = Sampler(text_rng), _GENERATORS[name]
    low, high = _WORD_RANGES.get(name, (0, 0))
    clean = labels.tolist()
    pairs = draw_unique(
        name,
        n_samples,
        lambda row: generator(sampler, clean[row]),
        key=lambda pair: pair,
        accept=lambda pair: not high or low <= word_count(pair[0]) <= high,
    )
    texts_a = [text_a for text_a, _ in pairs]
    texts_b = [text_b for _, text_b in pairs]

    n_flipped = int(round(label_noise * n_samples))
    if n_flipped:
        flipped = noise_rng.choice(n_samples, size=n_flipped, replace=False)
        offsets = noise_rng.integers(1, n_classes, size=n_flipped)
        labels[flipped] = (labels[flipped] + offsets) % n_classes

    return pd.DataFrame(
        {
            "text_a": pd.Series(texts_a, dtype="str"),
            "text_b": pd.Series(texts_b, dtype=object),
            "label": pd.Series(labels, dtype=np.int64),
        }
    )

