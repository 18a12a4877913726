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
