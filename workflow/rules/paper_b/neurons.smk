"""Paper B, part 1 (§3-§4, appendix A.4): task-specific neurons by gradient attribution;
deactivating them in a multi-task model (B-T1, B-F5a) and training only them (B-T2,
B-F5c); paper A's and paper B's neurons on the same prompt-tuned model (AB-T1, AB-F1).
"""

from skillneurons.paper_b.instructions import INSTRUCTIONS
from skillneurons.paper_b.registry import PAPER_B

PAPER_B_CONFIG = config["paper_b"]
# The tasks of paper B's experiments (null: every configured task).
PAPER_B_TASKS = task_subset("paper_b")
# What the attribution reads and which neurons it chooses (skillneurons.paper_b.relevance).
RELEVANCE = {
    "definition": PAPER_B_CONFIG["relevance"],
    "attribution_samples": PAPER_B_CONFIG["attribution_samples"],
    "batch_size": PAPER_B_CONFIG["batch_size"],
}
CHOICE = {
    "fraction": PAPER_B_CONFIG["fraction"],
    "per_layer": PAPER_B_CONFIG["scope"] == "per_layer",
}
IDENTIFY_ON = PAPER_B_CONFIG["identify_on"]
PAPER_B_DIR = "results/{model}/paper_b"


# Tables and figures from finished results: run on the submitting host under a
# cluster executor.
localrules:
    deactivation_table,
    training_table,
    figure_task_specificity,
    comparison_table,
    figure_comparison,


rule multitask_deactivation:
    input:
        model=model_files,
        splits=task_split_files(PAPER_B_TASKS),
        base_neurons=(
            expand("results/{{model}}/task_neurons/{task}.parquet", task=PAPER_B_TASKS)
            if IDENTIFY_ON["deactivation"] == "base"
            else []
        ),
    output:
        results=f"{PAPER_B_DIR}/deactivation.parquet",
        metrics=f"{PAPER_B_DIR}/multitask.json",
        neurons=expand(
            "results/{{model}}/paper_b/multitask_neurons/{task}.parquet",
            task=PAPER_B_TASKS,
        ),
    log:
        "logs/{model}/paper_b/multitask_deactivation.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        runtime=240,
    params:
        model=lambda w: MODELS[w.model],
        tasks=PAPER_B_TASKS,
        label_words={task: label_words(task) for task in PAPER_B_TASKS},
        instructions=paper_b_instructions(PAPER_B_TASKS),
        max_length=PAPER_B_CONFIG["max_length"],
        training=PAPER_B_CONFIG["multitask"],
        relevance=RELEVANCE,
        choice=CHOICE,
        random_draws=PAPER_B_CONFIG["random_draws"],
        by=PAPER_B_CONFIG["deactivation"],
        identify_on=IDENTIFY_ON["deactivation"],
        seed=config["seed"],
    script:
        "../../scripts/paper_b/multitask_deactivation.py"


rule zero_shot:
    input:
        model=model_files,
        tests=task_split_files(PAPER_B_TASKS, ["test"]),
    output:
        f"{PAPER_B_DIR}/zero_shot.parquet",
    log:
        "logs/{model}/paper_b/zero_shot.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=lambda w: MODELS[w.model],
        tasks=PAPER_B_TASKS,
        label_words={task: label_words(task) for task in PAPER_B_TASKS},
        instructions=paper_b_instructions(PAPER_B_TASKS),
        max_length=PAPER_B_CONFIG["max_length"],
        batch_size=PAPER_B_CONFIG["batch_size"],
    script:
        "../../scripts/paper_b/zero_shot.py"


rule neuron_training:
    input:
        model=model_files,
        splits=task_split_files(PAPER_B_TASKS),
        multitask_neurons=(
            f"{PAPER_B_DIR}/multitask_neurons/{{task}}.parquet"
            if IDENTIFY_ON["training"] == "multitask"
            else []
        ),
    output:
        results=f"{PAPER_B_DIR}/neuron_training/{{task}}.parquet",
        metrics=f"{PAPER_B_DIR}/neuron_training/{{task}}.json",
        neurons="results/{model}/task_neurons/{task}.parquet",
    log:
        "logs/{model}/paper_b/neuron_training/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=240,
    params:
        model=lambda w: MODELS[w.model],
        tasks=PAPER_B_TASKS,
        label_words={task: label_words(task) for task in PAPER_B_TASKS},
        instructions=paper_b_instructions(PAPER_B_TASKS),
        max_length=PAPER_B_CONFIG["max_length"],
        training=PAPER_B_CONFIG["neuron_training"],
        relevance=RELEVANCE,
        choice=CHOICE,
        random_draws=PAPER_B_CONFIG["random_draws"],
        identify_on=IDENTIFY_ON["training"],
        output_only=PAPER_B_CONFIG["parameters"] == "output_only",
        seed=config["seed"],
    script:
        "../../scripts/paper_b/neuron_training.py"


rule comparison:
    input:
        model=model_files,
        prompt="results/{model}/prompt_tuning/{task}/trial0/prompt.safetensors",
        ranking="results/{model}/rankings/{task}.parquet",
        baseline="results/{model}/activations/{task}/trial0/baseline.safetensors",
        train="data/splits/{task}/train.parquet",
        test="data/splits/{task}/test.parquet",
    output:
        curves=f"{PAPER_B_DIR}/comparison/{{task}}.parquet",
        agreement=f"{PAPER_B_DIR}/comparison/{{task}}.json",
        neurons=f"{PAPER_B_DIR}/prompt_tuned_neurons/{{task}}.parquet",
    log:
        "logs/{model}/paper_b/comparison/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=lambda w: MODELS[w.model],
        max_length=config["prompt_tuning"]["max_length"],
        relevance=RELEVANCE,
        fraction=PAPER_B_CONFIG["fraction"],
        rates=config["perturbation"]["rates"],
        settings=comparison_settings(),
        random_orders=PAPER_B_CONFIG["comparison"]["random_orders"],
        test_samples=config["perturbation"]["test_samples"],
        seed=config["seed"],
    script:
        "../../scripts/paper_b/comparison.py"


rule deactivation_table:
    input:
        f"{PAPER_B_DIR}/deactivation.parquet",
    output:
        **paper_outputs(PAPER_B, "deactivation_table"),
    log:
        "logs/{model}/tables/B-T1.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="B-T1: multi-task model accuracy (%): original, random and task neurons "
        "deactivated",
    script:
        "../../scripts/paper_b/deactivation_table.py"


rule training_table:
    input:
        training=expand(
            "results/{{model}}/paper_b/neuron_training/{task}.parquet",
            task=PAPER_B_TASKS,
        ),
        zero_shot=f"{PAPER_B_DIR}/zero_shot.parquet",
    output:
        **paper_outputs(PAPER_B, "training_table"),
    log:
        "logs/{model}/tables/B-T2.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="B-T2: accuracy (%) after training only random or only the task's neurons",
    script:
        "../../scripts/paper_b/training_table.py"


rule figure_task_specificity:
    input:
        deactivation=f"{PAPER_B_DIR}/deactivation.parquet",
        training=expand(
            "results/{{model}}/paper_b/neuron_training/{task}.parquet",
            task=PAPER_B_TASKS,
        ),
        zero_shot=f"{PAPER_B_DIR}/zero_shot.parquet",
    output:
        **paper_outputs(PAPER_B, "figure_task_specificity"),
    log:
        "logs/{model}/figures/B-F5.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        task_types=TASK_TYPES,
        title="B-F5: how much a task's neurons matter for each task (points)",
    script:
        "../../scripts/paper_b/figure_task_specificity.py"


rule comparison_table:
    input:
        agreements=expand(
            "results/{{model}}/paper_b/comparison/{task}.json", task=PAPER_B_TASKS
        ),
        curves=expand(
            "results/{{model}}/paper_b/comparison/{task}.parquet", task=PAPER_B_TASKS
        ),
    output:
        **paper_outputs(PAPER_B, "comparison_table"),
    log:
        "logs/{model}/tables/AB-T1.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        tasks=PAPER_B_TASKS,
        title="AB-T1: paper A's skill neurons vs paper B's task neurons on the "
        "prompt-tuned model",
    script:
        "../../scripts/paper_b/comparison_table.py"


rule figure_comparison:
    input:
        expand(
            "results/{{model}}/paper_b/comparison/{task}.parquet", task=PAPER_B_TASKS
        ),
    output:
        **paper_outputs(PAPER_B, "figure_comparison"),
    log:
        "logs/{model}/figures/AB-F1.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        tasks=PAPER_B_TASKS,
        kind=PAPER_B_CONFIG["comparison"]["kind"],
        title="AB-F1: accuracy as neurons are deactivated (or perturbed) in paper A's "
        "and paper B's orders and layer-matched random ones",
    script:
        "../../scripts/paper_b/figure_comparison.py"
