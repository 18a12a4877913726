"""What every stage needs: the plan of this configuration (skillneurons.plan: every
derived list and task choice, computed from the validated config) and the functions the
rules call with a job's wildcards. An input function returns a producer's outputs as
that producer declares them (rules.<name>.output), never a second spelling of a path;
wildcards it leaves open ({model}) are filled from the job's."""

from itertools import product
from pathlib import Path

from snakemake.logging import logger

from skillneurons.paper_a.registry import PAPER_A
from skillneurons.paper_b.registry import PAPER_B
from skillneurons.plan import FAMILIES, Plan, names_regex
from skillneurons.plan.passes import pass_trials
from skillneurons.reporting.registry import report_entries

PLAN = Plan(config)
for key, chosen in PLAN.auto_choices.items():
    logger.info(f"{key}: auto -> {chosen}")


def pick(section, keys):
    """The ``keys`` of config ``section`` that a job's settings read (the rule lists
    them), and nothing more, so that changing another key of the section reruns nothing.
    """
    return {key: config[section][key] for key in keys}


# ---------------------------------------------------------------- outputs

#: Every file the report shows, path under results/{model}/ -> (caption, category).
REPORTED = report_entries(PAPER_A + PAPER_B)


def reported(path):
    """A rule's output ``path`` flagged for the report with the caption
    (workflow/report/<caption>.rst) and category the papers' figure registries give it;
    a path they do not show is an error."""
    relative = path.removeprefix("results/{model}/")
    if relative not in REPORTED:
        raise ValueError(f"{path}: no figure registry shows this file in the report")
    caption, category = REPORTED[relative]
    captions = Path(workflow.basedir) / "workflow" / "report"
    return report(path, caption=str(captions / f"{caption}.rst"), category=category)


# ---------------------------------------------------------------- producers' outputs


def filled(outputs, **values):
    """The one path of a producer's ``outputs`` with ``values`` filled in (wildcards
    without a value, such as ``{model}``, stay for the consumer's job to fill)."""
    (path,) = expand(outputs, **values, allow_missing=True)
    return path


def for_each(outputs, **values):
    """A producer's ``outputs`` for every combination of ``values``, the combinations
    varying slowest. ``expand`` varies the patterns slowest: a rule's outputs over trials
    or runs would come trial by trial across tasks; the scripts read them task by task
    (or order by order)."""
    return [
        path
        for combination in product(*values.values())
        for path in expand(outputs, **dict(zip(values, combination)), allow_missing=True)
    ]


def model_files(wildcards):
    """What a job loading model {model} needs on disk: the directory rule prepare_model
    converts a GGUF model into (nothing for the others, which load from a package,
    folder or the Hub)."""
    return list(rules.prepare_model.output) if wildcards.model in PLAN.gguf_models else []


def split_of(wildcards):
    """Rule split's file of the job's {split}."""
    return rules.split.output[wildcards.split]


def subtask_splits(split):
    """An input function: rule subtask_split's ``split`` file of each binary subtask of
    the job's {task} (none for a binary task)."""

    def files(wildcards):
        subtasks = PLAN.subtasks(wildcards.task)
        return expand(
            rules.subtask_split.output, subtask=subtasks, split=split, allow_missing=True
        )

    return files


def scored_splits(tasks):
    """Each task's train, dev and test files in turn, the order skillneurons.paper_b
    reads: rule generation_split's for a generation task, rule split's for the others.
    """
    return [
        path
        for task in tasks
        for path in expand(
            (rules.generation_split if task in PLAN.generation_tasks else rules.split).output,
            task=task,
        )
    ]


def neurons_of(tasks):
    """Rule task_neurons' file of each of ``tasks`` (on the job's {model})."""
    return expand(rules.task_neurons.output, task=tasks, allow_missing=True)


def trained_pass(wildcards):
    """The pass folder of rule prompt_tuning that trained the job's {trial}."""
    trials = PLAN.prompt_pass(int(wildcards.trial))
    return expand(rules.prompt_tuning.output, trials=trials, allow_missing=True)


def trained_random_words_pass(wildcards):
    """The pass folder of rule prompt_tuning_random_words that trained the job's
    {trial}."""
    trials = PLAN.random_words_pass(int(wildcards.trial))
    return expand(rules.prompt_tuning_random_words.output, trials=trials, allow_missing=True)


def random_words_dumps(key):
    """An input function: the activation files ``key`` (rule dump_activations' output
    keys) behind one random-label-word ranking: the draw's own, or for a seed-only
    control made of main trials (Plan.reuses_main_trials) main trial {draw}'s, which
    nothing retrains."""

    def files(wildcards):
        draw = int(wildcards.draw)
        if wildcards.variant == "control" and PLAN.reuses_main_trials(draw):
            return [rules.dump_activations.output[key][draw]]
        return rules.dump_activations_random_words.output[key]

    return files


def random_label_word_results():
    """§4.4's results behind paper A's findings: each draw's rankings and its seed-only
    control's, and the noise floor; none when no task draws random label words."""
    if not PLAN.random_words_tasks:
        return {}
    rankings = {
        key: expand(
            rules.rank_neurons_random_words.output.ranking,
            variant=variant,
            task=PLAN.random_words_tasks,
            draw=PLAN.random_words_draws,
            allow_missing=True,
        )
        for key, variant in (("label_words", "draw"), ("label_word_controls", "control"))
    }
    noise_floor = expand(
        rules.label_word_noise_floor.output, task=PLAN.random_words_tasks, allow_missing=True
    )
    return {**rankings, "noise_floor": noise_floor}


def tuning_curves(methods, tasks):
    """Rule tuning_method_perturbation's curves of each of ``methods``, task by task."""
    return {
        method: expand(
            rules.tuning_method_perturbation.output, method=method, task=tasks, allow_missing=True
        )
        for method in methods
    }


# ---------------------------------------------------------------- paper B's inputs


def family_splits(wildcards):
    """The splits of part 1's tasks of the job's {family}."""
    return scored_splits(PLAN.family_tasks(wildcards.family))


def task_family_splits(wildcards):
    """The splits of part 1's tasks of the family of the job's {task}."""
    return scored_splits(PLAN.family_tasks(PLAN.family_of(wildcards.task)))


def task_splits(wildcards):
    """The splits of the job's {task}, classification or generation."""
    return scored_splits([wildcards.task])


def zero_shot_splits(wildcards):
    """The splits rule zero_shot scores for the job's {family} (Plan.zero_shot_tasks)."""
    return scored_splits(PLAN.zero_shot_tasks(wildcards.family))


def base_neurons(wildcards):
    """The base model's neurons of the job's {family}'s tasks, where B-T1 deactivates
    them (paper_b.identify_on.deactivation: base); none where it finds them on the
    multi-task model."""
    if config["paper_b"]["identify_on"]["deactivation"] != "base":
        return []
    return neurons_of(PLAN.family_tasks(wildcards.family))


def training_neurons(wildcards):
    """The neurons B-T2 trains on the job's {task}: every run's multi-task model's (run
    r's for run r; paper_b.identify_on.training: multitask), or the base model's."""
    if config["paper_b"]["identify_on"]["training"] == "multitask":
        family = PLAN.family_of(wildcards.task)
        return expand(rules.deactivation.output.neurons, family=family, allow_missing=True)
    return list(rules.task_neurons.output)


def proportion_splits(wildcards):
    """The splits a proportion sweep of the job's {family}'s group trains and scores."""
    return scored_splits(PLAN.proportion_tasks(wildcards.model, wildcards.family))


def group_training_neurons(wildcards):
    """The neurons of the training tasks of the job's {family}'s group."""
    return neurons_of(PLAN.groups(wildcards.model)[wildcards.family][0])


def controlled_splits(wildcards):
    """The splits a controlled-overlap job of the job's {pair} trains and scores."""
    return scored_splits(PLAN.controlled_tasks(wildcards.model, wildcards.pair))


def controlled_neurons(wildcards):
    """The neurons of the tasks a controlled-overlap job of the job's {pair} trains and
    scores."""
    return neurons_of(PLAN.controlled_tasks(wildcards.model, wildcards.pair))


def similarity_splits(wildcards):
    """The splits a similarity model M_{task} trains on and is compared on."""
    return scored_splits([wildcards.task, *PLAN.similarity_tasks(wildcards.model)[1]])


def group_task_neurons(wildcards):
    """Every group's task neurons on the job's {model} (B-T8), as ``<family>_train`` and
    ``<family>_test`` lists (families abbreviated, as Plan.groups keys them)."""
    return {
        f"{family}_{role}": neurons_of(tasks)
        for family, group in PLAN.groups(wildcards.model).items()
        for role, tasks in zip(("train", "test"), group)
    }


def zero_shot_scores(wildcards):
    """The zero-shot scores a proportion table starts from: the classification tasks'
    (``zero_shot``) and, with a generation group, the generation tasks'
    (``generation_zero_shot``)."""
    groups = PLAN.groups(wildcards.model)
    return {
        key: [filled(rules.zero_shot.output, family=family)]
        for key, family in (
            ("zero_shot", "classification"),
            ("generation_zero_shot", "generation"),
        )
        if FAMILIES[family] in groups
    }


def group_sweeps(wildcards):
    """B-F2's proportion sweeps: each group's training tasks trained together, run by
    run."""
    families = list(PLAN.groups(wildcards.model))
    return expand(
        rules.proportion_training.output.results,
        family=families,
        trained="group",
        allow_missing=True,
    )


def single_task_sweeps(wildcards):
    """B-F6's proportion sweeps, one model per training task, run by run (none for a
    group of one training task, whose B-F6 sweep is its B-F2 sweep)."""
    trained = [
        (family, task)
        for family, (train, _) in PLAN.groups(wildcards.model).items()
        if len(train) > 1
        for task in train
    ]
    return expand(
        rules.proportion_training.output.results,
        zip,
        family=[family for family, _ in trained],
        trained=[task for _, task in trained],
        allow_missing=True,
    )


def controlled_sweeps(wildcards):
    """B-T9..B-T11's results, run by run, per pair of groups and share q."""
    return expand(
        rules.controlled_overlap.output.results,
        pair=PLAN.controlled_pairs(wildcards.model),
        q=PLAN.controlled,
        allow_missing=True,
    )


def generalization_sweeps(wildcards):
    """Every generalization result of the job's {model}: B-F2's, B-F6's and
    B-T9..B-T11's."""
    return {
        "group": group_sweeps(wildcards),
        "single": single_task_sweeps(wildcards),
        "controlled": controlled_sweeps(wildcards),
    }


def similarities(wildcards):
    """Every M_i's per-layer similarities, run by run (B-F3, B-T4)."""
    trained, _ = PLAN.similarity_tasks(wildcards.model)
    return expand(rules.similarity_model.output.similarities, task=trained, allow_missing=True)


def similarity_scores(wildcards):
    """Every M_i's scores on the test tasks, run by run (B-T4)."""
    trained, _ = PLAN.similarity_tasks(wildcards.model)
    return expand(rules.similarity_model.output.scores, task=trained, allow_missing=True)


def similarity_results(wildcards):
    """B-F3's and B-T4's results as paper B's findings read them."""
    return {
        "similarities": similarities(wildcards),
        "similarity_scores": similarity_scores(wildcards),
    }


def generation_part_one(wildcards):
    """On a model that runs the generation tasks, their B-T1 results, every task's B-T2
    results and the zero-shot scores they start from; none on the others."""
    if not (PLAN.generation_on and wildcards.model in PLAN.generation_models):
        return {}
    return {
        "generation_deactivation": expand(
            rules.deactivation.output.results, family="generation", allow_missing=True
        ),
        "generation_training": expand(
            rules.neuron_training.output.results, task=PLAN.generation_tasks, allow_missing=True
        ),
        "generation_zero_shot": filled(rules.zero_shot.output, family="generation"),
    }


def continual_trained():
    """Every order's continual-learning results, order by order (then run, then method:
    skillneurons.paper_b.continual.read_order_results splits them by order)."""
    methods = expand(
        rules.continual_training.output.results, method=PLAN.continual_methods, allow_missing=True
    )
    return for_each(methods, order=list(PLAN.continual_orders))


def continual_per_task():
    """Every run's per-task fine-tuning of each task of the orders, run by run."""
    return expand(
        rules.per_task_training.output.results, task=PLAN.continual_tasks, allow_missing=True
    )


def continual_findings_results(wildcards):
    """The continual-learning results behind paper B's findings (none without an
    order)."""
    if not PLAN.continual_orders:
        return {}
    return {"continual_trained": continual_trained(), "continual_per_task": continual_per_task()}


# ---------------------------------------------------------------- pages


def explorer_inputs(wildcards):
    """What the neuron explorer of {model} reads: every task's ranking, trial 0's test
    dump and Eq. 3 baseline, test split (its texts) and perturbation curves; paper B's
    task-neuron files and B-T1's deactivation (its first training run's) where paper B
    runs; A-T2's words where the configuration makes A-T2."""
    tasks = list(PLAN.tasks)
    words = PLAN.makes("A-T2, A-T6", wildcards.model)
    return {
        "rankings": expand(rules.rank_neurons.output.ranking, task=tasks, allow_missing=True),
        "test_dumps": expand(
            rules.dump_activations.output.test[0], task=tasks, allow_missing=True
        ),
        "test_splits": expand(rules.split.output.test, task=tasks),
        "baselines": expand(
            rules.dump_activations.output.baseline[0], task=tasks, allow_missing=True
        ),
        "perturbation": expand(rules.perturbation_curves.output, task=tasks, allow_missing=True),
        "task_neurons": neurons_of(PLAN.paper_b_tasks),
        "deactivation": (
            [filled(rules.deactivation.output.results[0], family="classification")]
            if PLAN.paper_b_tasks
            else []
        ),
        "words": [rules.word_selectivity.output.words] if words else [],
    }


def findings_tables(wildcards):
    """The findings tables of {model} that the verdict summary reads: ``paper_a`` (A's
    findings) and ``paper_b`` (B's and the A-vs-B claims), each where this configuration
    makes it."""
    tables = {
        "paper_a": ("§4-§5 claims", rules.findings.output.csv),
        "paper_b": ("paper B claims", rules.findings_b.output.csv),
    }
    return {key: path for key, (ids, path) in tables.items() if PLAN.makes(ids, wildcards.model)}


# ---------------------------------------------------------------- settings of a job


def model_spec(wildcards):
    """How to load model {model} (skillneurons.models.specs)."""
    return PLAN.models[wildcards.model]


def task_label_words(wildcards):
    """The verbalizer's label words of {task} (skillneurons.models.label_words)."""
    return PLAN.label_words(wildcards.task)


def task_definition(wildcards):
    """Config task_definitions' entry of {task} (None for a built-in task)."""
    return config["task_definitions"].get(wildcards.task)


def dataset_revision(wildcards):
    """The dataset revision a Hub task {task} loads (config data.revisions)."""
    return config["data"]["revisions"].get(wildcards.task, "main")


def local_dataset(wildcards):
    """A local copy of a Hub task {task}'s dataset (config data.local_datasets), if any."""
    return config["data"]["local_datasets"].get(wildcards.task)


def pass_trials_of(wildcards):
    """The trials of the job's pass {trials} (``0-2``: 0, 1, 2)."""
    return pass_trials(wildcards.trials)


def pass_seeds(wildcards):
    """seed + t for each trial t of the job's pass {trials}."""
    return PLAN.seeds(pass_trials(wildcards.trials))


def scorers_of_family(wildcards):
    """How each part-1 task of the job's {family} is trained and scored."""
    return PLAN.scorer_params(PLAN.family_tasks(wildcards.family))


def model_groups(wildcards):
    """The task groups of §5 on {model}, family (abbreviated) -> (training tasks, test
    tasks) (Plan.groups)."""
    return PLAN.groups(wildcards.model)
