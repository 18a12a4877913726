"""Random draws and shared building blocks of the synthetic suite's templates.

:class:`Sampler` fills templates with scalar draws from one numpy generator;
:func:`task_rng` seeds a task's generator from the seed and the task's name. The
helpers (invented names, articles, sentence case, word counts) are shared by every
task type.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Hashable, Sequence
from functools import partial
from itertools import chain
from typing import TypeVar

import numpy as np

T = TypeVar("T")

# --------------------------------------------------------------------------- sampling


class Sampler:
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


MAX_ATTEMPTS = 100  # draws per row before giving up on finding a new unique sample


def draw_unique(
    name: str,
    count: int,
    draw: Callable[[int], T],
    key: Callable[[T], Hashable],
    accept: Callable[[T], bool] = lambda sample: True,
) -> list[T]:
    """``count`` samples ``draw(row)`` whose ``key`` is new and that ``accept`` admits.

    A rejected or repeated draw is redrawn, up to :data:`MAX_ATTEMPTS` times per row.

    Raises
    ------
    ValueError
        Naming task ``name`` and the row, if a row finds no new sample.
    """
    seen: set[Hashable] = set()
    samples: list[T] = []
    for row in range(count):
        for _ in range(MAX_ATTEMPTS):
            sample = draw(row)
            if key(sample) not in seen and accept(sample):
                break
        else:
            raise ValueError(
                f"synthetic task {name!r} cannot produce {count} unique samples: row {row} "
                f"found no new text in {MAX_ATTEMPTS} draws; request fewer samples"
            )
        seen.add(key(sample))
        samples.append(sample)
    return samples


def task_rng(name: str, seed: int) -> np.random.Generator:
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


def invented_name(s: Sampler, min_syllables: int = 2, max_syllables: int = 3) -> str:
    """A capitalised made-up name such as "Varenmol"."""
    n_syllables = s.integer(min_syllables, max_syllables)
    return "".join(s.choice(SYLLABLES) for _ in range(n_syllables)).capitalize()


def person(s: Sampler, first_names: Sequence[str] = FIRST_NAMES) -> str:
    """A made-up full name such as "Clara Tonveri"."""
    return f"{s.choice(first_names)} {invented_name(s)}"


def indefinite(phrase: str) -> str:
    """``phrase`` preceded by the indefinite article that fits its first sound."""
    first = phrase.split(maxsplit=1)[0].lower()
    vowel = first[0] in "aeiou" and not first.startswith(("use", "uni", "eu", "one"))
    return f"{'an' if vowel else 'a'} {phrase}"


def sentence(text: str, end: str = ".") -> str:
    """``text`` with a capital first letter and closing punctuation."""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".?!" else text + end


_WORD = re.compile(r"\S*[^\W_]\S*")


def word_count(text: str) -> int:
    """Number of whitespace-separated tokens that contain a letter or a digit."""
    return len(_WORD.findall(text))


