"""Input functions of paper B's stages (rule files hold only rules and constants, as
`snakemake --lint` asks)."""


def task_split_files(tasks, splits=SPLITS):
    """Every split file of ``tasks``, task-major (the order skillneurons.paper_b reads)."""
    return [f"data/splits/{task}/{split}.parquet" for task in tasks for split in splits]


def paper_b_instructions(tasks):
    """Each task's instruction (paper_b.instructions by type, else the built-in one)."""
    chosen = {**INSTRUCTIONS, **config["paper_b"]["instructions"]}
    return {task: chosen[TASKS[task].type] for task in tasks}


def comparison_settings():
    """The AB-F1 curves' perturbation (paper_b.comparison.kind at every position), with
    the perturbation section's noise settings only when the kind reads them."""
    kind = config["paper_b"]["comparison"]["kind"]
    noise = (
        pick("perturbation", ["sigma", "mean", "unit", "draw"])
        if kind == "gaussian"
        else {}
    )
    return {"kind": kind, "positions": "all", **noise}


def generation_instruction(task):
    """A generation task's instruction (paper_b.instructions by type, else built-in)."""
    chosen = {**INSTRUCTIONS, **config["paper_b"]["instructions"]}
    return chosen[generation_spec(task).type]


def generation_budget(task):
    """A generation task's token budgets: paper_b.generation's prompt and target
    lengths, the task's own greedy-decoding budget."""
    return {
        "max_prompt_tokens": GENERATION["max_prompt_tokens"],
        "max_target_tokens": GENERATION["max_target_tokens"],
        "max_new_tokens": generation_spec(task).max_new_tokens,
    }


def generation_scoring(tasks):
    """How each generation task is scored (a rule's params; ScoredSplit.from_params):
    its instruction and token budgets."""
    return {
        task: {
            "instruction": generation_instruction(task),
            "budget": generation_budget(task),
        }
        for task in tasks
    }


def generalization_groups(model):
    """The task groups of §5 on ``model``, name -> (training tasks, test tasks): ``cls``
    (paper_b.generalization) when both its lists are non-empty and, where the model
    runs the generation tasks (paper_b.generation.models) and both generation groups
    are non-empty, ``gen``."""
    groups = {}
    if TRAIN_TASKS and TEST_TASKS:
        groups["cls"] = (TRAIN_TASKS, TEST_TASKS)
    if model in GENERATION_MODELS and GENERATION_TRAIN and GENERATION_TEST:
        groups["gen"] = (GENERATION_TRAIN, GENERATION_TEST)
    return groups


def overlap_groups(wildcards):
    """B-T8's groups on this model (:func:`generalization_groups`)."""
    return generalization_groups(wildcards.model)


def task_neuron_file(model, task):
    """A task's neurons on the base model: a classification task's from rule
    neuron_training, a generation task's from rule generation_training."""
    if task in GENERATION_TASKS:
        return f"results/{model}/paper_b/generation/neurons/{task}.parquet"
    return f"results/{model}/task_neurons/{task}.parquet"


def overlap_neuron_files(wildcards):
    """The task-neuron files of :func:`overlap_groups`, as ``{group}_train`` and
    ``{group}_test`` lists."""
    return {
        f"{name}_{role}": [task_neuron_file(wildcards.model, t) for t in tasks]
        for name, group in overlap_groups(wildcards).items()
        for role, tasks in zip(("train", "test"), group, strict=True)
    }


def scored_split_files(tasks):
    """Each task's train, dev and test split files in turn (classification splits or
    generation splits), the order skillneurons.paper_b.scorers reads."""
    return [
        (
            f"data/generation/{task}/{split}.parquet"
            if task in GENERATION_TASKS
            else f"data/splits/{task}/{split}.parquet"
        )
        for task in tasks
        for split in SPLITS
    ]


def scorer_params(tasks):
    """How each task is trained and scored (skillneurons.paper_b.scorers.task_scorers):
    a generation task by its instruction and budgets, a classification task by its
    label words and instruction."""
    instructions = paper_b_instructions([t for t in tasks if t not in GENERATION_TASKS])
    generation = {
        "kind": "generation",
        "batch_size": GENERATION["eval_batch_size"],
        "rouge_stemmer": GENERATION["rouge_stemmer"],
    }
    classification = {
        "kind": "classification",
        "batch_size": PAPER_B_CONFIG["batch_size"],
        "max_length": PAPER_B_CONFIG["max_length"],
    }
    return {
        task: (
            {**generation, **generation_scoring([task])[task]}
            if task in GENERATION_TASKS
            else {
                **classification,
                "label_words": label_words(task),
                "instruction": instructions[task],
            }
        )
        for task in tasks
    }


def proportion_test_groups(wildcards):
    """The test tasks a group's proportion sweep is scored on, group -> tasks: every
    group's on this model (cls -> cls and cls -> gen, gen -> cls and gen -> gen)."""
    return {
        name: test for name, (_, test) in generalization_groups(wildcards.model).items()
    }


def proportion_tasks(wildcards):
    """The tasks a proportion sweep of group ``wildcards.group`` trains and scores."""
    train = generalization_groups(wildcards.model)[wildcards.group][0]
    tests = proportion_test_groups(wildcards).values()
    return list(dict.fromkeys([*train, *(t for test in tests for t in test)]))


def controlled_groups(wildcards):
    """The training tasks of the pair's first group and the test tasks of its second."""
    first, second = wildcards.pair.split("-")
    groups = generalization_groups(wildcards.model)
    return groups[first][0], groups[second][1]


def controlled_tasks(wildcards):
    """The tasks a controlled-overlap job trains and scores: the pair's training
    tasks, then its test tasks."""
    train, test = controlled_groups(wildcards)
    return [*train, *test]


def controlled_pairs(model):
    """The configured B-T9..B-T11 pairs whose groups ``model`` has."""
    groups = generalization_groups(model)
    return [
        pair
        for pair in GENERALIZATION["controlled_pairs"]
        if all(name in groups for name in pair.split("-"))
    ]


def generalization_files(wildcards):
    """Every generalization result file of this model: per group, B-F2's (``group``)
    and B-F6's (one per training task; none for a group of one training task, whose
    B-F6 sweep is its B-F2 sweep: paper_b.generalization.with_single_task_groups)
    proportion sweeps; per controlled pair and q, B-T9..B-T11's results."""
    folder = f"results/{wildcards.model}/paper_b/generalization"
    groups = generalization_groups(wildcards.model)
    return {
        "group": [f"{folder}/{name}/proportions/group.parquet" for name in groups],
        "single": [
            f"{folder}/{name}/proportions/{task}.parquet"
            for name, (train, _) in groups.items()
            if len(train) > 1
            for task in train
        ],
        "controlled": [
            f"{folder}/{pair}/controlled/{q}.parquet"
            for pair in controlled_pairs(wildcards.model)
            for q in CONTROLLED
        ],
    }


def zero_shot_files(wildcards):
    """The zero-shot scores a proportion table starts from: the classification tasks'
    (rule zero_shot) and, with a generation group, the generation tasks' (the
    zero-shot rows of rule generation_training)."""
    groups = generalization_groups(wildcards.model)
    files = {}
    if "cls" in groups:
        files["zero_shot"] = [f"results/{wildcards.model}/paper_b/zero_shot.parquet"]
    if "gen" in groups:
        files["generation_zero_shot"] = [
            f"results/{wildcards.model}/paper_b/generation/training/{task}.parquet"
            for task in GENERATION_TASKS
        ]
    return files


def similarity_tasks(wildcards):
    """The models M_i of B-F3/B-T4 (every group's training tasks) and the test tasks
    each is compared with (every group's)."""
    groups = generalization_groups(wildcards.model).values()
    trained = [task for train, _ in groups for task in train]
    tested = [task for _, test in groups for task in test]
    return trained, tested


def similarity_files(wildcards):
    """Every M_i's similarity and score files on this model."""
    folder = f"results/{wildcards.model}/paper_b/similarity"
    trained, _ = similarity_tasks(wildcards)
    return {
        "similarities": [f"{folder}/{task}.parquet" for task in trained],
        "similarity_scores": [f"{folder}/{task}_scores.parquet" for task in trained],
    }


def other_generation_tasks(task):
    """The generation tasks but ``task``: where its trained neurons, and the random
    sets trained on it, are also scored (B-F5d and its control)."""
    return [other for other in GENERATION_TASKS if other != task]


def generation_findings_files(wildcards):
    """On a model that runs the generation tasks, their B-T1 results
    (``generation_deactivation``) and every task's B-T2 results
    (``generation_training``); none on the others."""
    if not (GENERATION_ON and wildcards.model in GENERATION_MODELS):
        return {}
    folder = f"results/{wildcards.model}/paper_b/generation"
    return {
        "generation_deactivation": f"{folder}/deactivation.parquet",
        "generation_training": [
            f"{folder}/training/{task}.parquet" for task in GENERATION_TASKS
        ],
    }
