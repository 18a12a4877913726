"""Synthetic inference twins: MNLI (scene premises and hypotheses) and QNLI (questions
about invented places and a sentence that may answer them); see
:mod:`skillneurons.data.synthetic`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import NamedTuple

from skillneurons.data.synthetic.sampling import (
    Sampler,
    indefinite,
    invented_name,
    person,
    sentence,
)

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
# Contradicting hypotheses that name the agent by its generalisation, as entailed ones
# do ("A person is sleeping."), so that "person" or "someone" is no entailment cue.
MNLI_GENERAL_AGENT_CONTRADICTION_RATE = 0.3
# Of the other contradicting hypotheses, the share with an activity of another kind
# rather than a resting state (which names its place half of the time).
MNLI_OTHER_ACTIVITY_RATE = 0.25


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
        return sentence(" ".join(words))


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
    return indefinite(words) if draw.determiner in ("a", "an") else f"{draw.determiner} {words}"


def _attire(color: str, garment: str) -> str:
    return f"in {indefinite(f'{color} {garment}')}"


def _entailed(s: Sampler, draw: _SceneDraw, hypothesis: _Scene) -> _Scene:
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


def _contradicting(s: Sampler, draw: _SceneDraw, hypothesis: _Scene) -> _Scene:
    """Replace the premise's predicate by an incompatible one; details may generalise.

    Most hypotheses put the agent in a resting state ("is sleeping") or in an
    activity of another kind. A share :data:`MNLI_NEGATED_CONTRADICTION_SHARE`
    negates the predicate instead ("is not playing a guitar", "nobody is ..."), and
    a share :data:`MNLI_SWAPPED_CONTRADICTION_SHARE` keeps it but swaps the agent,
    the place or the colour of the attire for an incompatible one.
    """
    if draw.place and s.chance(0.3):
        hypothesis = replace(hypothesis, place=draw.place[1])
    if s.chance(MNLI_GENERAL_AGENT_CONTRADICTION_RATE):
        agent = draw.general_agent if s.chance(0.75) else "someone"
        hypothesis = replace(hypothesis, agent=agent, plural=_is_plural(agent), attire=None)
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
    if s.chance(MNLI_OTHER_ACTIVITY_RATE):  # an activity of another kind, in the same place
        others = [entry for entry in MNLI_ACTIVITIES if entry[2] != draw.group]
        other = s.choice(others)
        return replace(hypothesis, activity=other[0] if s.chance(0.6) else other[1], extra=None)
    resting = s.choice(MNLI_RESTING)
    place = s.choice(MNLI_RESTING_PLACES) if s.chance(0.5) else None
    return replace(hypothesis, activity=resting, place=place, extra=None)


def _neutral(
    s: Sampler, draw: _SceneDraw, premise: _Scene, hypothesis: _Scene
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


def mnli_sample(s: Sampler, label: int) -> tuple[str, str]:
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
    return sentence(template.format(x=subject, **slots))


# Shares of the not-entailed QNLI sentences that need the question to be told from an
# answer: another relation that questions ask about (of the asked entity), and the
# asked relation of another entity (half of them described relative to the asked
# one, so the asked name is in the sentence). The rest state a background fact.
QNLI_OTHER_RELATION_SHARE = 0.1
QNLI_OTHER_ENTITY_SHARE = 0.15
# Share of entailed sentences with an apposition naming another entity.
QNLI_APPOSITION_SHARE = 0.1


def qnli_sample(s: Sampler, label: int) -> tuple[str, str]:
    """One QNLI-like pair; label 0 entailment, 1 not_entailment.

    Entailment: the sentence states the asked relation of the asked entity (in a
    share :data:`QNLI_APPOSITION_SHARE` with an apposition naming another entity).
    Not entailment: mostly a background fact about the asked entity; shares
    :data:`QNLI_OTHER_RELATION_SHARE` state another asked-about relation of it and
    :data:`QNLI_OTHER_ENTITY_SHARE` the asked relation of another entity, half of the
    time one described by its position relative to the asked one.
    """
    name = partial(invented_name, s, 2, 2)  # short names: few word pieces
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
        "person": person(s),
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
    question = sentence(s.choice(relations[asked].questions).format(x=subject), end="?")

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


