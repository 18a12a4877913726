"""Skill neurons as a transferability indicator (paper A, §6.2): zero-shot prompt transfer
between tasks with the same label words, overlap of activated neurons (ON), Spearman
correlations (table A-S6.2) and their scatter plot (figure A-S6.2)."""

from skillneurons.paper_a.registry import PAPER_A


# Tables and figures from finished results: run on the submitting host under a
# cluster executor.
localrules:
    transfer_table,
    figure_transfer,


rule prompt_transfer:
    input:
        model=model_files,
        tests=expand("data/splits/{task}/test.parquet", task=list(PLAN.tasks)),
        rankings=expand(
            "results/{{model}}/rankings/{task}.parquet", task=list(PLAN.tasks)
        ),
        prompts=expand(
            "results/{{model}}/prompt_tuning/{task}/trial{trial}/prompt.safetensors",
            task=list(PLAN.tasks),
            trial=PLAN.trials,
        ),
    output:
        "results/{model}/transfer/pairs.parquet",
    log:
        "logs/{model}/transfer/pairs.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=lambda w: PLAN.models[w.model],
        tasks=list(PLAN.tasks),
        label_words={task: label_words(task) for task in PLAN.tasks},
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["prompt_tuning"]["eval_batch_size"],
        settings=pick(
            "transfer", ["skill_fraction", "positions", "measure", "max_samples"]
        ),
        per_layer=config["ranking"]["scope"] == "per_layer",
        subset_seed=config["seed"],
    script:
        "../../scripts/paper_a/prompt_transfer.py"


rule transfer_table:
    input:
        "results/{model}/transfer/pairs.parquet",
    output:
        **paper_outputs(PAPER_A, "transfer_table"),
    log:
        "logs/{model}/tables/A-S6.2.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        include_self=config["transfer"]["include_self"],
    script:
        "../../scripts/paper_a/transfer_table.py"


rule figure_transfer:
    input:
        "results/{model}/transfer/pairs.parquet",
    output:
        **paper_outputs(PAPER_A, "figure_transfer"),
    log:
        "logs/{model}/figures/A-S6.2.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        include_self=config["transfer"]["include_self"],
    script:
        "../../scripts/paper_a/figure_transfer.py"
