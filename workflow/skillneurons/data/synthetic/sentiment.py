"""Synthetic sentiment twins: SST-2 (short critic lines), IMDB (longer reviews with plot
filler) and TweetEval (tweets, with a neutral class of announcements and questions); see
:mod:`skillneurons.data.synthetic`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from skillneurons.data.synthetic.sampling import (
    WEEKDAYS,
    Sampler,
    indefinite,
    invented_name,
    sentence,
)



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


def _graded_adjective(s: Sampler, polarity: int, words: _PolarWords) -> str:
    """An adjective of ``polarity`` (+1 / -1), sometimes intensified or toned down."""
    adjective = s.choice(words.of(polarity))
    grade = s.uniform()
    if grade < 0.3:
        return f"{s.choice(INTENSIFIERS)} {adjective}"
    if grade < 0.45:
        return f"{s.choice(DOWNTONERS)} {adjective}"
    return adjective


def _two_adjectives(s: Sampler, polarity: int, words: _PolarWords) -> tuple[str, str]:
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
    s: Sampler,
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


def _film_topic(s: Sampler, polarity: int, distractor_rate: float) -> str:
    """A film topic; with ``distractor_rate`` one worded with the opposite polarity."""
    if s.chance(distractor_rate):
        opposite = TOPICS_WITH_POSITIVE_WORDS if polarity < 0 else TOPICS_WITH_NEGATIVE_WORDS
        return s.choice(opposite)
    return s.choice(NEUTRAL_TOPICS)


# Shares of the hard SST-2 forms; the rest state the label's polarity directly.
SST2_NEGATION_SHARE = 0.06
SST2_CONTRAST_SHARE = 0.06
SST2_DISTRACTOR_SHARE = 0.04


def sst2_sample(s: Sampler, label: int) -> tuple[str, None]:
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
            s, f"{indefinite(noun)} about {topic} that", polarity, SST2_WORDS, 0
        )
    elif form < 0.4:  # two agreeing clauses: "the plot is clever and the cast is superb"
        first_aspect = s.choice(MOVIE_ASPECTS)
        second_aspect = s.other(MOVIE_ASPECTS, first_aspect)
        first = _opinion_clause(s, first_aspect, polarity, SST2_WORDS, 0.0)
        second = _opinion_clause(s, second_aspect, polarity, SST2_WORDS, 0.0)
        text = f"{first} and {second}"
    elif form < 0.7:  # an attributive phrase: "a witty and truly charming comedy about ..."
        first, second = _two_adjectives(s, polarity, SST2_WORDS)
        text = indefinite(f"{first} and {second} {s.choice(FILM_NOUNS)}")
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


def _plot_sentence(s: Sampler, form: int, events: Sequence[str] = PLOT_EVENTS) -> str:
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


def _review_opinion(s: Sampler, polarity: int, negated: bool = False) -> str:
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
IMDB_VERDICT_RATE = 0.5


def imdb_sample(s: Sampler, label: int) -> tuple[str, None]:
    """One IMDB-like review; label 0 negative, 1 positive.

    Two or three opinion sentences are shuffled among one or two neutral plot
    sentences, and the review closes with a verdict of the label's polarity (a share
    :data:`IMDB_VERDICT_RATE`; the others with one more opinion, so that five
    verdict templates per class are no giveaway). Hard
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
    if s.chance(IMDB_VERDICT_RATE):
        closing = s.choice(POSITIVE_VERDICTS if polarity > 0 else NEGATIVE_VERDICTS)
    else:
        closing = _review_opinion(s, polarity)
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
    return " ".join(sentence(part) for part in sentences), None


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
# Places and events of tweets; some names contain polarity words.
TWEET_PLACES = (
    "the great hall", "happy valley library", "the good shepherd clinic", "the fun fair grounds",
    "central station", "the city museum", "the north gym", "the public pool", "the town hall",
)  # fmt: skip
TWEET_RELEASES = ("the new update", "the new album", "the new episode", "the season finale")
TWEET_SERVICES = ("my flight", "the bus", "the train", "the new update", "my parcel")
TWEET_SHOWS = ("the late news", "cooking with sam", "the quiz hour", "city stories", "wild coast")


def _tweet_time(s: Sampler) -> str:
    minute = s.choice(("", ":15", ":30", ":45"))
    return f"{s.integer(1, 12)}{minute}{s.choice(('am', 'pm'))}"


def _when(s: Sampler) -> str:
    """A time reference: "on friday", "at 6:30pm", "this weekend", "tonight"."""
    form = s.integer(0, 4)
    if form == 0:
        return f"on {s.choice(WEEKDAYS)}"
    if form == 1:
        return f"at {_tweet_time(s)}"
    if form == 2:
        return f"on {s.choice(WEEKDAYS)} at {_tweet_time(s)}"
    return s.choice(("tonight", "this weekend", "this morning", "next week", "today"))


def _when_past(s: Sampler) -> str:
    """A time reference for something that happened: "on friday", "last night"."""
    if s.chance(0.4):
        return f"on {s.choice(WEEKDAYS)}"
    return s.choice(("last night", "this morning", "today", "yesterday", "at lunch"))


def _where(s: Sampler) -> str:
    """A place reference: "at the city museum", "at the jazz festival"."""
    if s.chance(0.5):
        return f"at {s.choice(TWEET_PLACES)}"
    return f"at the {s.choice(TWEET_EVENTS)}"


def _announcement(s: Sampler) -> str:
    """A factual statement about an event, place, show or thing; times are optional."""
    when = _when(s) if s.chance(0.6) else ""
    form = s.integer(0, 9)
    if form == 0:
        text = f"the {s.choice(TWEET_EVENTS)} starts {when or 'soon'}"
    elif form == 1:
        text = f"{s.choice(TWEET_PLACES)} is open {when or 'again'}"
    elif form == 2:
        moved = s.choice(("has moved", "was moved"))
        text = f"the {s.choice(TWEET_EVENTS)} {moved} {when or 'to the main square'}"
    elif form == 3:
        text = f"new episode of {s.choice(TWEET_SHOWS)} airs {when or 'this week'}"
    elif form == 4:
        home, away = invented_name(s).lower(), invented_name(s).lower()
        text = f"{home} vs {away} {when or 'is on the radio'}"
    elif form == 5:
        text = f"{s.choice(TWEET_RELEASES)} comes out {when or 'soon'}"
    elif form == 6:
        delayed = s.choice(("is delayed", "was delayed", "was cancelled"))
        text = f"{s.choice(TWEET_SERVICES)} {delayed} {when or 'again'}"
    elif form == 7:
        first, second = s.shuffled(TWEET_EVENTS)[:2]
        text = f"the {first} and the {second} are both {when or 'this weekend'}"
    else:
        text = f"bus {s.integer(2, 99)} will run every {s.integer(2, 6) * 5} minutes {when}"
    if s.chance(0.2):
        text = f"{s.choice(('reminder,', 'update:', 'fyi,', 'heads up,'))} {text}"
    return text.strip()


def _factual_tweet(s: Sampler) -> str:
    """A neutral tweet: an announcement, a plan or a question without an opinion.

    A share :data:`TWEET_HARD_NEUTRAL_SHARE` asks about quality or reports that
    opinions are mixed, so polarity words ("good", "worth it", "love") appear in
    neutral tweets too, as in TweetEval's neutral class.
    """
    form = s.uniform()
    thing = s.choice(TWEET_THINGS)
    if form < TWEET_HARD_NEUTRAL_SHARE:
        return s.choice(
            (
                f"is {thing} any good?",
                f"has anyone tried {thing}? is it worth it",
                f"not sure yet what i think about {thing}",
                f"{thing}: love it or hate it?",
                f"some say {thing} is {s.choice(TWEET_WORDS.of(1))}, some say it is "
                f"{s.choice(TWEET_WORDS.of(-1))}",
            )
        )
    if form < 0.55:
        return _announcement(s)
    if form < 0.75:
        activity = s.choice(("heading to", "going to", "on my way to", "waiting at"))
        return f"{activity} {_where(s)[3:]} {_when(s) if s.chance(0.5) else ''}".strip()
    if form < 0.9:
        return f"does anyone know if {s.choice(TWEET_PLACES)} is open {_when(s)}?"
    return f"just {s.choice(TWEET_ACTIVITIES)} {_when(s) if s.chance(0.4) else ''}".strip()


# Shares of the hard forms among opinion tweets; the rest state the polarity twice
# (two adjectives, or an adjective and a reaction) or in a plain clause. The reaction
# form (an announcement followed by a polar reaction) reads like a neutral tweet but
# for its reaction; a share of the other forms carries a time or place detail.
TWEET_NEGATION_SHARE = 0.06
TWEET_CONTRAST_SHARE = 0.06
TWEET_DISTRACTOR_SHARE = 0.04
TWEET_REACTION_SHARE = 0.1
TWEET_DETAIL_RATE = 0.3
# Neutral tweets that ask about quality or report mixed opinions.
TWEET_HARD_NEUTRAL_SHARE = 0.12


def _opinion_tweet(s: Sampler, polarity: int) -> tuple[str, bool]:
    """A tweet expressing ``polarity`` (+1 / -1) about something.

    Returns the text and whether an emoticon added to it should contradict the
    polarity (the distractor form: one adjective and an emoticon of the other
    polarity).
    """
    text, mismatched = _opinion_text(s, polarity)
    if s.chance(TWEET_DETAIL_RATE):
        text = f"{text} {_when_past(s) if s.chance(0.5) else _where(s)}"
    return text, mismatched


def _opinion_text(s: Sampler, polarity: int) -> tuple[str, bool]:
    form = s.uniform()
    copulas = ("is", "was")
    thing = s.choice(TWEET_THINGS)
    hard_negation = TWEET_NEGATION_SHARE
    hard_contrast = hard_negation + TWEET_CONTRAST_SHARE
    hard_distractor = hard_contrast + TWEET_DISTRACTOR_SHARE
    reaction_form = hard_distractor + TWEET_REACTION_SHARE
    if form < hard_negation:  # "the new album is not very lame"
        return _opinion_clause(s, thing, polarity, TWEET_WORDS, 1.0, copulas), False
    if form < hard_contrast:
        first = _opinion_clause(s, thing, -polarity, TWEET_WORDS, 0.0, copulas)
        second_thing = s.other(TWEET_THINGS, thing)
        second = _opinion_clause(s, second_thing, polarity, TWEET_WORDS, 0.0, copulas)
        return f"{first} but {second}", False
    if form < hard_distractor:
        return _opinion_clause(s, thing, polarity, TWEET_WORDS, 0.0, copulas), True
    reaction = s.choice(POSITIVE_REACTIONS if polarity > 0 else NEGATIVE_REACTIONS)
    if form < reaction_form:  # "the book fair has moved on friday, so done with this"
        return f"{_announcement(s)}, {reaction}", False
    if form < 0.4:
        clause = _opinion_clause(s, thing, polarity, TWEET_WORDS, 0.0, copulas)
        return f"{clause}, {reaction}", False
    if form < 0.58:
        first, second = _two_adjectives(s, polarity, TWEET_WORDS)
        return f"{thing} {s.choice(copulas)} {first} and {second}", False
    if form < 0.72:  # no copula: "the new album: amazing", "so lame today"
        if s.chance(0.5):
            return f"{thing}: {_graded_adjective(s, polarity, TWEET_WORDS)}", False
        word = s.choice(TWEET_WORDS.of(polarity))
        return f"so {word} {s.choice(('today', 'honestly', 'lol'))}", False
    if form < 0.85:
        clause = _opinion_clause(s, "it", polarity, TWEET_WORDS, 0.0, ("was",))
        return f"just {s.choice(TWEET_ACTIVITIES)} and {clause}", False
    # "can't" here does not negate the opinion
    adjective = _graded_adjective(s, polarity, TWEET_WORDS)
    return f"can't believe how {adjective} {thing} was", False


def tweet_sample(s: Sampler, label: int) -> tuple[str, None]:
    """One tweet; label 0 negative, 1 neutral, 2 positive.

    Neutral and opinion tweets share their surface: both name the same things,
    events, places, days and times, neutral tweets sometimes ask about quality and
    opinion tweets sometimes react to an announcement, so that no small family of
    words (a weekday, "pm", "starts at") gives the neutral class away
    (:mod:`skillneurons.data.word_cues`).
    """
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


