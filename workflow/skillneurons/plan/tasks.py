"""Which tasks a stage runs (a config section's ``tasks`` key) and the names and paths
over them: the wildcard regex of a list of names, a Snakemake-free ``expand``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product

SPLITS = ["train", "dev", "test"]
#: The regex of a wildcard that may take no value: it matches nothing.
NO_VALUES = "(?!x)x"

#: The ``tasks`` value that lets a rule choose (see :func:`task_subset`).
AUTO = "auto"
#: Per config section, the task types ``auto`` takes the first configured task of:
#: ``random_label_words`` and ``tuning_methods`` a sentiment task (paper A §4.4 draws
#: label words for sentiment tasks first; A-F7's example is a sentiment task, and a
#: second task cost 4.5% of the default's CPU time), ``ablation`` a sentiment and a
#: topic task (table A-ablation). No such task: the first configured task.
AUTO_TYPES = {
    "random_label_words": ("sentiment",),
    "tuning_methods": ("sentiment",),
    "ablation": ("sentiment", "topic"),
}
#: Per config section, the number of first configured tasks ``auto`` takes instead:
#: ``paper_b`` the first three (part 1 and §6's order), what the default's time budget
#: holds.
AUTO_FIRST = {"paper_b": 3}


def auto_tasks(section: str, task_types: Mapping[str, str]) -> list[str]:
    """``auto``'s tasks of ``section`` among the configured ``task_types`` (name ->
    type, in configured order)."""
    if section in AUTO_FIRST:
        return list(task_types)[: AUTO_FIRST[section]]
    chosen = [
        next((task for task, kind in task_types.items() if kind == wanted), None)
        for wanted in AUTO_TYPES.get(section, ())
    ]
    chosen = [task for task in chosen if task is not None]
    return chosen or list(task_types)[:1]


def task_subset(
    section: str, chosen: Sequence[str] | str | None, task_types: Mapping[str, str]
) -> list[str]:
    """The tasks of config ``section``'s ``tasks`` key: a list names them (each must be
    configured), ``null`` takes every configured task, ``auto`` :func:`auto_tasks`.
    Raises ``ValueError`` naming the tasks of a list that are not configured."""
    if chosen == AUTO:
        return auto_tasks(section, task_types)
    tasks = list(task_types) if chosen is None else list(chosen)
    unknown = [task for task in tasks if task not in task_types]
    if unknown:
        raise ValueError(
            f"{section}.tasks {unknown} are not among the configured tasks "
            f"{list(task_types)}; name configured tasks, or write auto or null"
        )
    return tasks


def names_regex(names: Sequence[str]) -> str:
    """A wildcard regex matching exactly ``names`` (:data:`NO_VALUES` when empty)."""
    return "|".join(sorted(names)) if names else NO_VALUES


def expand(pattern: str, **values: Sequence) -> list[str]:
    """``pattern`` formatted with every combination of ``values`` (the first key
    varies slowest, as Snakemake's ``expand``); other ``{placeholders}`` stay."""
    keys = list(values)
    filled = []
    for combination in product(*(values[key] for key in keys)):
        path = pattern
        for key, value in zip(keys, combination, strict=True):
            path = path.replace("{" + key + "}", str(value))
        filled.append(path)
    return filled
