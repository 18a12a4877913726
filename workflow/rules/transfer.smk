"""Skill neurons as a transferability indicator (paper A, §6.2): zero-shot prompt transfer
between tasks with the same label words, overlap of activated neurons (ON), Spearman
correlations (table A-S6.2) and their scatter plot (figure A-S6.2)."""


# Tables and figures from finished results: run on the submitting host under a
# cluster executor.
localrules:
    transfer_table,
    figure_transfer,


rule prompt_transfer:
    input:
        tests=expand("data/splits/{task}/test.parquet", task=list(TASKS)),
        rankings=expand("results/{{model}}/rankings/{task}.parquet", task=list(TASKS)),
        prompts=lambda w: task_trial_files(
            w.model, "prompt_tuning/{task}/trial{trial}/prompt.safetensors"
        ),
    output:
        "results/{model}/transfer/pairs.parquet",
    log:
        "logs/{model}/transfer/pairs.log",
    conda:
        "../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=lambda w: MODELS[w.model],
        tasks=list(TASKS),
        label_words={task: label_words(task) for task in TASKS},
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["prompt_tuning"]["eval_batch_size"],
        settings=config["transfer"],
        per_layer=config["ranking"]["scope"] == "per_layer",
    script:
        "../scripts/prompt_transfer.py"


rule transfer_table:
    input:
        "results/{model}/transfer/pairs.parquet",
    output:
        csv=report(
            "results/{model}/tables/A-S6.2.csv",
            caption="../report/A-S6.2.rst",
            category="Paper A: transferability",
        ),
        md="results/{model}/tables/A-S6.2.md",
        matrix_csv=report(
            "results/{model}/tables/A-S6.2_transfer.csv",
            caption="../report/A-S6.2_transfer.rst",
            category="Paper A: transferability",
        ),
        matrix_md="results/{model}/tables/A-S6.2_transfer.md",
    log:
        "logs/{model}/tables/A-S6.2.log",
    conda:
        "../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        include_self=config["transfer"]["include_self"],
    script:
        "../scripts/transfer_table.py"


rule figure_transfer:
    input:
        "results/{model}/transfer/pairs.parquet",
    output:
        png=report(
            "results/{model}/figures/A-S6.2.png",
            caption="../report/A-S6.2_figure.rst",
            category="Paper A: transferability",
        ),
        pdf="results/{model}/figures/A-S6.2.pdf",
    log:
        "logs/{model}/figures/A-S6.2.log",
    conda:
        "../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        include_self=config["transfer"]["include_self"],
    script:
        "../scripts/figure_transfer.py"


STAGE_TARGETS.append(
    lambda: expand(
        "results/{model}/tables/{table}.{ext}",
        model=list(MODELS),
        table=["A-S6.2", "A-S6.2_transfer"],
        ext=["csv", "md"],
    )
    + expand(
        "results/{model}/figures/A-S6.2.{ext}", model=list(MODELS), ext=["png", "pdf"]
    )
)
