"""Which configured tasks a stage runs on: a config section's ``tasks`` key.

A list names the tasks (each must be configured); ``null`` takes every configured
task; ``auto`` (the default of the stages sized down for CPU) takes a rule that follows
the configured tasks, so that a config of one's own tasks never inherits task names it
does not have:

``random_label_words``  the first sentiment task, else the first task (paper A, §4.4
                        draws label words for sentiment tasks first);
``tuning_methods``      the first sentiment task, else the first task (paper A's A-F7
                        example is a sentiment task; a second task cost 4.5% of the
                        default's CPU time);
``ablation``            the first sentiment and the first topic task, else the first
                        task (table A-ablation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

AUTO = "auto"
#: Per section, the task types ``auto`` takes the first task of.
AUTO_TYPES = {
    "random_label_words": ("sentiment",),
    "tuning_methods": ("sentiment",),
    "ablation": ("sentiment", "topic"),
}


def auto_tasks(section: str, task_types: Mapping[str, str]) -> list[str]:
    """``auto``'s tasks of ``section`` among the configured ``task_types`` (name ->
    type, in configured order)."""
    chosen = [
        next((task for task, kind in task_types.items() if kind == wanted), None)
        for wanted in AUTO_TYPES.get(section, ())
    ]
    chosen = [task for task in chosen if task is not None]
    return chosen or list(task_types)[:1]


def task_subset(
    section: str, chosen: Sequence[str] | str | None, task_types: Mapping[str, str]
) -> list[str]:
    """The tasks of config ``section`` (the module docstring). Raises ``ValueError``
    naming the tasks of an explicit list that are not configured."""
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
