"""Paper B's generation tasks on causal LMs (§4.1-4.2, Table 3 group b): their splits,
and the tables and figure of B-T1's and B-T2's generation rows and B-F5's generation
panels, for the models of paper_b.generation.models (their task neurons, deactivation
and neuron-only training run through neurons.smk's rules, as the classification
tasks')."""

from skillneurons.paper_b.registry import PAPER_B


localrules:
    generation_split,
    generation_training_table,
    generation_deactivation_table,
    figure_generation_specificity,


rule generation_split:
    output:
        expand("data/generation/{{task}}/{split}.parquet", split=PLAN.splits),
    log:
        "logs/data/generation_split/{task}.log",
    wildcard_constraints:
        task=names_regex(PLAN.generation_tasks),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        sizes=config["paper_b"]["generation"]["sizes"],
        max_samples=config["paper_b"]["generation"]["max_samples"],
        dev_fraction=config["data"]["dev_fraction"],
        revision=lambda w: config["data"]["revisions"].get(w.task, "main"),
        cache_dir=config["data"]["cache_dir"],
        local_copy=lambda w: config["data"]["local_datasets"].get(w.task),
        seed=config["seed"],
    script:
        "../../scripts/paper_b/generation_split.py"


rule generation_training_table:
    input:
        training=lambda w: PLAN.neuron_training_files(w.model, PLAN.generation_tasks),
        zero_shot="results/{model}/paper_b/generation/zero_shot.parquet",
    output:
        **paper_outputs(PAPER_B, "generation_training_table"),
    log:
        "logs/{model}/tables/B-T2_generation.log",
    wildcard_constraints:
        model=names_regex(PLAN.generation_models),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="B-T2, generation: ROUGE-L (x100) after training random or only the task's neurons",
    script:
        "../../scripts/paper_b/training_table.py"


rule generation_deactivation_table:
    input:
        lambda w: PLAN.deactivation_files(w.model, "generation"),
    output:
        **paper_outputs(PAPER_B, "generation_deactivation_table"),
    log:
        "logs/{model}/tables/B-T1_generation.log",
    wildcard_constraints:
        model=names_regex(PLAN.generation_models),
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
        "../../scripts/paper_b/deactivation_table.py"


rule figure_generation_specificity:
    input:
        deactivation=lambda w: PLAN.deactivation_files(w.model, "generation"),
        training=lambda w: PLAN.neuron_training_files(w.model, PLAN.generation_tasks),
        zero_shot="results/{model}/paper_b/generation/zero_shot.parquet",
    output:
        **paper_outputs(PAPER_B, "figure_generation_specificity"),
    log:
        "logs/{model}/figures/B-F5_generation.log",
    wildcard_constraints:
        model=names_regex(PLAN.generation_models),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        task_types=PLAN.generation_types,
        panels=["b", "d"],
        measure="ROUGE-L ",
        intervals=PLAN.intervals,
        title="B-F5, generation tasks: how much a task's neurons matter for each task "
        "(ROUGE-L points)",
    script:
        "../../scripts/paper_b/figure_task_specificity.py"
