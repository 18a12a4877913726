"""Paper B's part of the plan: its tasks and their families (classification,
generation), the groups of §5 per model, the continual orders of §6, how each task is
scored and its targets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skillneurons.data.generation_splits import generation_spec
from skillneurons.paper_b.groups import AUTO, continual_orders, task_groups
from skillneurons.paper_b.instructions import INSTRUCTIONS
from skillneurons.paper_b.registry import PAPER_B
from skillneurons.reporting.registry import targets

#: Paper B's two task families by name, with the abbreviation of each. The workflow
#: names a family by its wildcard ``{family}`` (never "kind", which is a perturbation's,
#: nor "group", which is §5's tasks of a family); the plan's methods take the name.
#: Paths keep the spelling they always had: part 1's folders spell the name
#: (``results/{model}/paper_b/classification/...``: rules deactivation and zero_shot),
#: §5's the abbreviation (``.../generalization/run0/cls/...``: rule
#: proportion_training), as do the pairs of groups (``cls-gen``: rule
#: controlled_overlap and config ``paper_b.generalization.controlled_pairs``) and the
#: group columns of §5's tables. This mapping is the one place that relates the two.
FAMILIES = {"classification": "cls", "generation": "gen"}


class PaperBPlan:
    """Paper B's lists and choices (a part of :class:`skillneurons.plan.Plan`)."""

    def _plan_paper_b(self, config: Mapping) -> None:
        paper_b = config["paper_b"]
        self.paper_b_tasks = self.task_subset("paper_b")
        #: Every compared training's runs (paper_b.runs), folders run0, run1, ...
        self.paper_b_runs = list(range(paper_b["runs"]))
        #: Each run's seed (:meth:`run_seed`) and first random-draw seed
        #: (:meth:`draw_seed`), run by run: what a job computing every run is given.
        self.run_seeds = [self.run_seed(run) for run in self.paper_b_runs]
        self.draw_seeds = [self.draw_seed(run) for run in self.paper_b_runs]
        self.generation_tasks = list(paper_b["generation"]["tasks"])
        self.generation_models = list(paper_b["generation"]["models"])
        self.generation_on = bool(self.generation_tasks and self.generation_models)
        self.generation_types = {t: generation_spec(t).type for t in self.generation_tasks}
        # Table 3's groups: the classification group (b) and the generation group (a).
        generalization = paper_b["generalization"]
        self.train_tasks, self.test_tasks = task_groups(
            self.paper_b_tasks,
            self.task_types,
            generalization["train_tasks"],
            generalization["test_tasks"],
            configured=list(self.tasks),
        )
        if generalization["test_tasks"] == AUTO:
            self.auto_choices["paper_b.generalization.test_tasks"] = self.test_tasks
        self.generation_train, self.generation_test = task_groups(
            self.generation_tasks,
            self.generation_types,
            paper_b["generation"]["train_tasks"],
            paper_b["generation"]["test_tasks"],
            section="paper_b.generation",
            pool="paper_b.generation.tasks",
        )
        self.generalization_models = [m for m in self.models if self.groups(m)]
        #: B-T9's trained proportions q, named by percent in file names (q10, q30, ...).
        self.controlled = {
            f"q{round(100 * q)}": q for q in generalization["controlled_proportions"]
        }
        #: The configured similarity first, then the two B-F3 always shows: paper B's
        #: cosine and the set overlap (skillneurons.paper_b.similarity).
        self.similarities = list(
            dict.fromkeys([generalization["similarity"], "centroid", "norm_weighted_overlap"])
        )
        self.continual_orders = continual_orders(
            self.paper_b_tasks, paper_b["continual"]["orders"], list(self.tasks)
        )
        #: One continual_training job per order and method: SeqFT, SeqLoRA and NCFT
        #: (whose file holds W-NCFT too).
        self.continual_methods = ["seqft", "seqlora", "ncft"]
        self.continual_tasks = list(
            dict.fromkeys(t for order in self.continual_orders.values() for t in order)
        )

    def run_seed(self, run: int | str) -> int:
        """The seed of a paper-B training's run ``run``: seed + run (run 0 trains as the
        single run of earlier versions did)."""
        return self.config["seed"] + int(run)

    def draw_seed(self, run: int | str) -> int:
        """The first seed of run ``run``'s random neuron draws (draw ``d``: this + d):
        seed + run x paper_b.random_draws, so that no two runs draw the same set and
        run 0 draws as before."""
        return self.config["seed"] + int(run) * self.config["paper_b"]["random_draws"]

    def family_of(self, task: str) -> str:
        """The family (:data:`FAMILIES`) part 1 (B-T1, B-T2) runs ``task`` in:
        ``generation`` for a task of paper_b.generation.tasks, else ``classification``."""
        return "generation" if task in self.generation_tasks else "classification"

    def family_tasks(self, family: str) -> list[str]:
        """The tasks of part 1 of one ``family``: paper B's classification tasks
        (paper_b.tasks) or its generation tasks (paper_b.generation.tasks)."""
        return self.generation_tasks if family == "generation" else self.paper_b_tasks

    def zero_shot_tasks(self, family: str) -> list[str]:
        """The tasks rule zero_shot scores on the untrained model: part 1's of ``family``
        and §5's group's of that family (a §5 task that part 1 does not train, such as the
        default's out-of-domain topic task, needs its zero-shot score too)."""
        grouped = (
            [*self.generation_train, *self.generation_test]
            if family == "generation"
            else [*self.train_tasks, *self.test_tasks]
        )
        return list(dict.fromkeys([*self.family_tasks(family), *grouped]))

    def part_one_training(self, family: str, stage: str) -> Mapping:
        """The training settings of a part-1 ``stage`` for tasks of ``family``: B-T1's
        full fine-tuning on the mixture (``multitask``: paper_b.multitask, or
        paper_b.generation.multitask) or B-T2's (``neuron_training``:
        paper_b.neuron_training, or paper_b.generation.training)."""
        if stage not in ("multitask", "neuron_training"):
            raise ValueError(f"part-1 stage {stage!r}: expected multitask or neuron_training")
        paper_b = self.config["paper_b"]
        if family == "generation":
            return paper_b["generation"]["training" if stage == "neuron_training" else stage]
        return paper_b[stage]

    def comparison_settings(self) -> dict[str, object]:
        """The AB-F1 curves' perturbation: paper_b.comparison.kind at every position, with
        the perturbation section's noise settings (sigma, mean, unit, draw) only when the
        kind (gaussian) reads them."""
        kind = self.config["paper_b"]["comparison"]["kind"]
        perturbation = self.config["perturbation"]
        noise = (
            {key: perturbation[key] for key in ("sigma", "mean", "unit", "draw")}
            if kind == "gaussian"
            else {}
        )
        return {"kind": kind, "positions": "all", **noise}

    def instructions(self, tasks: Sequence[str]) -> dict[str, str]:
        """Each task's instruction (paper_b.instructions by type, else the built-in one)."""
        chosen = {**INSTRUCTIONS, **self.config["paper_b"]["instructions"]}
        return {
            task: chosen[
                self.generation_types[task]
                if task in self.generation_tasks
                else self.task_types[task]
            ]
            for task in tasks
        }

    def generation_scoring(self, tasks: Sequence[str]) -> dict[str, dict]:
        """How each generation task is scored (ScoredSplit.from_params): its instruction
        and token budgets (paper_b.generation's prompt and target lengths, the task's own
        greedy-decoding budget)."""
        generation = self.config["paper_b"]["generation"]
        return {
            task: {
                "instruction": self.instructions([task])[task],
                "budget": {
                    "max_prompt_tokens": generation["max_prompt_tokens"],
                    "max_target_tokens": generation["max_target_tokens"],
                    "max_new_tokens": generation_spec(task).max_new_tokens,
                },
            }
            for task in tasks
        }

    def scorer_params(self, tasks: Sequence[str]) -> dict[str, dict]:
        """How each task is trained and scored (skillneurons.paper_b.scorers.task_scorers):
        a generation task by its instruction and budgets, a classification task by its
        label words and instruction."""
        paper_b = self.config["paper_b"]
        # "kind": the family, as skillneurons.paper_b.scorers names it
        generation = {
            "kind": "generation",
            "batch_size": paper_b["generation"]["eval_batch_size"],
            "rouge_stemmer": paper_b["generation"]["rouge_stemmer"],
        }
        classification = {
            "kind": "classification",
            "batch_size": paper_b["batch_size"],
            "max_length": paper_b["max_length"],
        }
        return {
            task: (
                {**generation, **self.generation_scoring([task])[task]}
                if task in self.generation_tasks
                else {
                    **classification,
                    "label_words": self.label_words(task),
                    "instruction": self.instructions([task])[task],
                }
            )
            for task in tasks
        }

    def groups(self, model: str) -> dict[str, tuple[list[str], list[str]]]:
        """The task groups of §5 on ``model``, one per family, keyed by the family's
        abbreviation (:data:`FAMILIES`, as §5's paths and tables spell it) -> (training
        tasks, test tasks): ``cls`` (paper_b.generalization) when both its lists are
        non-empty and, where the model runs the generation tasks
        (paper_b.generation.models) and both generation lists are non-empty, ``gen``."""
        groups = {}
        if self.train_tasks and self.test_tasks:
            groups[FAMILIES["classification"]] = (self.train_tasks, self.test_tasks)
        if model in self.generation_models and self.generation_train and self.generation_test:
            groups[FAMILIES["generation"]] = (self.generation_train, self.generation_test)
        return groups

    def proportion_test_groups(self, model: str) -> dict[str, list[str]]:
        """The test tasks a proportion sweep is scored on, family (abbreviated) -> tasks:
        every group's on this model (cls -> cls and cls -> gen, gen -> cls and gen ->
        gen)."""
        return {family: test for family, (_, test) in self.groups(model).items()}

    def proportion_tasks(self, model: str, family: str) -> list[str]:
        """The tasks a proportion sweep of the group of ``family`` (abbreviated: ``cls``)
        trains and scores."""
        tests = self.proportion_test_groups(model).values()
        train = self.groups(model)[family][0]
        return list(dict.fromkeys([*train, *(t for s in tests for t in s)]))

    def controlled_groups(self, model: str, pair: str) -> tuple[list[str], list[str]]:
        """The training tasks of ``pair``'s first group and the test tasks of its second
        (a pair names two families by abbreviation: ``gen-cls``)."""
        first, second = pair.split("-")
        groups = self.groups(model)
        return groups[first][0], groups[second][1]

    def controlled_tasks(self, model: str, pair: str) -> list[str]:
        """The tasks a controlled-overlap job trains and scores: the pair's training
        tasks, then its test tasks."""
        train, test = self.controlled_groups(model, pair)
        return [*train, *test]

    def controlled_pairs(self, model: str) -> list[str]:
        """The configured B-T9..B-T11 pairs whose groups ``model`` has."""
        groups = self.groups(model)
        return [
            pair
            for pair in self.config["paper_b"]["generalization"]["controlled_pairs"]
            if all(family in groups for family in pair.split("-"))
        ]

    def similarity_tasks(self, model: str) -> tuple[list[str], list[str]]:
        """The models M_i of B-F3/B-T4 (every group's training tasks) and the test tasks
        each is compared with (every group's)."""
        groups = self.groups(model).values()
        return [t for train, _ in groups for t in train], [t for _, test in groups for t in test]

    def paper_b_targets(self) -> list[str]:
        """Every figure and table of paper B's registry this configuration enables: the
        generation outputs on the models of paper_b.generation.models, the generalization
        outputs on the models with a group of tasks (:meth:`groups`)."""
        features = [
            feature
            for feature, on in (
                ("generalization", bool(self.generalization_models)),
                ("continual", bool(self.continual_orders)),
            )
            if on
        ]
        generation = [output for output in PAPER_B if "generation" in output.requires]
        generalization = [output for output in PAPER_B if "generalization" in output.requires]
        rest = [output for output in PAPER_B if output not in generation + generalization]
        files = []
        if self.paper_b_tasks:
            files += targets(rest, features, list(self.models))
            files += targets(generalization, features, self.generalization_models)
        if self.generation_on:
            files += targets(generation, ["generation"], self.generation_models)
        return files
