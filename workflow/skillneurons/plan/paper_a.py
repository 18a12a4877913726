"""Paper A's part of the plan: the tasks, trials and draws of its stages, the task each
single-task figure shows, its input files and its targets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skillneurons.config import ConfigError
from skillneurons.paper_a.ablation_settings import resolve_settings
from skillneurons.paper_a.controls import DEFAULT_HARD_PROMPTS
from skillneurons.paper_a.registry import PAPER_A
from skillneurons.plan.passes import pass_of
from skillneurons.plan.tasks import expand
from skillneurons.reporting.registry import targets


class PaperAPlan:
    """Paper A's lists and paths (a part of :class:`skillneurons.plan.Plan`)."""

    def _plan_paper_a(self, config: Mapping) -> None:
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

    def random_words_dumps(self, model: str, name: str, task: str, variant: str, draw: int):
        """The per-trial activation files ``name`` (``dev.parquet``, ...) behind one
        random-label-word ranking: the draw's own, or for a control the main trials'
        (:meth:`reuses_main_trials`) or its own."""
        if variant == "control" and self.reuses_main_trials(draw):
            return [f"results/{model}/activations/{task}/trial{draw}/{name}"]
        pattern = f"activations/{{task}}/trial{{trial}}/{name}"
        return self.random_words_files(
            model, pattern, [task], [draw], self.random_words_trials, variant
        )

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

    def control_files(self, model: str, control: str) -> list[str]:
        """A control's top-neuron results (Table A-T3) of every task and control trial."""
        return expand(
            f"results/{model}/skill_neurons/{control}/{{task}}/trial{{trial}}.json",
            task=list(self.tasks),
            trial=self.control_trials,
        )

    @staticmethod
    def random_words_files(model, pattern, tasks, draws, trials=(None,), variant="draw"):
        """results/{model}/random_label_words/{variant}{d}/<pattern> by task, then draw,
        then trial (paper A, section 4.4; variant draw: random label words, control: the
        configured ones with the draw's seeds)."""
        return [
            f"results/{model}/random_label_words/{variant}{draw}/"
            + pattern.format(task=task, trial=trial)
            for task in tasks
            for draw in draws
            for trial in trials
        ]

    @staticmethod
    def tuning_curves(model: str, method: str, tasks: Sequence[str]) -> list[str]:
        """Per-task perturbation tables of one tuning method's models (paper A, §5)."""
        return [f"results/{model}/tuning_methods/{method}/perturbation/{t}.parquet" for t in tasks]

    def findings_inputs(self, model: str) -> dict[str, list[str]]:
        """The per-sample results behind paper A's claims: perturbation files, per-trial
        predictivity,
        the controls' top neurons, every trial's prompt-tuning metrics and top neurons
        with the held-out Avg./Max. selections (§4.1); §4.4 (the random-label-word draws'
        rankings and their seed-only controls') and §5 only when the config runs them."""
        inputs = {
            "perturbation": self.task_files(model, "perturbation/{task}.parquet"),
            "paper_design": self.task_files(model, "perturbation/paper_design/{task}.parquet"),
            "predictivity": self.task_files(model, "predictivity/{task}.safetensors"),
            "prompt_metrics": expand(
                f"results/{model}/prompt_tuning/{{task}}/trial{{trial}}/metrics.json",
                task=list(self.tasks),
                trial=self.trials,
            ),
            "top_neurons": self.task_files(model, "skill_neurons/tuned/{task}.json"),
            **{c: self.control_files(model, c) for c in ("random_prompt", "random_model")},
            **{
                method: self.tuning_curves(model, method, self.tuning_tasks)
                for method in self.tuning_methods
            },
        }
        if self.random_words_tasks:
            inputs["label_words"], inputs["label_word_controls"] = (
                self.random_words_files(
                    model,
                    "rankings/{task}.parquet",
                    self.random_words_tasks,
                    self.random_words_draws,
                    variant=variant,
                )
                for variant in ("draw", "control")
            )
            inputs["noise_floor"] = expand(
                f"results/{model}/random_label_words/noise_floor/{{task}}.json",
                task=self.random_words_tasks,
            )
        return inputs

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
