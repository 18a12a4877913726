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


def overlap_groups(wildcards):
    """B-T8's groups on this model, name -> (training tasks, test tasks): ``cls`` (paper_b.
    generalization) and, where the model runs the generation tasks and both generation
    groups are non-empty, ``gen`` (paper_b.generation)."""
    groups = {}
    if GENERALIZATION_ON:
        groups["cls"] = (TRAIN_TASKS, TEST_TASKS)
    if wildcards.model in GENERATION_MODELS and GENERATION_TRAIN and GENERATION_TEST:
        groups["gen"] = (GENERATION_TRAIN, GENERATION_TEST)
    return groups


def overlap_neuron_files(wildcards):
    """The task-neuron files of :func:`overlap_groups`, as ``{group}_train`` and
    ``{group}_test`` lists (classification tasks' from rule neuron_training, generation
    tasks' from rule generation_training)."""
    paths = {
        "cls": "results/{model}/task_neurons/{task}.parquet",
        "gen": "results/{model}/paper_b/generation/neurons/{task}.parquet",
    }
    return {
        f"{name}_{role}": [
            paths[name].format(model=wildcards.model, task=t) for t in tasks
        ]
        for name, group in overlap_groups(wildcards).items()
        for role, tasks in zip(("train", "test"), group, strict=True)
    }


def other_generation_tasks(task):
    """The generation tasks but ``task``: where its trained neurons are also scored
    (B-F5d)."""
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
