"""Synthetic generation twins of paper B's six generation tasks (Table 3).

Paper B (§5, appendix A.5) trains on CNN/DailyMail, SciQ and E2E and tests out of
domain on XSum, TweetQA and CommonGen: summarization, question generation and
data-to-text, one training and one test task per type. Each twin below mirrors one
of them offline: a training twin and an out-of-domain twin of a type share the
skill (what to keep of a passage, what to ask about a fact, how to verbalize
attributes) and differ in wording and surface form, so a model trained on one can
be scored on the other. Targets are deterministic functions of the drawn facts, so
ROUGE-L against them measures whether the skill was learnt. Every template and
lexicon is written for this project.

:func:`generate_generation_task` returns ``source`` / ``target`` pairs,
deterministic from ``(task, n_samples, seed)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from skillneurons.data.synthetic.sampling import (
    MONTHS,
    WEEKDAYS,
    Sampler,
    draw_unique,
    indefinite,
    invented_name,
    person,
    sentence,
    task_rng,
)


@dataclass(frozen=True)
class GenerationTwin:
    """A synthetic generation task and the paper-B task it mirrors.

    Attributes
    ----------
    name : registry name (``syn_*``).
    twin : the paper-B task (``cnn_dailymail``, ``xsum``, ``sciq``, ``tweet_qa``,
        ``e2e_nlg``, ``common_gen``).
    type : ``"summarization"``, ``"question_generation"`` or ``"data_to_text"``.
    description : one sentence on the sources and targets.
    """

    name: str
    twin: str
    type: str
    description: str


GENERATION_TWINS: dict[str, GenerationTwin] = {
    twin.name: twin
    for twin in (
        GenerationTwin(
            "syn_cnndm",
            "cnn_dailymail",
            "summarization",
            "News passages of four to six sentences (the event first, then details, a quote "
            "and background); the target is a one-sentence highlight of the event.",
        ),
        GenerationTwin(
            "syn_xsum",
            "xsum",
            "summarization",
            "Short reports that open with background and give the event later; the target "
            "is a one-sentence summary worded differently from the passage.",
        ),
        GenerationTwin(
            "syn_sciq",
            "sciq",
            "question_generation",
            "A science fact (what, where, which property); the target is the question "
            "the fact answers.",
        ),
        GenerationTwin(
            "syn_tweetqa",
            "tweet_qa",
            "question_generation",
            "A tweet announcing who does what, where and when; the target is a question "
            "about one of those facts.",
        ),
        GenerationTwin(
            "syn_e2e",
            "e2e_nlg",
            "data_to_text",
            "A restaurant's attribute-value record (name[...], food[...], ...); the target "
            "is one sentence that states every attribute.",
        ),
        GenerationTwin(
            "syn_commongen",
            "common_gen",
            "data_to_text",
            "Three or four concepts (a person, an action, an object, a place); the target "
            "is a sentence that uses them all.",
        ),
    )
}

# ------------------------------------------------------------------ summarization

ORGANISATIONS = ("city council", "harbour authority", "water board", "school board", "museum")
DECISIONS = (
    ("approved", "a new bridge over the river"),
    ("rejected", "a plan to close the old library"),
    ("announced", "free bus travel for students"),
    ("postponed", "the opening of the northern park"),
    ("approved", "a budget for two new schools"),
    ("cancelled", "the summer music festival"),
)
REASONS = (
    "after months of debate", "following a public vote", "citing rising costs",
    "after complaints from residents", "to cut traffic in the centre",
)  # fmt: skip
DETAILS = (
    "The decision was taken by a large majority.", "Work is expected to take two years.",
    "Local shops have welcomed the news.", "Opposition members called the move rushed.",
    "The cost is estimated at four million.", "A final report will follow in spring.",
)  # fmt: skip
BACKGROUNDS = (
    "The town has grown quickly over the last decade.",
    "Similar plans were discussed five years ago.",
    "The region has seen heavy rain this year.",
    "Visitor numbers have doubled since the railway opened.",
)


def _news_facts(s: Sampler) -> tuple[str, str, str, str, str]:
    town = invented_name(s)
    organisation = s.choice(ORGANISATIONS)
    verb, what = s.choice(DECISIONS)
    return town, organisation, verb, what, s.choice(REASONS)


def cnndm_sample(s: Sampler) -> tuple[str, str]:
    """A CNN/DailyMail-like passage (event first) and its highlight."""
    town, organisation, verb, what, reason = _news_facts(s)
    spokesperson = person(s)
    details = s.shuffled(DETAILS)[: s.integer(1, 3)]
    passage = [
        f"The {organisation} of {town} has {verb} {what} {reason}.",
        *details,
        f'"This matters for everyone in {town}," said {spokesperson}, a spokesperson.',
        s.choice(BACKGROUNDS),
    ]
    target = f"{town} {organisation} {verb} {what}."
    return " ".join(passage), sentence(target)


def xsum_sample(s: Sampler) -> tuple[str, str]:
    """An XSum-like report (background first, the event later) and its summary."""
    town, organisation, verb, what, reason = _news_facts(s)
    month = s.choice(MONTHS)
    passage = [
        s.choice(BACKGROUNDS),
        f"Members met in {month} to discuss the matter.",
        f"On {s.choice(WEEKDAYS).capitalize()}, they {verb} {what}, {reason}.",
        s.choice(DETAILS),
    ]
    target = f"Officials in {town} have {verb} {what}."
    return f"{town}: " + " ".join(passage), target


# ------------------------------------------------------------ question generation

# Fact templates about invented things: (fact, question), filled with a name {x} and
# a value {v} drawn from the template's values.
SCIENCE_FACTS = (
    ("the {x} beetle feeds on {v}", "what does the {x} beetle feed on",
     ("leaves", "tree bark", "nectar", "small insects", "fallen fruit")),
    ("{X} is a mineral that forms in {v}", "where does {x} form",
     ("volcanic rock", "deep caves", "sea water", "hot springs")),
    ("the planet {X} orbits the star {v}", "which star does the planet {X} orbit",
     ("Altor", "Besca", "Corvin", "Delmar")),
    ("{X} melts at {v} degrees", "at what temperature does {x} melt",
     ("forty", "ninety", "two hundred", "six hundred")),
    ("the {x} tree grows best in {v}", "where does the {x} tree grow best",
     ("sandy soil", "wet forests", "high mountains", "river valleys")),
    ("the {x} fish uses {v} to find food", "what does the {x} fish use to find food",
     ("its long whiskers", "electric signals", "its sense of smell", "light from its head")),
    ("{X} gas is produced when {v}", "when is {x} gas produced",
     ("iron rusts", "sugar ferments", "wood burns", "salt dissolves")),
)  # fmt: skip
SCIENCE_PREFIXES = ("", "In biology, ", "Scientists have found that ", "It is known that ")


def sciq_sample(s: Sampler) -> tuple[str, str]:
    """A SciQ-like supporting fact and the question it answers."""
    fact, question, values = s.choice(SCIENCE_FACTS)
    name = invented_name(s)
    fill = {"x": name.lower(), "X": name, "v": s.choice(values)}
    return sentence(s.choice(SCIENCE_PREFIXES) + fact.format(**fill)), sentence(
        question.format(**fill), "?"
    )


TWEET_EVENTS_QA = ("quiz night", "book sale", "charity run", "street party", "open day")
TWEET_PLACES_QA = ("the old mill", "central park", "the town library", "riverside hall")


def tweetqa_sample(s: Sampler) -> tuple[str, str]:
    """A TweetQA-like tweet and a question about one of its facts."""
    host = f"@{invented_name(s).lower()}"
    event, place, day = s.choice(TWEET_EVENTS_QA), s.choice(TWEET_PLACES_QA), s.choice(WEEKDAYS)
    if s.chance(0.5):
        tweet = f"{host} is hosting the {event} at {place} on {day}! come along #local"
    else:
        tweet = f"{day} = {event} at {place}, hosted by {host} :) who's in? #weekend"
    asked = s.integer(0, 2)
    if asked == 0:
        question = f"who is hosting the {event} at {place}"
    elif asked == 1:
        question = f"where is {host} hosting the {event}"
    else:
        question = f"on which day is the {event} at {place}"
    return tweet, sentence(question, "?")


# -------------------------------------------------------------------- data-to-text

FOODS = ("French", "Italian", "Chinese", "Indian", "Japanese", "English")
PRICES = ("cheap", "moderately priced", "expensive")
AREAS = ("riverside", "city centre")
VENUES = ("restaurant", "pub", "coffee shop")


def e2e_sample(s: Sampler) -> tuple[str, str]:
    """An E2E-like meaning representation and its verbalization."""
    name = f"The {invented_name(s)}"
    venue, food, price, area = s.choice(VENUES), s.choice(FOODS), s.choice(PRICES), s.choice(AREAS)
    family = s.chance(0.5)
    record = f"name[{name}], eatType[{venue}], food[{food}], priceRange[{price}], area[{area}]"
    where = "by the riverside" if area == "riverside" else "in the city centre"
    text = f"{name} is {indefinite(f'{price} {food} {venue}')} {where}"
    if s.chance(0.5):
        record += f", familyFriendly[{'yes' if family else 'no'}]"
        text += f" that is {'' if family else 'not '}family friendly"
    return record, sentence(text)


# (concept, its verb form, objects, places where it happens)
COMMONGEN_AGENTS = ("girl", "man", "boy", "woman", "child", "farmer", "student", "teacher")
COMMONGEN_ACTIONS = (
    ("throw", "throws", ("ball", "frisbee", "stick"), ("park", "beach", "yard")),
    ("read", "reads", ("book", "newspaper", "letter"), ("library", "kitchen", "train")),
    ("ride", "rides", ("bike", "horse", "skateboard"), ("street", "field", "park")),
    ("paint", "paints", ("fence", "picture", "wall"), ("garden", "studio", "yard")),
    ("carry", "carries", ("box", "bag", "basket"), ("street", "market", "station")),
    ("cook", "cooks", ("soup", "pasta", "breakfast"), ("kitchen", "restaurant", "camp")),
)


def commongen_sample(s: Sampler) -> tuple[str, str]:
    """A CommonGen-like concept set and a sentence that uses every concept."""
    agent = s.choice(COMMONGEN_AGENTS)
    action, verb, objects, places = s.choice(COMMONGEN_ACTIONS)
    obj = s.choice(objects)
    concepts = [agent, action, obj]
    text = f"the {agent} {verb} {indefinite(obj)}"
    if s.chance(0.6):
        place = s.choice(places)
        concepts.append(place)
        text += (
            f" at the {place}" if place in ("station", "market", "beach") else f" in the {place}"
        )
    return ", ".join(s.shuffled(concepts)), sentence(text)


# ----------------------------------------------------------------------- the suite

_GENERATORS: dict[str, Callable[[Sampler], tuple[str, str]]] = {
    "syn_cnndm": cnndm_sample,
    "syn_xsum": xsum_sample,
    "syn_sciq": sciq_sample,
    "syn_tweetqa": tweetqa_sample,
    "syn_e2e": e2e_sample,
    "syn_commongen": commongen_sample,
}


def generate_generation_task(name: str, n_samples: int, seed: int) -> pd.DataFrame:
    """``n_samples`` unique ``(source, target)`` pairs of a generation twin.

    Raises
    ------
    ValueError
        If the task is unknown, ``n_samples`` is not positive, ``seed`` is negative,
        or the task cannot produce ``n_samples`` unique sources.
    """
    if name not in GENERATION_TWINS:
        known = ", ".join(GENERATION_TWINS)
        raise ValueError(f"synthetic generation task {name!r} is not defined; known: {known}")
    if n_samples < 1:
        raise ValueError(f"synthetic task {name!r}: n_samples must be positive, got {n_samples}")
    if seed < 0:
        raise ValueError(f"synthetic task {name!r}: seed must be non-negative, got {seed}")
    sampler, generator = Sampler(task_rng(name, seed)), _GENERATORS[name]
    pairs = draw_unique(name, n_samples, lambda row: generator(sampler), key=lambda pair: pair[0])
    return pd.DataFrame(pairs, columns=["source", "target"]).astype("str")
