"""Task data: raw examples (Hub download, synthetic generation or a user file), splits and
binary subtasks (schemas in skillneurons.data.splits)."""


# Run on the submitting host under a cluster executor (quick, or needs network).
localrules:
    download,
    synthesize,
    import_task_file,
    split,
    subtask_split,


rule download:
    output:
        "data/raw/{task}.parquet",
    log:
        "logs/data/download/{task}.log",
    wildcard_constraints:
        task=names_regex(PLAN.tasks_from("hub")),
    resources:
        mem_mb=8000,
        runtime=60,
    params:
        definition=None,
        revision=dataset_revision,
        cache_dir=config["data"]["cache_dir"],
        local_copy=local_dataset,
    script:
        "../../scripts/shared/raw_examples.py"


rule synthesize:
    output:
        "data/raw/{task}.parquet",
    log:
        "logs/data/synthesize/{task}.log",
    wildcard_constraints:
        task=names_regex(PLAN.tasks_from("synthetic")),
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        definition=None,
        seed=config["seed"],
        synthetic_sizes={split: config["synthetic"][f"{split}_size"] for split in PLAN.splits},
        label_noise=config["synthetic"]["label_noise"],
    script:
        "../../scripts/shared/raw_examples.py"


rule import_task_file:
    input:
        lambda w: config["task_definitions"][w.task]["path"],
    output:
        "data/raw/{task}.parquet",
    log:
        "logs/data/import_task_file/{task}.log",
    wildcard_constraints:
        task=names_regex(PLAN.tasks_from("file")),
    resources:
        mem_mb=4000,
        runtime=10,
    params:
        definition=task_definition,
    script:
        "../../scripts/shared/raw_examples.py"


rule split:
    input:
        # written by download, synthesize or import_task_file, by the task's source
        "data/raw/{task}.parquet",
    output:
        train="data/splits/{task}/train.parquet",
        dev="data/splits/{task}/dev.parquet",
        test="data/splits/{task}/test.parquet",
    log:
        "logs/data/split/{task}.log",
    resources:
        mem_mb=4000,
        runtime=10,
    params:
        definition=task_definition,
        seed=config["seed"],
        dev_fraction=config["data"]["dev_fraction"],
        test_fraction=config["data"]["test_fraction"],
    script:
        "../../scripts/shared/split.py"


rule subtask_split:
    input:
        split_of,
    output:
        "data/splits/{task}/subtasks/{subtask}/{split}.parquet",
    log:
        "logs/data/subtask_split/{task}/{subtask}/{split}.log",
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        definition=task_definition,
        seed=config["seed"],
    script:
        "../../scripts/shared/subtask_split.py"
