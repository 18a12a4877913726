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
sized for the embedded default (MiniLM-L6, 8 soft prompt tokens, 100 tuning steps on
CPU): most samples carry a clear cue of their class, a minority needs more than one
word to be read right, so a prompt-tuned small encoder learns the task well above its
majority class and stays below 100%:

* **sentiment** -- most samples carry polarity words ("good", "boring"); a minority
  flips them with negation ("not good", "never boring") or puts the label on the
  clause after "but" / the main clause after "although". The three sentiment tasks
  share a core polarity lexicon, each adds its own words and surface form: short
  critic lines (SST-2), longer reviews with plot filler (IMDB), tweets with mentions,
  hashtags and emoticons and a neutral class of factual tweets (TweetEval);
* **inference** -- most pairs carry their class's cue (MNLI: a generalised copy of
  the premise, added information, an incompatible activity or state; QNLI: the
  sentence states the asked relation, or a background fact no question asks about);
  a minority are hard pairs with heavy word overlap: negated or swapped copies,
  premises more general than the hypothesis, sentences that name the asked entity
  but answer about another one;
* **topic** -- class keywords are mixed with words both classes use ("team", "deal",
  "record", "season", "shares", "owner", ...), some samples carry only weak cues,
  and entity names are drawn from the same invented syllables for both classes;
* **label noise** -- an exact fraction of labels is flipped to another class,
  capping attainable accuracy below 100%.

Every task draws from ``numpy.random.default_rng([seed, crc32(task name)])``, so two
tasks with one seed differ, and from independent child streams for the label order,
the texts and the label noise, so changing the noise rate flips labels without
changing any text.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import chain
from typing import NamedTuple, TypeVar

import numpy as np
import pandas as pd

T = TypeVar("T")

# A generator turns a sampler and a clean label into (text_a, text_b).
_SampleGenerator = Callable[["_Sampler", int], tuple[str, str | None]]

_MAX_ATTEMPTS = 100  # draws per row before giving up on finding a new unique text


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
            "neutral class holds factual, informational tweets.",
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


# --------------------------------------------------------------------------- sampling


class _Sampler:
    """Scalar random draws for filling templates, backed by a numpy Generator.

    Template filling needs many single draws and numpy's scalar calls are slow, so
    uniforms are drawn in blocks and consumed one at a time. Every draw derives from
    the wrapped generator, so a sampler is reproducible from the generator's seed.
    ``Generator.random`` returns multiples of 2**-53 below 1, so ``int(u * n)`` is
    always below ``n``.
    """

    def __init__(self, rng: np.random.Generator, block: int = 8192) -> None:
        blocks = iter(lambda: rng.random(block).tolist(), None)
        self.uniform: Callable[[], float] = partial(next, chain.from_iterable(blocks))

    def chance(self, probability: float) -> bool:
        """True with the given probability."""
        return self.uniform() < probability

    def integer(self, low: int, high: int) -> int:
        """A uniform integer in ``[low, high]``, both ends included."""
        return low + int(self.uniform() * (high - low + 1))

    def choice(self, options: Sequence[T]) -> T:
        """A uniform element of ``options``."""
        return options[int(self.uniform() * len(options))]

    def other(self, options: Sequence[T], excluded: T) -> T:
        """A uniform element of ``options`` different from ``excluded``."""
        return self.choice([option for option in options if option != excluded])

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A uniformly shuffled copy of ``items`` (Fisher-Yates)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = int(self.uniform() * (i + 1))
            out[i], out[j] = out[j], out[i]
        return out


def _task_rng(name: str, seed: int) -> np.random.Generator:
    """The generator of one task: seeded by ``seed`` and a stable hash of the name."""
    return np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])


# --------------------------------------------------------------------- shared helpers

SYLLABLES = (
    "ba", "ren", "mol", "ta", "ri", "vel", "so", "kar", "den", "lo",
    "mir", "as", "ton", "el", "ver", "qui", "nor", "da", "zel", "pa",
    "tho", "gan", "sil", "bre", "mun", "ca", "fen", "dor", "li", "wes",
)  # fmt: skip
FEMALE_NAMES = ("Anna", "Elise", "Ines", "Lena", "Mira", "Clara", "Sofia", "Nora", "Ruth", "Vera")
MALE_NAMES = ("Marco", "Tomas", "Pavel", "Oskar", "Joel", "Ivo", "Emil", "Felix", "Hugo", "Aaron")
FIRST_NAMES = FEMALE_NAMES + MALE_NAMES
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def _invented_name(s: _Sampler, min_syllables: int = 2, max_syllables: int = 3) -> str:
    """A capitalised made-up name such as "Varenmol"."""
    n_syllables = s.integer(min_syllables, max_syllables)
    return "".join(s.choice(SYLLABLES) for _ in range(n_syllables)).capitalize()


def _person(s: _Sampler, first_names: Sequence[str] = FIRST_NAMES) -> str:
    """A made-up full name such as "Clara Tonveri"."""
    return f"{s.choice(first_names)} {_invented_name(s)}"


def _indefinite(phrase: str) -> str:
    """``phrase`` preceded by the indefinite article that fits its first sound."""
    first = phrase.split(maxsplit=1)[0].lower()
    vowel = first[0] in "aeiou" and not first.startswith(("use", "uni", "eu", "one"))
    return f"{'an' if vowel else 'a'} {phrase}"


def _sentence(text: str, end: str = ".") -> str:
    """``text`` with a capital first letter and closing punctuation."""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".?!" else text + end


_WORD = re.compile(r"\S*[^\W_]\S*")


def _word_count(text: str) -> int:
    """Number of whitespace-separated tokens that contain a letter or a digit."""
    return len(_WORD.findall(text))


# ------------------------------------------------------------------------- sentiment

POSITIVE_CORE = (
    "good", "great", "wonderful", "excellent", "delightful", "brilliant", "charming",
    "enjoyable", "superb", "clever", "beautiful", "funny", "fantastic", "impressive",
    "memorable", "engaging", "heartfelt", "fresh", "smart", "solid",
)  # fmt: skip
NEGATIVE_CORE = (
    "bad", "awful", "terrible", "boring", "dull", "weak", "tedious", "clumsy", "bland",
    "lifeless", "annoying", "predictable", "mediocre", "forgettable", "painful", "messy",
    "poor", "disappointing", "flat", "shallow",
)  # fmt: skip
POSITIVE_SST2 = (
    "riveting", "witty", "touching", "stylish", "inventive", "luminous", "poignant",
    "exhilarating",
)  # fmt: skip
NEGATIVE_SST2 = (
    "plodding", "overwrought", "incoherent", "pretentious", "soggy", "listless", "contrived",
    "stale",
)  # fmt: skip
POSITIVE_IMDB = (
    "captivating", "rewarding", "haunting", "powerful", "flawless", "masterful", "compelling",
    "gorgeous",
)  # fmt: skip
NEGATIVE_IMDB = (
    "unwatchable", "laughable", "dreadful", "pointless", "amateurish", "bloated", "atrocious",
    "incompetent",
)  # fmt: skip
POSITIVE_TWEET = ("awesome", "amazing", "lovely", "epic", "adorable", "perfect", "sweet", "cool")
NEGATIVE_TWEET = (
    "lame", "horrible", "gross", "ridiculous", "useless", "awkward", "trash", "pathetic",
)  # fmt: skip

INTENSIFIERS = (
    "very", "really", "truly", "remarkably", "incredibly", "genuinely", "thoroughly", "so",
)  # fmt: skip
DOWNTONERS = ("slightly", "somewhat", "a bit", "mildly", "fairly", "rather")
# Each negator reverses the polarity of the adjective that follows it.
NEGATORS = (
    "not", "not very", "not particularly", "never", "hardly", "far from", "anything but",
    "by no means", "rarely",
)  # fmt: skip


class _PolarWords(NamedTuple):
    """The adjectives of one sentiment task, by polarity."""

    positive: tuple[str, ...]
    negative: tuple[str, ...]

    def of(self, polarity: int) -> tuple[str, ...]:
        return self.positive if polarity > 0 else self.negative


SST2_WORDS = _PolarWords(POSITIVE_CORE + POSITIVE_SST2, NEGATIVE_CORE + NEGATIVE_SST2)
IMDB_WORDS = _PolarWords(POSITIVE_CORE + POSITIVE_IMDB, NEGATIVE_CORE + NEGATIVE_IMDB)
TWEET_WORDS = _PolarWords(POSITIVE_CORE + POSITIVE_TWEET, NEGATIVE_CORE + NEGATIVE_TWEET)


def _graded_adjective(s: _Sampler, polarity: int, words: _PolarWords) -> str:
    """An adjective of ``polarity`` (+1 / -1), sometimes intensified or toned down."""
    adjective = s.choice(words.of(polarity))
    grade = s.uniform()
    if grade < 0.3:
        return f"{s.choice(INTENSIFIERS)} {adjective}"
    if grade < 0.45:
        return f"{s.choice(DOWNTONERS)} {adjective}"
    return adjective


def _two_adjectives(s: _Sampler, polarity: int, words: _PolarWords) -> tuple[str, str]:
    """Two different adjectives of ``polarity``, the first sometimes graded."""
    options = words.of(polarity)
    first = s.choice(options)
    second = s.other(options, first)
    grade = s.uniform()
    if grade < 0.2:
        first = f"{s.choice(INTENSIFIERS)} {first}"
    elif grade < 0.3:
        first = f"{s.choice(DOWNTONERS)} {first}"
    return first, second


def _opinion_clause(
    s: _Sampler,
    subject: str,
    polarity: int,
    words: _PolarWords,
    negation_rate: float,
    copulas: Sequence[str] = ("is", "was", "feels", "seems"),
) -> str:
    """A clause "<subject> <copula> <predicate>" expressing ``polarity`` (+1 / -1).

    With probability ``negation_rate`` the predicate is a negated adjective of the
    opposite polarity ("is never boring" for +1, "was not very good" for -1).
    """
    copula = s.choice(copulas)
    if s.chance(negation_rate):
        copula = copula if copula in ("is", "was") else "is"
        return f"{subject} {copula} {s.choice(NEGATORS)} {s.choice(words.of(-polarity))}"
    return f"{subject} {copula} {_graded_adjective(s, polarity, words)}"


MOVIE_ASPECTS = (
    "the film", "the movie", "it", "the plot", "the acting", "the script", "the dialogue",
    "the ending", "the soundtrack", "the direction", "the cast", "the pacing", "the story",
    "the camera work", "the lead performance", "this picture", "the humor", "the screenplay",
    "the imagery", "the final act",
)  # fmt: skip
FILM_NOUNS = (
    "film", "movie", "comedy", "drama", "thriller", "documentary", "debut", "sequel",
    "romance", "western", "picture", "satire",
)  # fmt: skip
NEUTRAL_TOPICS = (
    "growing up", "two brothers", "a family reunion", "life in a small town",
    "a jazz musician", "first love", "an aging boxer", "a road trip", "a missing painting",
    "a night shift nurse", "a chess tournament", "an island ferry",
)  # fmt: skip
# Film topics that contain polarity words without expressing an opinion.
TOPICS_WITH_NEGATIVE_WORDS = (
    "a terrible war", "a bad marriage", "a boring office job", "a painful divorce",
    "a poor fishing village", "a dull suburban summer", "an awful storm", "a weak king",
)  # fmt: skip
TOPICS_WITH_POSITIVE_WORDS = (
    "a wonderful inheritance", "a brilliant chess player", "a great flood",
    "a beautiful stranger", "a funny little dog", "a fantastic voyage",
    "a charming con artist", "a clever thief",
)  # fmt: skip
SST2_OPENERS = ("honestly ,", "in short ,", "overall ,", "frankly ,", "all in all ,")
SST2_TAILS = ("from start to finish", "in the end", "for most of its running time", "throughout")


def _film_topic(s: _Sampler, polarity: int, distractor_rate: float) -> str:
    """A film topic; with ``distractor_rate`` one worded with the opposite polarity."""
    if s.chance(distractor_rate):
        opposite = TOPICS_WITH_POSITIVE_WORDS if polarity < 0 else TOPICS_WITH_NEGATIVE_WORDS
        return s.choice(opposite)
    return s.choice(NEUTRAL_TOPICS)


# Shares of the hard SST-2 forms; the rest state the label's polarity directly.
SST2_NEGATION_SHARE = 0.06
SST2_CONTRAST_SHARE = 0.06
SST2_DISTRACTOR_SHARE = 0.04


def _sst2_sample(s: _Sampler, label: int) -> tuple[str, None]:
    """One SST-2-like line; label 0 negative, 1 positive.

    Most lines state the label's polarity with (graded) adjectives of that polarity:
    one opinion clause, an attributive phrase, or two agreeing clauses. A minority
    (:data:`SST2_NEGATION_SHARE`, :data:`SST2_CONTRAST_SHARE`,
    :data:`SST2_DISTRACTOR_SHARE`) negates an adjective of the opposite polarity,
    puts the label on the clause after "but" (or the main clause after
    "although"), or wraps the opinion around a topic worded with the opposite
    polarity.
    """
    polarity = 1 if label == 1 else -1
    form = s.uniform()
    hard_negation = SST2_NEGATION_SHARE
    hard_contrast = hard_negation + SST2_CONTRAST_SHARE
    hard_distractor = hard_contrast + SST2_DISTRACTOR_SHARE
    if form < hard_negation:  # "the plot is never boring"
        text = _opinion_clause(s, s.choice(MOVIE_ASPECTS), polarity, SST2_WORDS, 1.0)
    elif form < hard_contrast:  # the label follows the clause after "but" / the main clause
        first_aspect = s.choice(MOVIE_ASPECTS)
        second_aspect = s.other(MOVIE_ASPECTS, first_aspect)
        first = _opinion_clause(s, first_aspect, -polarity, SST2_WORDS, 0.0)
        second = _opinion_clause(s, second_aspect, polarity, SST2_WORDS, 0.0)
        text = f"{first} , but {second}" if s.chance(0.6) else f"although {first} , {second}"
    elif form < hard_distractor:  # an opinion about a topic worded with the other polarity
        topic = _film_topic(s, polarity, 1.0)
        noun = s.choice(FILM_NOUNS)
        text = _opinion_clause(
            s, f"{_indefinite(noun)} about {topic} that", polarity, SST2_WORDS, 0
        )
    elif form < 0.4:  # two agreeing clauses: "the plot is clever and the cast is superb"
        first_aspect = s.choice(MOVIE_ASPECTS)
        second_aspect = s.other(MOVIE_ASPECTS, first_aspect)
        first = _opinion_clause(s, first_aspect, polarity, SST2_WORDS, 0.0)
        second = _opinion_clause(s, second_aspect, polarity, SST2_WORDS, 0.0)
        text = f"{first} and {second}"
    elif form < 0.7:  # an attributive phrase: "a witty and truly charming comedy about ..."
        first, second = _two_adjectives(s, polarity, SST2_WORDS)
        text = _indefinite(f"{first} and {second} {s.choice(FILM_NOUNS)}")
        text = f"{text} about {_film_topic(s, polarity, 0.0)}" if s.chance(0.5) else text
    else:  # a clause with an agreeing afterthought: "the film is superb , truly clever"
        first, second = _two_adjectives(s, polarity, SST2_WORDS)
        copula = s.choice(("is", "was", "feels", "seems"))
        text = f"{s.choice(MOVIE_ASPECTS)} {copula} {first} , {s.choice(INTENSIFIERS)} {second}"
        if s.chance(0.25):
            text = f"{text} {s.choice(SST2_TAILS)}"
    if s.chance(0.12):
        text = f"{s.choice(SST2_OPENERS)} {text}"
    return text, None


REVIEW_ASPECTS = MOVIE_ASPECTS + (
    "the cinematography", "the second half", "the villain", "the score", "the editing",
    "the supporting cast", "the lead actress", "the effects work", "the costume design",
)  # fmt: skip
PLOT_CHARACTERS = (
    "a retired detective", "an estranged sister", "a young teacher", "a small-town mechanic",
    "an ambitious reporter", "a widowed farmer", "a teenage runaway", "a struggling musician",
    "an aging boxer", "a ship's captain", "a nurse on the night shift", "a former soldier",
)  # fmt: skip
PLOT_EVENTS = (
    "moves to a quiet coastal village", "inherits an old hotel", "tries to save the family farm",
    "investigates a series of thefts", "returns home after twenty years",
    "falls for a stranger on a train", "takes a job at a remote lighthouse",
    "searches for a missing brother", "prepares for one last fight",
)  # fmt: skip
# Plot events worded with polarity words, but not opinions about the film.
PLOT_EVENTS_WITH_NEGATIVE_WORDS = (
    "has to survive a terrible winter", "loses everything in a bad investment",
    "grows up in a poor neighbourhood", "escapes an awful marriage",
)  # fmt: skip
PLOT_EVENTS_WITH_POSITIVE_WORDS = (
    "meets a brilliant but lonely scientist", "plans a wonderful surprise party",
    "finds a beautiful old letter", "inherits a fantastic fortune",
)  # fmt: skip
PLOT_SETTINGS = (
    "a snowy mountain village", "a crowded port city", "a fading seaside resort",
    "a remote island", "a suburb in the eighties", "a small town in the fifties",
    "a mining town", "a busy hospital",
)  # fmt: skip
VIEWING_OCCASIONS = (
    "on a rainy sunday", "with my brother", "on a long flight", "at a local festival",
    "last weekend with friends", "after reading the novel", "on late night television",
)  # fmt: skip
POSITIVE_VERDICTS = (
    "i would recommend it to anyone", "it is well worth your time",
    "i will happily watch it again", "easily one of the best films of the year",
    "a real treat from start to finish",
)  # fmt: skip
NEGATIVE_VERDICTS = (
    "save your money", "it is a waste of two hours", "i want my evening back",
    "one of the worst films of the year", "you would be better off staying home",
)  # fmt: skip
# Verdicts worded with a negation: the hard reviews close with these.
NEGATED_VERDICTS = {
    1: (
        "i would not call it a waste of time", "you will not regret watching it",
        "do not miss this one",
    ),
    -1: (
        "i would not recommend it", "do not bother with this one",
        "i cannot call it a success",
    ),
}  # fmt: skip


def _plot_sentence(s: _Sampler, form: int, events: Sequence[str] = PLOT_EVENTS) -> str:
    """A sentence (one of five forms) on the plot or the viewing, with no opinion."""
    if form == 0:
        return f"the story follows {s.choice(PLOT_CHARACTERS)} who {s.choice(events)}"
    if form == 1:
        character, event = s.choice(PLOT_CHARACTERS), s.choice(events)
        return f"it is set in {s.choice(PLOT_SETTINGS)}, where {character} {event}"
    if form == 2:
        minutes = s.integer(85, 160)
        return f"the film was shot in {s.choice(PLOT_SETTINGS)} and runs for {minutes} minutes"
    if form == 3:
        return f"i watched it {s.choice(VIEWING_OCCASIONS)}"
    first = s.choice(PLOT_CHARACTERS)
    second = s.other(PLOT_CHARACTERS, first)
    return f"{first} {s.choice(events)}, while {second} {s.choice(PLOT_EVENTS)}"


def _review_opinion(s: _Sampler, polarity: int, negated: bool = False) -> str:
    """One opinion sentence of an IMDB-like review, usually with two adjectives.

    With ``negated`` the sentence negates an adjective of the opposite polarity.
    """
    aspect = s.choice(REVIEW_ASPECTS)
    if negated:
        clause = _opinion_clause(s, aspect, polarity, IMDB_WORDS, 1.0)
    elif s.chance(0.7):
        first, second = _two_adjectives(s, polarity, IMDB_WORDS)
        clause = f"{aspect} {s.choice(('is', 'was'))} {first} and {second}"
    else:
        clause = _opinion_clause(s, aspect, polarity, IMDB_WORDS, 0.0)
    form = s.uniform()
    if form < 0.15:
        return f"i thought {clause.replace(' is ', ' was ', 1)}"
    if form < 0.25:
        return f"to be honest, {clause}"
    return clause


# Shares of the hard IMDB review forms; the rest give every opinion the label's polarity.
IMDB_NEGATION_SHARE = 0.06
IMDB_CONCESSION_SHARE = 0.06
IMDB_DISTRACTOR_SHARE = 0.04


def _imdb_sample(s: _Sampler, label: int) -> tuple[str, None]:
    """One IMDB-like review; label 0 negative, 1 positive.

    Two or three opinion sentences are shuffled among one or two neutral plot
    sentences, and the review closes with a verdict of the label's polarity. Hard
    reviews (:data:`IMDB_NEGATION_SHARE`, :data:`IMDB_CONCESSION_SHARE`,
    :data:`IMDB_DISTRACTOR_SHARE`) express every opinion by negating an adjective of
    the opposite polarity and close with a negated verdict, concede most opinions
    to the opposite polarity before a closing opinion of the label's ("still, ..."),
    or describe a plot worded with the opposite polarity around single-adjective
    opinions.
    """
    polarity = 1 if label == 1 else -1
    n_opinions = s.integer(2, 3)
    events: Sequence[str] = PLOT_EVENTS
    closing = s.choice(POSITIVE_VERDICTS if polarity > 0 else NEGATIVE_VERDICTS)
    form = s.uniform()
    hard_negation = IMDB_NEGATION_SHARE
    hard_concession = hard_negation + IMDB_CONCESSION_SHARE
    hard_distractor = hard_concession + IMDB_DISTRACTOR_SHARE
    if form < hard_negation:
        opinions = [_review_opinion(s, polarity, negated=True) for _ in range(n_opinions)]
        closing = s.choice(NEGATED_VERDICTS[polarity])
    elif form < hard_concession:
        opinions = [_review_opinion(s, -polarity) for _ in range(n_opinions)]
        aspect = s.choice(REVIEW_ASPECTS)
        conclusion = _opinion_clause(s, aspect, polarity, IMDB_WORDS, 0.0)
        closing = f"{s.choice(('still', 'even so', 'in the end'))}, {conclusion}"
    elif form < hard_distractor:
        opinions = [
            _opinion_clause(s, s.choice(REVIEW_ASPECTS), polarity, IMDB_WORDS, 0.0)
            for _ in range(n_opinions)
        ]
        events = (
            PLOT_EVENTS_WITH_POSITIVE_WORDS if polarity < 0 else PLOT_EVENTS_WITH_NEGATIVE_WORDS
        )
        closing = opinions.pop()
    else:
        opinions = [_review_opinion(s, polarity) for _ in range(n_opinions)]
    # The first plot sentence follows the story (forms 0, 1 or 4), so that distractor
    # events appear in every distractor review.
    first_form = s.choice((0, 1, 4))
    fillers = [_plot_sentence(s, first_form, events)]
    if s.chance(0.5):
        fillers.append(_plot_sentence(s, s.other(range(5), first_form), events))
    sentences = [fillers[0], *s.shuffled(opinions + fillers[1:]), closing]
    return " ".join(_sentence(sentence) for sentence in sentences), None


TWEET_THINGS = (
    "the new update", "my flight", "the game last night", "this coffee", "the concert",
    "today's lecture", "the season finale", "the bus this morning", "my new phone",
    "the weather today", "the hotel", "customer service", "the new album", "work today",
    "the traffic on the bridge", "the wifi here", "this pizza", "the new episode",
)  # fmt: skip
TWEET_ACTIVITIES = (
    "got back from the concert", "finished the new season", "tried the new burger place",
    "landed after a six hour flight", "updated my phone", "watched the game",
    "met the new neighbours", "finished my shift", "saw the new movie",
)  # fmt: skip
POSITIVE_REACTIONS = (
    "love it", "so happy right now", "made my day", "best day ever", "can't wait for more",
)  # fmt: skip
NEGATIVE_REACTIONS = ("ugh", "so done with this", "worst day ever", "never again", "why me")
POSITIVE_EMOTICONS = (":)", ":D", "<3", ";)", "=)")
NEGATIVE_EMOTICONS = (":(", ":/", "-_-", ":'(", ">:(")
POSITIVE_HASHTAGS = ("#blessed", "#love", "#goodvibes", "#winning")
NEGATIVE_HASHTAGS = ("#fail", "#annoyed", "#mondays", "#rant")
TOPIC_HASHTAGS = ("#news", "#update", "#weekend", "#music", "#travel", "#local", "#tbt", "#info")
TWEET_EVENTS = (
    "farmers market", "book fair", "charity run", "city council vote", "jazz festival",
    "science fair", "blood drive", "open day", "night market", "quiz night",
)  # fmt: skip
# Places for factual tweets; some names contain polarity words.
TWEET_PLACES = (
    "the great hall", "happy valley library", "the good shepherd clinic", "the fun fair grounds",
    "central station", "the city museum", "the north gym", "the public pool", "the town hall",
)  # fmt: skip
TWEET_SHOWS = ("the late news", "cooking with sam", "the quiz hour", "city stories", "wild coast")


def _tweet_time(s: _Sampler) -> str:
    minute = s.choice(("", ":15", ":30", ":45"))
    return f"{s.integer(1, 12)}{minute}{s.choice(('am', 'pm'))}"


def _factual_tweet(s: _Sampler) -> str:
    """A neutral, informational tweet."""
    form = s.integer(0, 7)
    time, day = _tweet_time(s), s.choice(WEEKDAYS)
    if form == 0:
        return f"the {s.choice(TWEET_EVENTS)} starts at {time} on {day}"
    if form == 1:
        return f"{s.choice(TWEET_PLACES)} is open until {time} on {day}"
    if form == 2:
        return f"reminder: the {s.choice(TWEET_EVENTS)} meeting has moved to {day} at {time}"
    if form == 3:
        return f"new episode of {s.choice(TWEET_SHOWS)} airs {day} at {time}"
    if form == 4:
        return f"does anyone know if {s.choice(TWEET_PLACES)} is open on {day}?"
    if form == 5:
        home, away = _invented_name(s).lower(), _invented_name(s).lower()
        return f"{home} vs {away} kicks off at {time} on {day}"
    if form == 6:
        return f"heading to {s.choice(TWEET_PLACES)} for the {s.choice(TWEET_EVENTS)} this {day}"
    return f"bus {s.integer(2, 99)} will run every {s.integer(2, 6) * 5} minutes from {day}"


# Shares of the hard forms among opinion tweets; the rest state the polarity twice
# (two adjectives, or an adjective and a reaction) or in a plain clause.
TWEET_NEGATION_SHARE = 0.06
TWEET_CONTRAST_SHARE = 0.06
TWEET_DISTRACTOR_SHARE = 0.04


def _opinion_tweet(s: _Sampler, polarity: int) -> tuple[str, bool]:
    """A tweet expressing ``polarity`` (+1 / -1) about something.

    Returns the text and whether an emoticon added to it should contradict the
    polarity (the distractor form: one adjective and an emoticon of the other
    polarity).
    """
    form = s.uniform()
    copulas = ("is", "was")
    thing = s.choice(TWEET_THINGS)
    hard_negation = TWEET_NEGATION_SHARE
    hard_contrast = hard_negation + TWEET_CONTRAST_SHARE
    hard_distractor = hard_contrast + TWEET_DISTRACTOR_SHARE
    if form < hard_negation:  # "the new album is not very lame"
        return _opinion_clause(s, thing, polarity, TWEET_WORDS, 1.0, copulas), False
    if form < hard_contrast:
        first = _opinion_clause(s, thing, -polarity, TWEET_WORDS, 0.0, copulas)
        second_thing = s.other(TWEET_THINGS, thing)
        second = _opinion_clause(s, second_thing, polarity, TWEET_WORDS, 0.0, copulas)
        return f"{first} but {second}", False
    if form < hard_distractor:
        return _opinion_clause(s, thing, polarity, TWEET_WORDS, 0.0, copulas), True
    if form < 0.45:
        clause = _opinion_clause(s, thing, polarity, TWEET_WORDS, 0.0, copulas)
        reaction = s.choice(POSITIVE_REACTIONS if polarity > 0 else NEGATIVE_REACTIONS)
        return f"{clause}, {reaction}", False
    if form < 0.7:
        first, second = _two_adjectives(s, polarity, TWEET_WORDS)
        return f"{thing} {s.choice(copulas)} {first} and {second}", False
    if form < 0.85:
        clause = _opinion_clause(s, "it", polarity, TWEET_WORDS, 0.0, ("was",))
        return f"just {s.choice(TWEET_ACTIVITIES)} and {clause}", False
    # "can't" here does not negate the opinion
    adjective = _graded_adjective(s, polarity, TWEET_WORDS)
    return f"can't believe how {adjective} {thing} was", False


def _tweet_sample(s: _Sampler, label: int) -> tuple[str, None]:
    """One tweet; label 0 negative, 1 neutral, 2 positive."""
    if label == 1:
        text = _factual_tweet(s)
        emoticon_rate, positive_face = 0.1, s.chance(0.5)
        polar_tags: tuple[str, ...] = ()
    else:
        polarity = 1 if label == 2 else -1
        text, mismatched = _opinion_tweet(s, polarity)
        emoticon_rate, positive_face = (1.0 if mismatched else 0.4), (polarity > 0) != mismatched
        polar_tags = () if mismatched else POSITIVE_HASHTAGS if polarity > 0 else NEGATIVE_HASHTAGS
    parts = [text]
    if s.chance(0.3):
        parts.insert(0, "@user")
    if s.chance(emoticon_rate):
        parts.append(s.choice(POSITIVE_EMOTICONS if positive_face else NEGATIVE_EMOTICONS))
    if polar_tags and s.chance(0.15):
        parts.append(s.choice(polar_tags))
    parts.extend(s.shuffled(TOPIC_HASHTAGS)[: s.integer(0, 2)])
    return " ".join(parts), None


# ------------------------------------------------------------------------- inference

# (determiner, noun, a generalisation, an incompatible agent, plural)
MNLI_AGENTS = (
    ("a", "man", "a person", "a woman", False),
    ("a", "woman", "a person", "a man", False),
    ("a", "young boy", "a child", "an old woman", False),
    ("a", "little girl", "a child", "an old man", False),
    ("an", "old man", "an elderly person", "a little girl", False),
    ("a", "teenager", "a young person", "an elderly man", False),
    ("a", "police officer", "a person", "a small child", False),
    ("a", "chef", "a cook", "a little boy", False),
    ("two", "women", "two people", "a single man", True),
    ("a", "group of students", "some people", "a lone old man", False),
    ("three", "young men", "some men", "two old women", True),
    ("a", "couple", "two people", "a lone child", False),
)
# (specific activity, its generalisation, group); activities of different groups
# cannot be done at once
MNLI_ACTIVITIES = (
    ("playing a guitar", "playing an instrument", "music"),
    ("playing a violin", "playing music", "music"),
    ("reading a newspaper", "reading", "reading"),
    ("reading a novel", "reading a book", "reading"),
    ("eating a sandwich", "eating", "meal"),
    ("eating an apple", "eating some fruit", "meal"),
    ("drinking coffee", "having a drink", "meal"),
    ("painting a portrait", "making art", "art"),
    ("writing a letter", "writing something", "art"),
    ("sketching a bridge", "drawing", "art"),
    ("talking on a phone", "using a phone", "phone"),
    ("feeding a dog", "feeding an animal", "animal"),
    ("holding a kitten", "holding an animal", "animal"),
    ("carrying a wooden box", "carrying something", "work"),
    ("fixing a bicycle", "repairing something", "work"),
    ("kicking a ball", "playing with a ball", "sport"),
)
MNLI_RESTING = ("sleeping", "taking a nap", "fast asleep", "dozing")
# Where a resting agent of a contradicting hypothesis is.
MNLI_RESTING_PLACES = (
    "in bed at home",
    "on a sofa at home",
    "in a dark bedroom",
    "in a hotel room",
)
# (place, its generalisation, outdoors)
MNLI_PLACES = (
    ("in a park", "outside", True),
    ("on a beach", "outdoors", True),
    ("on a busy street", "outside", True),
    ("in a field", "outdoors", True),
    ("in a garden", "outside", True),
    ("on a mountain trail", "outdoors", True),
    ("in a kitchen", "indoors", False),
    ("in a library", "inside a building", False),
    ("in a classroom", "indoors", False),
    ("in a crowded cafe", "inside", False),
    ("in a living room", "indoors", False),
    ("in an office", "inside a building", False),
)
COLORS = ("red", "blue", "green", "yellow", "black", "white", "orange")
GARMENTS = ("shirt", "jacket", "hat", "coat", "sweater", "scarf")
MNLI_ADJECTIVES = ("tired", "famous", "nervous", "happy", "tall", "smiling", "cheerful", "bored")
# Details a premise may end with; an entailed hypothesis keeps or drops them.
MNLI_EXTRAS = (
    "on a sunny afternoon", "on a cold morning", "after a long day", "before going to work",
    "in the early evening", "on a rainy day",
)  # fmt: skip
# Purposes and circumstances that only hypotheses state (no premise settles them).
MNLI_ADDED_INFORMATION = (
    "to earn some money for a trip", "for the first time in years",
    "while waiting for a friend to arrive", "as part of a school contest",
    "for a small crowd of tourists", "to pass the time before a job interview",
    "for a class project due next week", "to win a bet with a friend",
    "for a birthday party later today", "to raise money for a local charity",
)  # fmt: skip
# Shares of the hard pairs per class; the rest carry the class's clear cue (a
# generalised copy, added information, an incompatible activity or state).
MNLI_HARD_ENTAILMENT_SHARE = 0.1  # a copy with the premise's words, less one detail
MNLI_HARD_NEUTRAL_SHARE = 0.1  # a premise more general than the hypothesis, "is not famous"
MNLI_NEGATED_CONTRADICTION_SHARE = 0.07  # "is not playing a guitar", "nobody is ..."
MNLI_SWAPPED_CONTRADICTION_SHARE = 0.07  # a swapped agent, activity, place or attire colour


@dataclass(frozen=True)
class _Scene:
    """A premise or hypothesis: who does what, where, in what, and any extra detail."""

    agent: str
    plural: bool
    activity: str
    attire: str | None = None
    place: str | None = None
    extra: str | None = None
    negated: bool = False

    def render(self) -> str:
        words = [self.agent]
        if self.attire:
            words.append(self.attire)
        words.append("are" if self.plural else "is")
        if self.negated:
            words.append("not")
        words.append(self.activity)
        if self.place:
            words.append(self.place)
        if self.extra:
            words.append(self.extra)
        return _sentence(" ".join(words))


def _is_plural(noun_phrase: str) -> bool:
    return noun_phrase.startswith(("two ", "three ", "some "))


class _SceneDraw(NamedTuple):
    """The random choices behind one MNLI-like pair."""

    determiner: str
    noun: str
    adjective: str | None  # of the premise's agent
    general_agent: str
    opposite_agent: str
    plural: bool
    activity: str
    general_activity: str
    group: str
    place: tuple[str, str, bool] | None  # (place, its generalisation, outdoors)
    color: str
    garment: str


def _agent_phrase(draw: _SceneDraw, adjective: str | None, definite: bool = False) -> str:
    """The agent of ``draw`` with an optional adjective: "a tired man", "the women"."""
    words = f"{adjective} {draw.noun}" if adjective else draw.noun
    if definite:
        return f"the {words}"
    return _indefinite(words) if draw.determiner in ("a", "an") else f"{draw.determiner} {words}"


def _attire(color: str, garment: str) -> str:
    return f"in {_indefinite(f'{color} {garment}')}"


def _entailed(s: _Sampler, draw: _SceneDraw, hypothesis: _Scene) -> _Scene:
    """A short generalisation of the premise: "A person is playing an instrument."

    The agent becomes its hypernym (or "someone"), the activity usually its
    generalisation; attire, place and extra details are dropped, or the general
    place becomes the predicate ("Someone is outdoors."). A share
    :data:`MNLI_HARD_ENTAILMENT_SHARE` instead keeps the premise's words and drops
    one detail, so that an entailed hypothesis does not always use general words.
    """
    if s.chance(MNLI_HARD_ENTAILMENT_SHARE):
        details = [name for name in ("attire", "place", "extra") if getattr(hypothesis, name)]
        if not details:
            return replace(hypothesis, activity=draw.general_activity)
        return replace(hypothesis, **{s.choice(details): None})
    if s.chance(0.75):
        agent, plural = draw.general_agent, _is_plural(draw.general_agent)
    else:
        agent, plural = "someone", False
    if draw.place and s.chance(0.4):
        activity = draw.place[1]
    else:
        activity = draw.general_activity if s.chance(0.8) else draw.activity
    return _Scene(agent, plural, activity)


def _contradicting(s: _Sampler, draw: _SceneDraw, hypothesis: _Scene) -> _Scene:
    """Replace the premise's predicate by an incompatible one; details may generalise.

    Most hypotheses put the agent in a resting state ("is sleeping") or in an
    activity of another kind. A share :data:`MNLI_NEGATED_CONTRADICTION_SHARE`
    negates the predicate instead ("is not playing a guitar", "nobody is ..."), and
    a share :data:`MNLI_SWAPPED_CONTRADICTION_SHARE` keeps it but swaps the agent,
    the place or the colour of the attire for an incompatible one.
    """
    if draw.place and s.chance(0.3):
        hypothesis = replace(hypothesis, place=draw.place[1])
    if hypothesis.extra and s.chance(0.6):
        hypothesis = replace(hypothesis, extra=None)
    operation = s.uniform()
    if operation < MNLI_NEGATED_CONTRADICTION_SHARE:  # a negated copy
        hypothesis = replace(hypothesis, extra=None)  # no detail the negation could target
        if s.chance(0.3):
            return replace(
                hypothesis,
                agent="nobody",
                plural=False,
                attire=None,
                activity=draw.general_activity,
            )
        activity = draw.general_activity if s.chance(0.4) else draw.activity
        return replace(hypothesis, negated=True, activity=activity)
    if operation < MNLI_NEGATED_CONTRADICTION_SHARE + MNLI_SWAPPED_CONTRADICTION_SHARE:
        swap = s.choice(("agent", "activity", "place", "attire"))
        if swap == "place" and not draw.place:
            swap = "agent"
        if swap == "attire" and not hypothesis.attire:
            swap = "agent"
        if swap == "agent":
            agent, plural = draw.opposite_agent, _is_plural(draw.opposite_agent)
            return replace(hypothesis, agent=agent, plural=plural, attire=None)
        if swap == "activity":
            others = [entry for entry in MNLI_ACTIVITIES if entry[2] != draw.group]
            return replace(hypothesis, activity=s.choice(others)[0])
        if swap == "place":
            assert draw.place is not None
            others = [entry for entry in MNLI_PLACES if entry[2] != draw.place[2]]
            other = s.choice(others)
            return replace(hypothesis, place=other[0] if s.chance(0.7) else other[1])
        return replace(hypothesis, attire=_attire(s.other(COLORS, draw.color), draw.garment))
    resting, place = s.choice(MNLI_RESTING), s.choice(MNLI_RESTING_PLACES)
    return replace(hypothesis, activity=resting, place=place, extra=None)


def _neutral(
    s: _Sampler, draw: _SceneDraw, premise: _Scene, hypothesis: _Scene
) -> tuple[_Scene, _Scene]:
    """Make the hypothesis say something the premise does not settle.

    Most hypotheses add a purpose or circumstance (:data:`MNLI_ADDED_INFORMATION`),
    some an adjective of the agent. A share :data:`MNLI_HARD_NEUTRAL_SHARE` instead
    makes the premise's activity more general than the hypothesis's or negates an
    adjective the premise does not mention ("The man is not famous.").
    """
    operation = s.uniform()
    if operation < MNLI_HARD_NEUTRAL_SHARE:
        if draw.adjective or s.chance(0.5):
            premise = replace(premise, activity=draw.general_activity)
        else:  # "The man is not famous."
            agent = _agent_phrase(draw, None, definite=True)
            return premise, _Scene(agent, draw.plural, s.choice(MNLI_ADJECTIVES), negated=True)
    elif operation < 0.9 or draw.adjective:
        hypothesis = replace(hypothesis, extra=s.choice(MNLI_ADDED_INFORMATION))
    else:
        agent = _agent_phrase(draw, s.choice(MNLI_ADJECTIVES), definite=s.chance(0.3))
        hypothesis = replace(hypothesis, agent=agent)
    if draw.place and s.chance(0.3):
        hypothesis = replace(hypothesis, place=draw.place[1] if s.chance(0.5) else None)
    return premise, hypothesis


def _mnli_sample(s: _Sampler, label: int) -> tuple[str, str]:
    """One MNLI-like pair; label 0 entailment, 1 neutral, 2 contradiction."""
    determiner, noun, general_agent, opposite_agent, plural = s.choice(MNLI_AGENTS)
    activity, general_activity, group = s.choice(MNLI_ACTIVITIES)
    draw = _SceneDraw(
        determiner=determiner,
        noun=noun,
        adjective=s.choice(MNLI_ADJECTIVES) if s.chance(0.1) else None,
        general_agent=general_agent,
        opposite_agent=opposite_agent,
        plural=plural,
        activity=activity,
        general_activity=general_activity,
        group=group,
        place=s.choice(MNLI_PLACES) if s.chance(0.85) else None,
        color=s.choice(COLORS),
        garment=s.choice(GARMENTS),
    )
    premise = _Scene(
        agent=_agent_phrase(draw, draw.adjective),
        plural=plural,
        activity=activity,
        attire=_attire(draw.color, draw.garment) if s.chance(0.1) else None,
        place=draw.place[0] if draw.place else None,
        extra=s.choice(MNLI_EXTRAS) if s.chance(0.05) else None,
    )
    # The hypothesis starts as a copy of the premise, often with a definite agent.
    if s.chance(0.4):
        hypothesis = replace(premise, agent=_agent_phrase(draw, draw.adjective, definite=True))
    else:
        hypothesis = premise
    if label == 0:
        hypothesis = _entailed(s, draw, hypothesis)
    elif label == 2:
        hypothesis = _contradicting(s, draw, hypothesis)
    else:
        premise, hypothesis = _neutral(s, draw, premise, hypothesis)
    return premise.render(), hypothesis.render()


class _Relation(NamedTuple):
    """A fact type of the QNLI-like world: how to ask it and how to state it."""

    questions: tuple[str, ...]
    statements: tuple[str, ...]


# Statements restate the predicate of the questions they answer.
TOWN_RELATIONS = {
    "founded": _Relation(
        ("when was {x} founded", "in what year was {x} founded"),
        ("{x} was founded in {year}", "{x} was founded in {year} by {person}"),
    ),
    "location": _Relation(
        ("where is {x} located", "in which region is {x} located"),
        ("{x} is located in the {region} region", "{x} is located on the {river} river"),
    ),
    "population": _Relation(
        ("what is the population of {x}", "how many people live in {x}"),
        ("the population of {x} is about {population}", "about {population} people live in {x}"),
    ),
    "named_after": _Relation(
        ("who was {x} named after", "after whom was {x} named"),
        ("{x} was named after {person}", "{x} was named after a local {occupation}"),
    ),
    "language": _Relation(
        ("what language is spoken in {x}", "which language is spoken in {x}"),
        ("{language} is the language spoken in {x}", "most people in {x} speak {language}"),
    ),
}
LANDMARK_RELATIONS = {
    "designed": _Relation(
        ("who designed {x}", "which architect designed {x}"),
        ("{x} was designed by {person}", "the architect {person} designed {x}"),
    ),
    "built": _Relation(
        ("when was {x} built", "in what year was {x} built"),
        ("{x} was built in {year}", "{x} was built in {year} after {years_of_work} years of work"),
    ),
    "height": _Relation(
        ("how tall is {x}", "what is the height of {x}"),
        ("{x} is {metres} metres tall", "the height of {x} is {metres} metres"),
    ),
    "material": _Relation(
        ("what is {x} made of", "which material is {x} made of"),
        ("{x} is made of {material}", "{x} is made mostly of {material}"),
    ),
    "location": _Relation(
        ("where does {x} stand", "in which town does {x} stand"),
        ("{x} stands in the town of {town}", "{x} stands in the old centre of {town}"),
    ),
}
# Facts of relations that no question asks: most not-entailed sentences state one.
TOWN_BACKGROUND = (
    "{x} holds a {event} every {season}",
    "{x} is popular with {visitors}",
    "{x} is known for its {product}",
    "a small {facility} opened in {x} last year",
)
LANDMARK_BACKGROUND = (
    "{x} is lit up every night",
    "{x} is popular with {visitors}",
    "{x} hosts a {event} every {season}",
    "guided tours of {x} start at the main gate",
)
EVENTS = ("music festival", "flower show", "night market", "boat race", "cheese fair")
SEASONS = ("spring", "summer", "autumn", "winter")
VISITORS = ("hikers", "tourists", "school groups", "cyclists", "photographers")
LOCAL_PRODUCTS = ("cheese", "wine", "pottery", "honey", "wool")
FACILITIES = ("museum", "cinema", "bakery", "sports hall", "library")
# Appositions that name a second entity: "{x}, a town near {y}, was founded ..."
TOWN_APPOSITIONS = ("a town near {y}", "a village north of {y}", "the neighbour of {y}")
LANDMARK_APPOSITIONS = (
    "which stands next to {y}",
    "a landmark near {y}",
    "across the square from {y}",
)
LANDMARK_TYPES = ("Bridge", "Tower", "Cathedral", "Lighthouse", "Dam", "Observatory", "Library")
OCCUPATIONS = ("merchant", "priest", "landowner", "miller", "soldier", "poet")
LANGUAGES = ("German", "Italian", "Basque", "Catalan", "Welsh", "Danish", "Romansh", "Frisian")
MATERIALS = ("granite", "red brick", "limestone", "steel", "reinforced concrete", "oak timber")


def _qnli_statement(
    relation: _Relation,
    template_index: int,
    subject: str,
    apposition: str | None,
    slots: dict[str, object],
) -> str:
    """State ``relation`` about ``subject``, optionally with an apposition after it."""
    template = relation.statements[template_index]
    if apposition is not None:
        closing = "" if template.endswith("{x}") else ","
        template = template.replace("{x}", "{x}, " + apposition + closing, 1)
    return _sentence(template.format(x=subject, **slots))


# Shares of the not-entailed QNLI sentences that need the question to be told from an
# answer: another relation that questions ask about (of the asked entity), and the
# asked relation of another entity (half of them described relative to the asked
# one, so the asked name is in the sentence). The rest state a background fact.
QNLI_OTHER_RELATION_SHARE = 0.1
QNLI_OTHER_ENTITY_SHARE = 0.15
# Share of entailed sentences with an apposition naming another entity.
QNLI_APPOSITION_SHARE = 0.1


def _qnli_sample(s: _Sampler, label: int) -> tuple[str, str]:
    """One QNLI-like pair; label 0 entailment, 1 not_entailment.

    Entailment: the sentence states the asked relation of the asked entity (in a
    share :data:`QNLI_APPOSITION_SHARE` with an apposition naming another entity).
    Not entailment: mostly a background fact about the asked entity; shares
    :data:`QNLI_OTHER_RELATION_SHARE` state another asked-about relation of it and
    :data:`QNLI_OTHER_ENTITY_SHARE` the asked relation of another entity, half of the
    time one described by its position relative to the asked one.
    """
    name = partial(_invented_name, s, 2, 2)  # short names: few word pieces
    if s.chance(0.5):
        relations, appositions = TOWN_RELATIONS, TOWN_APPOSITIONS
        subject, other = name(), name()
    else:
        relations, appositions = LANDMARK_RELATIONS, LANDMARK_APPOSITIONS
        subject = f"the {name()} {s.choice(LANDMARK_TYPES)}"
        other = f"the {name()} {s.choice(LANDMARK_TYPES)}"
    if other == subject:
        other = f"{other} {s.choice(('Minor', 'Nova', 'Alta'))}"
    names = list(relations)
    asked = s.choice(names)
    slots = {
        "year": s.integer(1150, 1990),
        "person": _person(s),
        "river": name(),
        "region": name(),
        "population": f"{s.integer(800, 250_000):,}",
        "occupation": s.choice(OCCUPATIONS),
        "language": s.choice(LANGUAGES),
        "years_of_work": s.integer(2, 40),
        "metres": s.integer(12, 320),
        "material": s.choice(MATERIALS),
        "town": name(),
        "event": s.choice(EVENTS),
        "season": s.choice(SEASONS),
        "visitors": s.choice(VISITORS),
        "product": s.choice(LOCAL_PRODUCTS),
        "facility": s.choice(FACILITIES),
    }
    question = _sentence(s.choice(relations[asked].questions).format(x=subject), end="?")

    relation, about, apposition = relations[asked], subject, None
    form = s.uniform()
    if label == 0:
        if s.chance(QNLI_APPOSITION_SHARE):
            apposition = s.choice(appositions).format(y=other)
    elif form < QNLI_OTHER_RELATION_SHARE:  # the asked entity, another asked-about relation
        relation = relations[s.other(names, asked)]
    elif form < QNLI_OTHER_RELATION_SHARE + QNLI_OTHER_ENTITY_SHARE:  # another entity
        about = other
        if s.chance(0.5):
            apposition = s.choice(appositions).format(y=subject)
    else:  # the asked entity, a background fact
        background = TOWN_BACKGROUND if relations is TOWN_RELATIONS else LANDMARK_BACKGROUND
        relation = _Relation((), background)
    statement = _qnli_statement(
        relation, s.integer(0, len(relation.statements) - 1), about, apposition, slots
    )
    return question, statement


# ---------------------------------------------------------------------------- topic

COMPANY_SUFFIXES = (
    "Corp", "Inc", "Group", "Holdings", "Systems", "Motors", "Bank", "Airlines", "Energy",
    "Foods", "Telecom", "Capital",
)  # fmt: skip
TEAM_SUFFIXES = (
    "Rovers", "United", "Falcons", "Lions", "Athletic", "Rangers", "Hawks", "Wanderers",
    "Giants", "Stars",
)  # fmt: skip
NEWS_AGENCIES = ("WorldWire", "NewsDesk", "Metro Press", "Capital Times", "Global Report")
PRODUCTS = ("smartphone", "truck", "software", "cereal", "laptop", "insurance", "jet engine")
PERIODS = ("first quarter", "second quarter", "third quarter", "fourth quarter", "first half")
METRICS = ("profit", "revenue", "sales", "earnings", "operating income")

BUSINESS_HEADLINES = (
    "{co} shares jump after upbeat forecast",
    "{co} shares slide as costs climb",
    "{co} posts record {period} profit",
    "{co} agrees {amount} deal to buy {co2}",
    "{co} names {person} chief executive",
    "{co} beats forecasts on strong {product} sales",
    "{co} to cut {jobs} jobs after weak season",
    "{co} signs record deal with {co2}",
    "Investors cheer {co} turnaround plan",
    "{co} and {co2} in talks over merger",
    "{co} owner weighs sale of stake",
)
SPORTS_HEADLINES = (
    "{team} beat {team2} {score}",
    "{player} leads {team} past {team2}",
    "{team} sign {player} on {n}-year deal",
    "{team} fire coach {person} after losing season",
    "{player} sets record as {team} win again",
    "{team} clinch title on final day of season",
    "{team} and {team2} agree record deal for {player}",
    "{team} shares lead after {n} rounds",
    "{team} owner unveils plans for new stadium",
    "{player} out for season with knee injury",
)
BUSINESS_SENTENCES = (
    "{co} said {metric} rose {pct} percent in the {period}, helped by demand for its {product}.",
    "The {amount} deal still needs approval from regulators, the company said.",
    "Analysts had expected a smaller gain, and the shares closed {pct} percent higher.",
    "Chief executive {person} told investors the management team would cut costs this season.",
    "The retailer reported record sales over the holiday season.",
    "Shares of {co} fell {pct} percent in early trading after it lowered its outlook.",
    "The bank said the deal would add to earnings within two years.",
    "{co} has lost market share to cheaper rivals for three straight quarters.",
)
SPORTS_SENTENCES = (
    "{player} scored twice as {team} beat {team2} {score} on {day}.",
    "The {n}-year deal makes {player} the highest paid player in the league.",
    "Coach {person} said the team had played its best football of the season.",
    "{player}, who missed most of last season with a knee injury, will start on {day}.",
    "The defending champions trailed at halftime but rallied in the final minutes.",
    "{team} have now won {n} straight matches at home.",
    "The striker shares the scoring record with two former teammates.",
    "Fans packed the stadium to see {team} face their old rivals {team2}.",
)
# Headlines and lead sentences both classes use; their only cue, if any, is the
# word for the organisation ({unit}).
SHARED_HEADLINES = (
    "{name} signs record deal",
    "{name} owner weighs sale of stake",
    "{name} confirms talks over new deal",
    "{name} ends season on a record high",
    "{name} names new chief",
)
UNIT_WORDS = {
    "business": ("group", "firm", "company"),
    "sports": ("club", "side", "squad"),
    "shared": ("franchise", "organisation", "outfit"),
}
SHARED_SENTENCES = (
    "{person} said the team had worked hard to close the deal before the end of the season.",
    "The agreement was announced on {day} and takes effect next year.",
    "{person} said the new owners planned to keep the current staff.",
    "The move follows a record year for the {unit}.",
    "The {unit} declined to comment on the size of the deal.",
)


def _company(s: _Sampler) -> str:
    name = _invented_name(s)
    return f"{name} {s.choice(COMPANY_SUFFIXES)}" if s.chance(0.75) else name


def _team(s: _Sampler) -> str:
    name = _invented_name(s)
    return f"{name} {s.choice(TEAM_SUFFIXES)}" if s.chance(0.75) else name


def _agnews_sample(s: _Sampler, label: int) -> tuple[str, None]:
    """One AG-News-like headline with a lead sentence; label 0 business, 1 sports."""
    business = label == 0
    if s.chance(0.6):
        amount = f"${s.integer(2, 95) * 10} million"
    else:
        amount = f"${s.integer(1, 40)} billion"
    if s.chance(0.6):  # football-like or basketball-like scores
        score = f"{s.integer(0, 5)}-{s.integer(0, 4)}"
    else:
        score = f"{s.integer(80, 120)}-{s.integer(70, 110)}"
    slots = {
        "co": _company(s),
        "co2": _company(s),
        "team": _team(s),
        "team2": _team(s),
        "person": _person(s),
        "player": _person(s),
        "period": s.choice(PERIODS),
        "metric": s.choice(METRICS),
        "product": s.choice(PRODUCTS),
        "amount": amount,
        "pct": f"{s.integer(1, 25)}.{s.integer(0, 9)}",
        "n": s.integer(2, 12),
        "jobs": s.integer(2, 90) * 100,
        "score": score,
        "day": s.choice(WEEKDAYS).capitalize(),
        "name": _invented_name(s),
    }
    if s.chance(0.15):  # a weak sample: shared headline, often a shared lead as well
        headline = s.choice(SHARED_HEADLINES)
        shared_lead = s.chance(0.7)
    else:
        headline = s.choice(BUSINESS_HEADLINES if business else SPORTS_HEADLINES)
        shared_lead = s.chance(0.2)
    if shared_lead:
        lead = s.choice(SHARED_SENTENCES)
        own_units = UNIT_WORDS["business" if business else "sports"]
        slots["unit"] = s.choice(UNIT_WORDS["shared"] if s.chance(0.5) else own_units)
    else:
        lead = s.choice(BUSINESS_SENTENCES if business else SPORTS_SENTENCES)
    headline, lead = headline.format(**slots), lead.format(**slots)
    if s.chance(0.5):
        agency = s.choice(NEWS_AGENCIES)
        return f"{headline} ({agency}) {agency} - {lead}", None
    return f"{headline} - {lead}", None


NATIONALITIES = (
    ("German", "Germany"), ("Brazilian", "Brazil"), ("Canadian", "Canada"), ("Japanese", "Japan"),
    ("Swedish", "Sweden"), ("Italian", "Italy"), ("Kenyan", "Kenya"), ("Australian", "Australia"),
    ("Polish", "Poland"), ("Mexican", "Mexico"), ("Dutch", "the Netherlands"), ("Korean", "Korea"),
)  # fmt: skip
INDUSTRIES = (
    "software", "steel", "shipping", "insurance", "brewing", "pharmaceutical", "food processing",
    "telecommunications", "retail", "aerospace", "publishing", "textile",
)  # fmt: skip
PRODUCT_LINES = (
    "bicycles", "kitchen appliances", "running shoes", "frozen foods", "toys", "watches",
)  # fmt: skip
TEAM_SPORTS = ("football", "ice hockey", "handball", "water polo", "field hockey", "rugby")
POSITIONS = ("defender", "forward", "midfielder", "goalkeeper", "winger", "centre")
INDIVIDUAL_ROLES = (
    "sprinter", "long-distance runner", "swimmer", "cyclist", "rower", "high jumper", "fencer",
    "speed skater",
)  # fmt: skip
GAMES = ("Summer Olympics", "Winter Olympics", "World Championships", "European Championships")
LEGAL_SUFFIXES = ("AG", "Ltd", "Group", "& Co", "SA", "Industries")

COMPANY_ENTRIES = (
    "{name} is {a_nationality} {industry} company founded in {year} and headquartered in {city}.",
    "{name} is {a_nationality} {industry} company headquartered in {city}. "
    "It was founded in {year} by {person}.",
    "{name} is {an_industry} manufacturer based in {city}, {country}. "
    "The company employs about {staff} people.",
    "{name} is {a_nationality} sportswear company founded in {year} by former {sport} player "
    "{person}.",
    "{name} was {a_nationality} {industry} firm that operated from {year} until {year2}, "
    "when it merged with {name2}.",
    "{name} is {a_nationality} brand of {products}. It sponsors the {team} {sport} team.",
    "{name} is {a_nationality} maker of {products} based in {city}. "
    "Its products hold a record share of the home market.",
)
ATHLETE_ENTRIES = (
    "{name} (born {day} {month} {born}) is {a_nationality} professional {sport} player who plays "
    "as a {position} for {team}.",
    "{name} (born {born}) is {a_nationality} {sport} player. {pronoun} has played for {team} "
    "since {year2}.",
    "{name} is {a_nationality} {role} who represented {country} at the {year2} {games}.",
    "{name} (born {born}) is a retired {nationality} {sport} player who later founded a small "
    "{industry} company in {city}.",
    "{name} is {a_nationality} {sport} player who signed a contract with {team} in {year2}. "
    "{pronoun} was named the team's best newcomer.",
    "{name} (born {day} {month} {born}) is {a_nationality} {role}. {pronoun} won a silver medal "
    "at the {year2} {games}.",
    "{name} is {a_nationality} {role} based in {city}. {pronoun} holds the national record "
    "and is sponsored by a {industry} company.",
)


# Entries both classes use (a company sponsoring a team, an athlete playing for it).
SHARED_ENTRIES = (
    "{name} is well known in {country} and has a long history with the {team} team.",
    "{name} has been linked with {team} since {year2}, according to the {city} press.",
    "{name} made headlines in {city} in {year2} after a record season with {team}.",
)


def _dbpedia_sample(s: _Sampler, label: int) -> tuple[str, None]:
    """One DBpedia-like entry; label 0 company, 1 athlete."""
    nationality, country = s.choice(NATIONALITIES)
    industry = s.choice(INDUSTRIES)
    female = s.chance(0.5)
    year = s.integer(1850, 2012)  # founding year of a company
    weak = s.chance(0.15)  # a weak sample: a shared entry, companies often named after people
    if label == 0:
        if weak and s.chance(0.5):
            name = _person(s)
        else:
            name = _invented_name(s)
            if s.chance(0.6):
                name = f"{name} {s.choice(LEGAL_SUFFIXES)}"
        template, year2 = s.choice(COMPANY_ENTRIES), s.integer(1950, 2022)
    else:
        name = _person(s, FEMALE_NAMES if female else MALE_NAMES)
        template, year2 = s.choice(ATHLETE_ENTRIES), s.integer(1988, 2023)
    if weak:
        template = s.choice(SHARED_ENTRIES)
    slots = {
        "name": name,
        "name2": _invented_name(s),
        "nationality": nationality,
        "a_nationality": _indefinite(nationality),
        "country": country,
        "industry": industry,
        "an_industry": _indefinite(industry),
        "products": s.choice(PRODUCT_LINES),
        "city": _invented_name(s),
        "person": _person(s),
        "sport": s.choice(TEAM_SPORTS),
        "team": f"{_invented_name(s)} {s.choice(TEAM_SUFFIXES + ('FC', 'SC'))}",
        "position": s.choice(POSITIONS),
        "role": s.choice(INDIVIDUAL_ROLES),
        "games": s.choice(GAMES),
        "year": year,
        "year2": max(year2, year + 1),
        "born": s.integer(1965, 2003),
        "day": s.integer(1, 28),
        "month": s.choice(MONTHS),
        "staff": f"{s.integer(40, 60_000):,}",
        "pronoun": "She" if female else "He",
    }
    return template.format(**slots), None


# ----------------------------------------------------------------------- the suite

_GENERATORS: dict[str, _SampleGenerator] = {
    "syn_sst2": _sst2_sample,
    "syn_imdb": _imdb_sample,
    "syn_tweet": _tweet_sample,
    "syn_mnli": _mnli_sample,
    "syn_qnli": _qnli_sample,
    "syn_agnews": _agnews_sample,
    "syn_dbpedia": _dbpedia_sample,
}
# Documented length bounds (in words, see _word_count); a draw outside is redrawn.
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

    label_rng, text_rng, noise_rng = _task_rng(name, seed).spawn(3)
    labels = label_rng.permutation(np.arange(n_samples, dtype=np.int64) % n_classes)

    sampler, generator = _Sampler(text_rng), _GENERATORS[name]
    low, high = _WORD_RANGES.get(name, (0, 0))
    seen: set[tuple[str, str | None]] = set()
    texts_a: list[str] = []
    texts_b: list[str | None] = []
    for row, label in enumerate(labels.tolist()):
        for _ in range(_MAX_ATTEMPTS):
            text_a, text_b = generator(sampler, label)
            if (text_a, text_b) in seen:
                continue
            if not high or low <= _word_count(text_a) <= high:
                break
        else:
            raise ValueError(
                f"synthetic task {name!r} cannot produce {n_samples} unique samples: row {row} "
                f"found no new text in {_MAX_ATTEMPTS} draws; request fewer samples"
            )
        seen.add((text_a, text_b))
        texts_a.append(text_a)
        texts_b.append(text_b)

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
