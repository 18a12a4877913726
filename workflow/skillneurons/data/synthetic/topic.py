"""Synthetic topic twins: AG News (business vs sports news) and DBpedia (company vs athlete
entries); see :mod:`skillneurons.data.synthetic`."""

from __future__ import annotations

from skillneurons.data.synthetic.sampling import (
    FEMALE_NAMES,
    MALE_NAMES,
    MONTHS,
    WEEKDAYS,
    Sampler,
    indefinite,
    invented_name,
    person,
)

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


def _company(s: Sampler) -> str:
    name = invented_name(s)
    return f"{name} {s.choice(COMPANY_SUFFIXES)}" if s.chance(0.75) else name


def _team(s: Sampler) -> str:
    name = invented_name(s)
    return f"{name} {s.choice(TEAM_SUFFIXES)}" if s.chance(0.75) else name


def agnews_sample(s: Sampler, label: int) -> tuple[str, None]:
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
        "person": person(s),
        "player": person(s),
        "period": s.choice(PERIODS),
        "metric": s.choice(METRICS),
        "product": s.choice(PRODUCTS),
        "amount": amount,
        "pct": f"{s.integer(1, 25)}.{s.integer(0, 9)}",
        "n": s.integer(2, 12),
        "jobs": s.integer(2, 90) * 100,
        "score": score,
        "day": s.choice(WEEKDAYS).capitalize(),
        "name": invented_name(s),
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


def dbpedia_sample(s: Sampler, label: int) -> tuple[str, None]:
    """One DBpedia-like entry; label 0 company, 1 athlete."""
    nationality, country = s.choice(NATIONALITIES)
    industry = s.choice(INDUSTRIES)
    female = s.chance(0.5)
    year = s.integer(1850, 2012)  # founding year of a company
    weak = s.chance(0.15)  # a weak sample: a shared entry, companies often named after people
    if label == 0:
        if weak and s.chance(0.5):
            name = person(s)
        else:
            name = invented_name(s)
            if s.chance(0.6):
                name = f"{name} {s.choice(LEGAL_SUFFIXES)}"
        template, year2 = s.choice(COMPANY_ENTRIES), s.integer(1950, 2022)
    else:
        name = person(s, FEMALE_NAMES if female else MALE_NAMES)
        template, year2 = s.choice(ATHLETE_ENTRIES), s.integer(1988, 2023)
    if weak:
        template = s.choice(SHARED_ENTRIES)
    slots = {
        "name": name,
        "name2": invented_name(s),
        "nationality": nationality,
        "a_nationality": indefinite(nationality),
        "country": country,
        "industry": industry,
        "an_industry": indefinite(industry),
        "products": s.choice(PRODUCT_LINES),
        "city": invented_name(s),
        "person": person(s),
        "sport": s.choice(TEAM_SPORTS),
        "team": f"{invented_name(s)} {s.choice(TEAM_SUFFIXES + ('FC', 'SC'))}",
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


