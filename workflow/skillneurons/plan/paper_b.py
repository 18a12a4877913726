"""Paper B's part of the plan: its tasks, the groups of §5 per model, the continual
orders of §6, how each task is scored, its input files and its targets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skillneurons.data.generation_splits import generation_spec
from skillneurons.paper_b.groups import continual_orders, task_groups
from skillneurons.paper_b.instructions import INSTRUCTIONS
from skillneurons.paper_b.registry import PAPER_B
from skillneurons.plan.tasks import SPLITS, expand
from skillneurons.reporting.registry import targets


class PaperBPlan:
    """Paper B's lists and paths (a part of :class:`skillneurons.plan.Plan`)."""

    def _plan_paper_b(self, config: Mapping) -> None:
        paper_b = config["paper_b"]
        self.paper_b_tasks = self.task_subset("paper_b")
        #: Every compared training's runs (paper_b.runs), folders run0, run1, ...
        self.paper_b_runs = list(range(paper_b["runs"]))
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

    def deactivation_files(self, model: str, kind: str) -> list[str]:
        """B-T1's results of every run of the multi-task model of ``kind``
        (classification or generation; rule deactivation)."""
        return [
            f"results/{model}/paper_b/{kind}/run{run}/deactivation.parquet"
            for run in self.paper_b_runs
        ]

    def neuron_training_files(self, model: str, tasks: Sequence[str]) -> list[str]:
        """B-T2's results of every run of every task of ``tasks`` (rule
        neuron_training), run-major."""
        return [
            f"results/{model}/paper_b/neuron_training/run{run}/{task}.parquet"
            for run in self.paper_b_runs
            for task in tasks
        ]

    def part_one_kind(self, task: str) -> str:
        """Whether part 1 (B-T1, B-T2) runs ``task`` as a ``classification`` or a
        ``generation`` task (paper_b.generation.tasks)."""
        return "generation" if task in self.generation_tasks else "classification"

    def part_one_tasks(self, kind: str) -> list[str]:
        """The tasks of part 1 of one ``kind``: paper B's classification tasks
        (paper_b.tasks) or its generation tasks (paper_b.generation.tasks)."""
        return self.generation_tasks if kind == "generation" else self.paper_b_tasks

    def zero_shot_tasks(self, kind: str) -> list[str]:
        """The tasks rule zero_shot scores on the untrained model: part 1's of ``kind``
        and §5's groups' of that kind (a §5 task that part 1 does not train, such as the
        default's out-of-domain topic task, needs its zero-shot score too)."""
        grouped = (
            [*self.generation_train, *self.generation_test]
            if kind == "generation"
            else [*self.train_tasks, *self.test_tasks]
        )
        return list(dict.fromkeys([*self.part_one_tasks(kind), *grouped]))

    def part_one_training(self, kind: str, stage: str) -> Mapping:
        """The training settings of a part-1 ``stage`` for tasks of ``kind``: B-T1's full
        fine-tuning on the mixture (``multitask``: paper_b.multitask, or
        paper_b.generation.multitask) or B-T2's (``neuron_training``:
        paper_b.neuron_training, or paper_b.generation.training)."""
        if stage not in ("multitask", "neuron_training"):
            raise ValueError(f"part-1 stage {stage!r}: expected multitask or neuron_training")
        paper_b = self.config["paper_b"]
        if kind == "generation":
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

    def task_split_files(self, tasks: Sequence[str], splits: Sequence[str] = SPLITS):
        """Every split file of ``tasks``, task-major (the order skillneurons.paper_b reads)."""
        return [f"data/splits/{task}/{split}.parquet" for task in tasks for split in splits]

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

    def scored_split_files(self, tasks: Sequence[str]) -> list[str]:
        """Each task's train, dev and test split files in turn (classification splits or
        generation splits), the order skillneurons.paper_b.scorers reads."""
        return [
            f"data/{'generation' if task in self.generation_tasks else 'splits'}/"
            f"{task}/{split}.parquet"
            for task in tasks
            for split in SPLITS
        ]

    def task_neuron_file(self, model: str, task: str) -> str:
        """A task's neurons on the base model (rule task_neurons), classification or
        generation."""
        return f"results/{model}/task_neurons/{task}.parquet"

    def groups(self, model: str) -> dict[str, tuple[list[str], list[str]]]:
        """The task groups of §5 on ``model``, name -> (training tasks, test tasks): ``cls``
        (paper_b.generalization) when both its lists are non-empty and, where the model
        runs the generation tasks (paper_b.generation.models) and both generation groups
        are non-empty, ``gen``."""
        groups = {}
        if self.train_tasks and self.test_tasks:
            groups["cls"] = (self.train_tasks, self.test_tasks)
        if model in self.generation_models and self.generation_train and self.generation_test:
            groups["gen"] = (self.generation_train, self.generation_test)
        return groups

    def group_neuron_files(self, model: str) -> dict[str, list[str]]:
        """The task-neuron files of every group (B-T8), as ``{group}_train`` and
        ``{group}_test`` lists."""
        return {
            f"{name}_{role}": [self.task_neuron_file(model, t) for t in tasks]
            for name, group in self.groups(model).items()
            for role, tasks in zip(("train", "test"), group, strict=True)
        }

    def proportion_test_groups(self, model: str) -> dict[str, list[str]]:
        """The test tasks a proportion sweep is scored on, group -> tasks: every group's
        on this model (cls -> cls and cls -> gen, gen -> cls and gen -> gen)."""
        return {name: test for name, (_, test) in self.groups(model).items()}

    def proportion_tasks(self, model: str, group: str) -> list[str]:
        """The tasks a proportion sweep of ``group`` trains and scores."""
        tests = self.proportion_test_groups(model).values()
        return list(dict.fromkeys([*self.groups(model)[group][0], *(t for s in tests for t in s)]))

    def controlled_groups(self, model: str, pair: str) -> tuple[list[str], list[str]]:
        """The training tasks of ``pair``'s first group and the test tasks of its second."""
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
            if all(name in groups for name in pair.split("-"))
        ]

    def generalization_files(self, model: str) -> dict[str, list[str]]:
        """Every generalization result of ``model``, per training run (run-major): per
        group, B-F2's (``group``) and B-F6's (one per training task; none for a group of
        one training task, whose B-F6 sweep is its B-F2 sweep) proportion sweeps; per
        controlled pair and q, B-T9..B-T11's."""
        groups = self.groups(model)
        runs = [f"results/{model}/paper_b/generalization/run{run}" for run in self.paper_b_runs]
        return {
            "group": [
                f"{run}/{name}/proportions/group.parquet" for run in runs for name in groups
            ],
            "single": [
                f"{run}/{name}/proportions/{task}.parquet"
                for run in runs
                for name, (train, _) in groups.items()
                if len(train) > 1
                for task in train
            ],
            "controlled": [
                f"{run}/{pair}/controlled/{q}.parquet"
                for run in runs
                for pair in self.controlled_pairs(model)
                for q in self.controlled
            ],
        }

    def zero_shot_files(self, model: str) -> dict[str, list[str]]:
        """The zero-shot scores a proportion table starts from (rule zero_shot): the
        classification tasks' and, with a generation group, the generation tasks'."""
        groups = self.groups(model)
        files = {}
        if "cls" in groups:
            files["zero_shot"] = [f"results/{model}/paper_b/classification/zero_shot.parquet"]
        if "gen" in groups:
            files["generation_zero_shot"] = [
                f"results/{model}/paper_b/generation/zero_shot.parquet"
            ]
        return files

    def similarity_tasks(self, model: str) -> tuple[list[str], list[str]]:
        """The models M_i of B-F3/B-T4 (every group's training tasks) and the test tasks
        each is compared with (every group's)."""
        groups = self.groups(model).values()
        return [t for train, _ in groups for t in train], [t for _, test in groups for t in test]

    def similarity_files(self, model: str) -> dict[str, list[str]]:
        """Every M_i's similarity and score files on ``model``, per training run
        (run-major)."""
        folders = [f"results/{model}/paper_b/similarity/run{run}" for run in self.paper_b_runs]
        trained, _ = self.similarity_tasks(model)
        return {
            "similarities": [f"{run}/{task}.parquet" for run in folders for task in trained],
            "similarity_scores": [
                f"{run}/{task}_scores.parquet" for run in folders for task in trained
            ],
        }

    def generation_findings_files(self, model: str) -> dict[str, object]:
        """On a model that runs the generation tasks, their B-T1 results
        (``generation_deactivation``), every task's B-T2 results
        (``generation_training``) and the zero-shot results they start from
        (``generation_zero_shot``, rule zero_shot); none on the others."""
        if not (self.generation_on and model in self.generation_models):
            return {}
        folder = f"results/{model}/paper_b/generation"
        return {
            "generation_deactivation": self.deactivation_files(model, "generation"),
            "generation_training": self.neuron_training_files(model, self.generation_tasks),
            "generation_zero_shot": f"{folder}/zero_shot.parquet",
        }

    def continual_files(self, model: str) -> dict[str, list[str]]:
        """The continual-learning results (B-T5, B-F4): each order's file per run and
        method (``trained``, order-major: :func:`skillneurons.paper_b.continual.
        read_order_results` splits them by order) and each run's per-task fine-tuning
        of each task (``per_task``)."""
        folder = f"results/{model}/paper_b/continual"
        return {
            "trained": expand(
                f"{folder}/run{{run}}/{{order}}/{{method}}.parquet",
                order=self.continual_orders,
                run=self.paper_b_runs,
                method=self.continual_methods,
            ),
            "per_task": expand(
                f"{folder}/run{{run}}/per_task/{{task}}.parquet",
                run=self.paper_b_runs,
                task=self.continual_tasks,
            ),
        }

    def continual_findings_files(self, model: str) -> dict[str, list[str]]:
        """The continual-learning results behind paper B's findings (none without an
        order): :meth:`continual_files` as ``continual_trained`` and ``continual_per_task``."""
        if not self.continual_orders:
            return {}
        return {f"continual_{key}": files for key, files in self.continual_files(model).items()}

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
