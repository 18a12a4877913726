"""Paper A's part of the plan: the tasks, trials and draws of its stages, the task each
single-task figure shows and its targets."""

from __future__ import annotations

from collections.abc import Mapping

from skillneurons.config import ConfigError
from skillneurons.paper_a.ablation_settings import resolve_settings
from skillneurons.paper_a.controls import DEFAULT_HARD_PROMPTS
from skillneurons.paper_a.registry import PAPER_A
from skillneurons.plan.passes import pass_of
from skillneurons.reporting.registry import targets

#: What a prompt-tuning job reads of the prompt_tuning section: not ``trials`` nor
#: ``trials_per_pass``, so that adding trials reruns no finished pass.
PROMPT_TUNING_SETTINGS = (
    "prompt_length",
    "init_std",
    "init",
    "learning_rate",
    "batch_size",
    "eval_batch_size",
    "max_steps",
    "eval_every",
    "patience",
    "max_length",
)


class PaperAPlan:
    """Paper A's lists and choices (a part of :class:`skillneurons.plan.Plan`)."""

    def _plan_paper_a(self, config: Mapping) -> None:
        #: The prompt_tuning settings of rules prompt_tuning and
        #: prompt_tuning_random_words (:data:`PROMPT_TUNING_SETTINGS`).
        self.prompt_tuning_settings = {
            key: config["prompt_tuning"][key] for key in PROMPT_TUNING_SETTINGS
        }
        #: Table A-T3's control trials (random prompts, a hard prompt, a random model):
        #: forward passes only, seeded seed + trial, independent of prompt tuning's.
        self.control_trials = list(range(config["controls"]["trials"]))
        self.random_words_tasks = self.task_subset("random_label_words")
        self.random_words_draws = list(range(config["random_label_words"]["draws"]))
        self.random_words_trials = list(range(config["random_label_words"]["trials"]))
        self.tuning_methods = list(config["tuning_methods"]["methods"])
        # The evaluation tasks; the orders still come from every task's ranking.
        self.tuning_tasks = self.task_subset("tuning_methods")
        self.tuning_trials = list(range(config["tuning_methods"]["trials"]))
        self.ablation_tasks = self.task_subset("ablation")
        self.ablation_settings = resolve_settings(
            config["ablation"]["settings"], config["perturbation"], config["ranking"]["scope"]
        )
        self.figure_tasks = self._figure_tasks()
        #: §4.2's design as the paper ran it (rule perturbation_paper_design): Gaussian
        #: noise of perturbation.paper_sigma in absolute units, one draw per sample and
        #: neuron at every position (the original code's randn(batch, width) * 0.1).
        perturbation = config["perturbation"]
        #: Uniform random orders per trial (perturbation.uniform_orders, null: as many as
        #: the layer-matched ones).
        self.uniform_orders = (
            perturbation["uniform_orders"] or perturbation["layer_matched_orders"]
        )
        self.paper_perturbation = {
            "kind": "gaussian",
            "sigma": config["perturbation"]["paper_sigma"],
            "mean": 0.0,
            "unit": "absolute",
            "positions": "all",
            "draw": "sample",
        }

    def random_words_seed_offset(self, draw: int, trial: int) -> int:
        """What config ``seed`` is offset by for trial ``trial`` of draw ``draw`` and its
        seed-only control: ``draw`` for a draw's first trial (main prompt-tuning trial
        ``draw``'s seeds), ``1000 * (draw + 1) + trial`` for its others. Each offset stays
        as draws or trials are added (no complete pass reruns)."""
        return draw if trial == 0 else 1000 * (draw + 1) + trial

    def reuses_main_trials(self, draw: int) -> bool:
        """Whether draw ``draw``'s seed-only control is main prompt-tuning trial ``draw``
        itself (same label words, same seeds: nothing retrained): where a draw has one
        trial (``random_label_words.trials: 1``) and ``draw < prompt_tuning.trials``."""
        return len(self.random_words_trials) == 1 and draw < len(self.trials)

    def random_words_pass(self, trial: int) -> str:
        """The name of the random-label-word pass that trains ``trial`` (as
        :meth:`skillneurons.plan.Plan.prompt_pass`, over ``random_label_words.trials``)."""
        return pass_of(trial, len(self.random_words_trials), self.trials_per_pass)

    def _figure_tasks(self) -> dict[str, list[str]]:
        """The task(s) each single-task figure of paper A shows, by paper ID: A-F1 a binary
        sentiment task (paper: SST-2), A-F2 a three-way inference task (paper: MNLI), A-F4
        ``perturbation.figure_tasks`` or a three-way sentiment task (paper: Tweet), A-F7
        ``tuning_methods.example_task`` or the first sentiment task trained (paper:
        IMDB); other tasks stand in when absent, an empty list when none fits."""
        first = self.first_task
        histogram = first(lambda s: s.type == "sentiment" and s.num_labels == 2) or first(
            lambda s: s.num_labels == 2
        )
        scatter = first(lambda s: s.type == "inference" and s.subtasks) or first(
            lambda s: bool(s.subtasks)
        )
        curves = self.config["perturbation"]["figure_tasks"] or [
            first(lambda s: s.type == "sentiment" and s.subtasks) or next(iter(self.tasks))
        ]
        unknown = sorted(set(curves) - set(self.tasks))
        if unknown:
            raise ConfigError(
                f"config key 'perturbation.figure_tasks': {unknown} are not among the "
                f"configured tasks {list(self.tasks)}; name configured tasks, or write [] "
                "for the first three-way sentiment task"
            )
        example = self.config["tuning_methods"]["example_task"] or next(
            (t for t in self.tuning_tasks if self.task_types[t] == "sentiment"),
            self.tuning_tasks[0] if self.tuning_tasks else None,
        )
        if example is not None and example not in self.tuning_tasks:
            raise ConfigError(
                f"config key 'tuning_methods.example_task': {example!r} is not among "
                f"tuning_methods.tasks {self.tuning_tasks}; name one of them, or write null "
                "for the first sentiment task trained"
            )
        chosen = {"A-F1": [histogram], "A-F2": [scatter], "A-F4": curves, "A-F7": [example]}
        return {figure: [t for t in tasks if t is not None] for figure, tasks in chosen.items()}

    def figure_task(self, figure: str) -> str | None:
        """The one task a single-task figure shows (:attr:`figure_tasks`; None if none)."""
        return next(iter(self.figure_tasks[figure]), None)

    def hard_prompt(self, task: str) -> str:
        """Table A-T3's hand-written prompt of a task (config hard_prompts, else by type)."""
        return self.config["hard_prompts"].get(task, DEFAULT_HARD_PROMPTS[self.task_types[task]])

    def paper_a_targets(self) -> list[str]:
        """Every figure and table of paper A's registry this configuration enables."""
        features = {
            "histogram_task": bool(self.figure_tasks["A-F1"]),
            "scatter_task": bool(self.figure_tasks["A-F2"]),
            "random_label_words": bool(self.random_words_tasks),
            "tuning_methods": bool(self.tuning_tasks and self.tuning_methods),
            **{method: True for method in self.tuning_methods},
            "ablation": bool(self.ablation_tasks),
        }
        on = [name for name, enabled in features.items() if enabled]
        return targets(PAPER_A, on, list(self.models), {"method": self.tuning_methods})
