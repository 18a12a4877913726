"""Paper B's generation tasks on causal LMs (§4.1-4.2, Table 3 group b): their splits,
task neurons, B-T1's and B-T2's generation rows and B-F5's generation panels, for the
models of paper_b.generation.models."""

from skillneurons.data.generation import generation_spec
from skillneurons.paper_b.groups import task_groups

GENERATION = PAPER_B_CONFIG["generation"]
GENERATION_TASKS = list(GENERATION["tasks"])
GENERATION_MODELS = list(GENERATION["models"])
GENERATION_ON = bool(GENERATION_TASKS and GENERATION_MODELS)
# The generation group (Table 3, group b): training and out-of-domain test tasks.
GENERATION_TRAIN, GENERATION_TEST = task_groups(
    GENERATION_TASKS,
    {task: generation_spec(task).type for task in GENERATION_TASKS},
    GENERATION["train_tasks"],
    GENERATION["test_tasks"],
    section="paper_b.generation",
    pool="paper_b.generation.tasks",
)
GENERATION_SPLITS = ("train", "dev", "test")
GENERATION_DIR = "results/{model}/paper_b/generation"


localrules:
    generation_split,
    generation_training_table,
    generation_deactivation_table,
    figure_generation_specificity,


rule generation_split:
    output:
        expand("data/generation/{{task}}/{split}.parquet", split=GENERATION_SPLITS),
    log:
        "logs/data/generation_split/{task}.log",
    wildcard_constraints:
        task=names_regex(GENERATION_TASKS),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        sizes=GENERATION["sizes"],
        max_samples=GENERATION["max_samples"],
        dev_fraction=config["data"]["dev_fraction"],
        revision=lambda w: config["data"]["revisions"].get(w.task, "main"),
        cache_dir=config["data"]["cache_dir"],
        local_copy=lambda w: config["data"]["local_datasets"].get(w.task),
        seed=config["seed"],
    script:
        "../../scripts/paper_b/generation_split.py"


rule generation_training:
    input:
        model=model_files,
        splits=expand(
            "data/generation/{{task}}/{split}.parquet", split=GENERATION_SPLITS
        ),
        others=lambda w: [
            f"data/generation/{task}/test.parquet"
            for task in other_generation_tasks(w.task)
        ],
    output:
        results=f"{GENERATION_DIR}/training/{{task}}.parquet",
        metrics=f"{GENERATION_DIR}/training/{{task}}.json",
        neurons=f"{GENERATION_DIR}/neurons/{{task}}.parquet",
    log:
        "logs/{model}/paper_b/generation_training/{task}.log",
    wildcard_constraints:
        task=names_regex(GENERATION_TASKS),
        model=names_regex(GENERATION_MODELS),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=240,
    params:
        model=lambda w: MODELS[w.model],
        instruction=lambda w: generation_instruction(w.task),
        budget=lambda w: generation_budget(w.task),
        others=lambda w: generation_scoring(other_generation_tasks(w.task)),
        training=GENERATION["training"],
        relevance=RELEVANCE,
        choice=CHOICE,
        random_draws=PAPER_B_CONFIG["random_draws"],
        batch_size=GENERATION["eval_batch_size"],
        rouge_stemmer=GENERATION["rouge_stemmer"],
        output_only=PAPER_B_CONFIG["parameters"] == "output_only",
        seed=config["seed"],
    script:
        "../../scripts/paper_b/generation_training.py"


rule generation_training_table:
    input:
        expand(
            "results/{{model}}/paper_b/generation/training/{task}.parquet",
            task=GENERATION_TASKS,
        ),
    output:
        **paper_outputs(PAPER_B, "generation_training_table"),
    log:
        "logs/{model}/tables/B-T2_generation.log",
    wildcard_constraints:
        model=names_regex(GENERATION_MODELS),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="B-T2, generation: ROUGE-L (x100) after training random or only the task's neurons",
    script:
        "../../scripts/paper_b/generation_training_table.py"


rule generation_deactivation:
    input:
        model=model_files,
        splits=expand(
            "data/generation/{task}/{split}.parquet",
            task=GENERATION_TASKS,
            split=GENERATION_SPLITS,
        ),
        base_neurons=(
            expand(
                "results/{{model}}/paper_b/generation/neurons/{task}.parquet",
                task=GENERATION_TASKS,
            )
            if IDENTIFY_ON["deactivation"] == "base"
            else []
        ),
    output:
        results=f"{GENERATION_DIR}/deactivation.parquet",
        metrics=f"{GENERATION_DIR}/multitask.json",
        neurons=expand(
            "results/{{model}}/paper_b/generation/multitask_neurons/{task}.parquet",
            task=GENERATION_TASKS,
        ),
    log:
        "logs/{model}/paper_b/generation_deactivation.log",
    wildcard_constraints:
        model=names_regex(GENERATION_MODELS),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        runtime=480,
    params:
        model=lambda w: MODELS[w.model],
        splits=GENERATION_SPLITS,
        scoring=generation_scoring(GENERATION_TASKS),
        training=GENERATION["multitask"],
        relevance=RELEVANCE,
        choice=CHOICE,
        random_draws=PAPER_B_CONFIG["random_draws"],
        batch_size=GENERATION["eval_batch_size"],
        rouge_stemmer=GENERATION["rouge_stemmer"],
        identify_on=IDENTIFY_ON["deactivation"],
        seed=config["seed"],
    script:
        "../../scripts/paper_b/generation_deactivation.py"


rule generation_deactivation_table:
    input:
        f"{GENERATION_DIR}/deactivation.parquet",
    output:
        **paper_outputs(PAPER_B, "generation_deactivation_table"),
    log:
        "logs/{model}/tables/B-T1_generation.log",
    wildcard_constraints:
        model=names_regex(GENERATION_MODELS),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="B-T1, generation: ROUGE-L (x100) of the multi-task model, random or the "
        "task's neurons deactivated",
    script:
        "../../scripts/paper_b/generation_deactivation_table.py"


rule figure_generation_specificity:
    input:
        deactivation=f"{GENERATION_DIR}/deactivation.parquet",
        training=expand(
            "results/{{model}}/paper_b/generation/training/{task}.parquet",
            task=GENERATION_TASKS,
        ),
    output:
        **paper_outputs(PAPER_B, "figure_generation_specificity"),
    log:
        "logs/{model}/figures/B-F5_generation.log",
    wildcard_constraints:
        model=names_regex(GENERATION_MODELS),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        task_types={task: generation_spec(task).type for task in GENERATION_TASKS},
        title="B-F5, generation tasks: how much a task's neurons matter for each task "
        "(ROUGE-L points)",
    script:
        "../../scripts/paper_b/figure_generation_specificity.py"
