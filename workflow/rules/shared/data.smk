"""Task data: raw examples (Hub download, synthetic generation or a user file), splits and
binary subtasks. Outputs: data/raw/{task}.parquet, data/splits/{task}/{split}.parquet,
data/splits/{task}/subtasks/{subtask}/{split}.parquet (schemas in skillneurons.data.splits).
"""


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
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        runtime=60,
    params:
        definition=None,
        revision=lambda w: config["data"]["revisions"].get(w.task, "main"),
        cache_dir=config["data"]["cache_dir"],
        local_copy=lambda w: config["data"]["local_datasets"].get(w.task),
    script:
        "../../scripts/shared/raw_examples.py"


rule synthesize:
    output:
        "data/raw/{task}.parquet",
    log:
        "logs/data/synthesize/{task}.log",
    wildcard_constraints:
        task=names_regex(PLAN.tasks_from("synthetic")),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        definition=None,
        seed=config["seed"],
        synthetic_sizes={
            split: config["synthetic"][f"{split}_size"] for split in PLAN.splits
        },
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
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    params:
        definition=lambda w: config["task_definitions"][w.task],
    script:
        "../../scripts/shared/raw_examples.py"


rule split:
    input:
        "data/raw/{task}.parquet",
    output:
        expand("data/splits/{{task}}/{split}.parquet", split=PLAN.splits),
    log:
        "logs/data/split/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    params:
        definition=lambda w: config["task_definitions"].get(w.task),
        seed=config["seed"],
        dev_fraction=config["data"]["dev_fraction"],
        test_fraction=config["data"]["test_fraction"],
    script:
        "../../scripts/shared/split.py"


rule subtask_split:
    input:
        "data/splits/{task}/{split}.parquet",
    output:
        "data/splits/{task}/subtasks/{subtask}/{split}.parquet",
    log:
        "logs/data/subtask_split/{task}/{subtask}/{split}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        definition=lambda w: config["task_definitions"].get(w.task),
        seed=config["seed"],
    script:
        "../../scripts/shared/subtask_split.py"
