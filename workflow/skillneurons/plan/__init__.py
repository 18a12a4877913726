"""The workflow's plan: every derived list, task choice and input path the rule files
use, computed once from the validated configuration (:func:`skillneurons.config.
validate_config`), free of Snakemake so that it is tested like the rest of the library.

``workflow/rules/common.smk`` builds one :class:`Plan`; rule files read it and keep no
state of their own. Paths are relative to the run folder and carry their wildcards
(``results/{model}/...``). Nothing in the library imports this package: it sits above
both papers, beside :mod:`skillneurons.config`.

- :mod:`.tasks`: which tasks a stage runs on (a config section's ``tasks`` key), the
  wildcard regex of a list of names;
- :mod:`.passes`: which prompt-tuning trials one job trains together;
- :mod:`.paper_a`: paper A's lists, the task each single-task figure shows
  (:attr:`Plan.figure_tasks`: decided here and only here), inputs and targets;
- :mod:`.paper_b`: paper B's tasks, groups, orders, scoring, inputs and targets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from skillneurons.data.tasks import TaskSpec, resolve_tasks
from skillneurons.models.label_words import task_label_words
from skillneurons.models.specs import gguf_models, prepared_directory, resolve_models
from skillneurons.paper_a.registry import PAPER_A
from skillneurons.paper_b.registry import PAPER_B
from skillneurons.plan.paper_a import PaperAPlan
from skillneurons.plan.paper_b import PaperBPlan
from skillneurons.plan.passes import pass_of
from skillneurons.plan.tasks import (
    AUTO,
    AUTO_TYPES,
    NO_VALUES,
    SPLITS,
    auto_tasks,
    expand,
    names_regex,
    task_subset,
)
from skillneurons.reporting.registry import reported_files

__all__ = ["AUTO_TYPES", "NO_VALUES", "SPLITS", "Plan", "auto_tasks", "names_regex", "task_subset"]


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
            self.auto_choices[section] = tasks
        return tasks

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

    def model_files(self, model: str) -> list[str]:
        """What a job loading ``model`` needs on disk: the converted directory of a GGUF
        model (nothing for the others, which load from a package, folder or the Hub)."""
        return [prepared_directory(model)] if model in self.gguf_models else []

    def task_files(self, model: str, pattern: str) -> list[str]:
        """results/{model}/<pattern> for every task of one model."""
        return expand(f"results/{model}/{pattern}", task=list(self.tasks))

    def tasks_from(self, source: str) -> list[str]:
        """The configured tasks whose examples come from ``source`` (hub, synthetic, file)."""
        return [name for name, spec in self.tasks.items() if spec.source == source]

    def subtask_files(self, task: str, split: str) -> list[str]:
        """The split files of a task's binary subtasks (none for binary tasks)."""
        return [
            f"data/splits/{task}/subtasks/{sub.name}/{split}.parquet"
            for sub in self.tasks[task].subtasks
        ]

    def split_files(self) -> list[str]:
        """Every split of every task, and every split of every binary subtask."""
        files = expand("data/splits/{task}/{split}.parquet", task=list(self.tasks), split=SPLITS)
        for task in self.tasks:
            files += [path for split in SPLITS for path in self.subtask_files(task, split)]
        return files

    def explorer_inputs(self, model: str) -> dict[str, list[str]]:
        """What the neuron explorer of ``model`` reads (rule ``explorer``): every task's
        ranking, trial 0's test dump and Eq. 3 baseline, test split (its texts) and
        perturbation curves; paper
        B's task-neuron files and B-T1's deactivation where paper B runs; A-T2's words
        where the configuration makes A-T2 (B-T1's: its first training run's)."""
        trial0 = f"results/{model}/activations/{{task}}/trial0"
        runs_b = bool(self.paper_b_tasks)
        words = f"results/{model}/tables/A-T2.csv" in self.paper_a_targets()
        return {
            "rankings": self.task_files(model, "rankings/{task}.parquet"),
            "test_dumps": expand(f"{trial0}/test.parquet", task=list(self.tasks)),
            "test_splits": expand("data/splits/{task}/test.parquet", task=list(self.tasks)),
            "baselines": expand(f"{trial0}/baseline.safetensors", task=list(self.tasks)),
            "perturbation": self.task_files(model, "perturbation/{task}.parquet"),
            "task_neurons": [self.task_neuron_file(model, t) for t in self.paper_b_tasks],
            "deactivation": (
                self.deactivation_files(model, "classification")[:1] if runs_b else []
            ),
            "words": [f"results/{model}/word_selectivity.parquet"] if words else [],
        }

    def verdict_inputs(self, model: str) -> dict[str, str]:
        """The findings tables of ``model`` that the verdict summary reads (rule
        ``verdicts``): ``paper_a`` (A's findings) and ``paper_b`` (B's and the A-vs-B
        claims), each where this configuration makes it."""
        made = {*self.paper_a_targets(), *self.paper_b_targets()}
        tables = {
            "paper_a": f"results/{model}/tables/findings.csv",
            "paper_b": f"results/{model}/tables/B-findings.csv",
        }
        return {key: path for key, path in tables.items() if path in made}

    def reported_results(self, model: str) -> list[tuple[str, str]]:
        """(paper ID, path) of every result of ``model`` the report shows, in registry
        order: the verdict summary's links (:func:`skillneurons.reporting.verdicts.
        link_index`)."""
        made = {*self.paper_a_targets(), *self.paper_b_targets()}
        values = {"method": self.tuning_methods}
        pairs = [*reported_files(PAPER_A, values), *reported_files(PAPER_B, values)]
        paths = [(ids, f"results/{model}/{path}") for ids, path in pairs]
        return [(ids, path) for ids, path in paths if path in made]

    def all_targets(self) -> list[str]:
        """``rule all``: every split and ranking, every figure and table of both papers,
        each model's neuron explorer (``results/{model}/explorer``) and verdict summary
        (``results/{model}/verdicts.html``, the report's first page)."""
        rankings = expand(
            "results/{model}/rankings/{task}.parquet", model=self.models, task=self.tasks
        )
        explorers = expand("results/{model}/explorer", model=self.models)
        verdicts = expand("results/{model}/verdicts.html", model=self.models)
        return [
            *self.split_files(),
            *rankings,
            *self.paper_a_targets(),
            *self.paper_b_targets(),
            *explorers,
            *verdicts,
        ]
