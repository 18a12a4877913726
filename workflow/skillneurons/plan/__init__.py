"""The workflow's plan: every derived list and task choice the rule files use, computed
once from the validated configuration (:func:`skillneurons.config.validate_config`),
free of Snakemake so that it is tested like the rest of the library.

``workflow/rules/common.smk`` builds one :class:`Plan`; rule files read it and keep no
state of their own. The plan names no file a rule writes: a rule's outputs are written
in the rule, and its consumers take them as ``rules.<name>.output``; the only paths here
are the targets, which the figure registries give (``results/{model}/...``). Nothing in
the library imports this package: it sits above both papers, beside
:mod:`skillneurons.config`.

- :mod:`.tasks`: which tasks a stage runs on (a config section's ``tasks`` key), the
  wildcard regex of a list of names;
- :mod:`.passes`: which prompt-tuning trials one job trains together;
- :mod:`.paper_a`: paper A's lists, the task each single-task figure shows
  (:attr:`Plan.figure_tasks`: decided here and only here) and its targets;
- :mod:`.paper_b`: paper B's tasks, task families, groups, orders, scoring and targets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from skillneurons.data.tasks import TaskSpec, resolve_tasks
from skillneurons.models.label_words import task_label_words
from skillneurons.models.specs import gguf_models, resolve_models
from skillneurons.paper_a.registry import PAPER_A
from skillneurons.paper_b.registry import PAPER_B
from skillneurons.plan.paper_a import PaperAPlan
from skillneurons.plan.paper_b import FAMILIES, PaperBPlan
from skillneurons.plan.passes import pass_of
from skillneurons.plan.tasks import (
    AUTO,
    AUTO_FIRST,
    AUTO_TYPES,
    NO_VALUES,
    SPLITS,
    auto_tasks,
    names_regex,
    task_subset,
)
from skillneurons.reporting.registry import reported_files

__all__ = [
    "AUTO_FIRST",
    "AUTO_TYPES",
    "FAMILIES",
    "NO_VALUES",
    "SPLITS",
    "Plan",
    "auto_tasks",
    "names_regex",
    "task_subset",
]


class Plan(PaperAPlan, PaperBPlan):
    """What the configuration ``config`` (validated) asks the workflow to build."""

    def __init__(self, config: Mapping):
        self.config = config
        self.tasks: dict[str, TaskSpec] = resolve_tasks(
            config["tasks"], config["task_definitions"]
        )
        self.task_types = {name: spec.type for name, spec in self.tasks.items()}
        self.models = resolve_models(config["models"], config["model_definitions"])
        #: Models read from a GGUF file, converted once to data/models/{model}.
        self.gguf_models = gguf_models(config["models"], config["model_definitions"])
        self.splits = list(SPLITS)
        self.trials = list(range(config["prompt_tuning"]["trials"]))
        #: Prompt-tuning trials trained together by one job (skillneurons.plan.passes).
        self.trials_per_pass = config["prompt_tuning"]["trials_per_pass"]
        #: The findings engine's settings for the intervals figures draw (keyword
        #: arguments of skillneurons.reporting.findings.BootstrapSettings; min_runs only
        #: decides verdicts).
        self.intervals = {
            "resamples": config["findings"]["bootstrap"],
            "alpha": config["findings"]["alpha"],
            "seed": config["seed"],
        }
        #: The sections whose ``tasks: auto`` chose, and what (for the log).
        self.auto_choices: dict[str, list[str]] = {}
        self._plan_paper_a(config)
        self._plan_paper_b(config)

    # ------------------------------------------------------------ every stage

    def task_subset(self, section: str) -> list[str]:
        """The tasks of config ``section``'s ``tasks`` key (:func:`task_subset`)."""
        chosen = self.config[section]["tasks"]
        tasks = task_subset(section, chosen, self.task_types)
        if chosen == AUTO:
            self.auto_choices[f"{section}.tasks"] = tasks
        return tasks

    def seeds(self, trials) -> list[int]:
        """Config ``seed`` + t for each trial t of ``trials``: trial t's training seed,
        and the seed of its noise and random orders where a job perturbs it."""
        return [self.config["seed"] + int(trial) for trial in trials]

    def first_task(self, condition: Callable[[TaskSpec], bool]) -> str | None:
        """The first configured task whose spec satisfies ``condition`` (None if none)."""
        return next((name for name, spec in self.tasks.items() if condition(spec)), None)

    def prompt_pass(self, trial: int) -> str:
        """The name of the prompt-tuning pass that trains ``trial`` (one job trains a
        pass's trials together; :mod:`skillneurons.plan.passes`)."""
        return pass_of(trial, len(self.trials), self.trials_per_pass)

    def label_words(self, task: str) -> list[str]:
        """The verbalizer's label words of a task (skillneurons.models.label_words)."""
        return list(task_label_words(self.tasks[task], self.config["label_words"].get(task)))

    def tasks_from(self, source: str) -> list[str]:
        """The configured tasks whose examples come from ``source`` (hub, synthetic, file)."""
        return [name for name, spec in self.tasks.items() if spec.source == source]

    def subtasks(self, task: str) -> list[str]:
        """The names of a task's binary subtasks (none for a binary task)."""
        return [sub.name for sub in self.tasks[task].subtasks]

    def subtask_wildcards(self) -> dict[str, list[str]]:
        """The wildcards of every split of every binary subtask, as lists to zip
        (``expand(pattern, zip, **these)``): task, then split, then subtask."""
        rows = [
            (task, split, subtask)
            for task in self.tasks
            for split in SPLITS
            for subtask in self.subtasks(task)
        ]
        return {
            key: [row[index] for row in rows]
            for index, key in enumerate(("task", "split", "subtask"))
        }

    def makes(self, paper_id: str, model: str) -> bool:
        """Whether this configuration makes the figure or table ``paper_id`` of either
        registry (``A-T2``, ``paper B claims``) on ``model`` (:meth:`reported_results`)."""
        return any(ids == paper_id for ids, _ in self.reported_results(model))

    def reported_results(self, model: str) -> list[tuple[str, str]]:
        """(paper ID, path) of every result of ``model`` the report shows, in registry
        order: the verdict summary's links (:func:`skillneurons.reporting.verdicts.
        link_index`)."""
        made = {*self.paper_a_targets(), *self.paper_b_targets()}
        values = {"method": self.tuning_methods}
        pairs = [*reported_files(PAPER_A, values), *reported_files(PAPER_B, values)]
        paths = [(ids, f"results/{model}/{path}") for ids, path in pairs]
        return [(ids, path) for ids, path in paths if path in made]
