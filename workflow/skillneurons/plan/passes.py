"""Prompt-tuning trials in passes (paper A, §2.1): which trials one job trains
together.

With ``k`` trials per pass, pass ``g`` holds trials ``g*k .. g*k+k-1`` (the last one
capped at the number of trials), whatever the number of trials. Adding trials therefore
leaves every full pass as it was: it changes at most the last, partial pass, and with a
number of trials that is a multiple of ``k`` it adds new passes only. A pass is named by
its first and last trial (``"2-3"``), so a pass that grows is a new name, not a changed
job of an old one.
"""

from __future__ import annotations

import re

PASS_NAME = re.compile(r"(\d+)-(\d+)")


def trial_passes(trials: int, per_pass: int) -> list[range]:
    """The passes of ``trials`` trials (numbered from 0), ``per_pass`` trials each but
    the last: ``trial_passes(5, 2) == [range(0, 2), range(2, 4), range(4, 5)]``."""
    if per_pass < 1:
        raise ValueError(f"trials per pass must be at least 1, got {per_pass}")
    return [range(first, min(first + per_pass, trials)) for first in range(0, trials, per_pass)]


def pass_name(members: range) -> str:
    """A pass's name: its first and last trial, ``"2-3"``."""
    return f"{members[0]}-{members[-1]}"


def pass_of(trial: int, trials: int, per_pass: int) -> str:
    """The name of the pass that trains ``trial`` of ``trials``, ``per_pass`` a pass."""
    if not 0 <= trial < trials:
        raise ValueError(f"trial {trial} is not among the {trials} trials")
    return pass_name(trial_passes(trials, per_pass)[trial // per_pass])


def pass_trials(name: str) -> list[int]:
    """The trials of the pass called ``name`` (:func:`pass_name`), in order."""
    match = PASS_NAME.fullmatch(name)
    if match is None or int(match.group(1)) > int(match.group(2)):
        raise ValueError(f"{name!r} is not a pass name (first-last trial, e.g. '2-3')")
    return list(range(int(match.group(1)), int(match.group(2)) + 1))
