"""Input functions of the shared stages (data, prompts, activations, rankings)."""


def tasks_from(source):
    """The configured tasks whose examples come from ``source`` (hub, synthetic, file)."""
    return [name for name, spec in TASKS.items() if spec.source == source]


def subtask_files(task, split):
    """The split files of a task's binary subtasks (none for binary tasks)."""
    return [
        f"data/splits/{task}/subtasks/{sub.name}/{split}.parquet"
        for sub in TASKS[task].subtasks
    ]


def split_files():
    """Every split of every task, and every split of every binary subtask."""
    files = expand("data/splits/{task}/{split}.parquet", task=list(TASKS), split=SPLITS)
    for task in TASKS:
        files += [path for split in SPLITS for path in subtask_files(task, split)]
    return files
