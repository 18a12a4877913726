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
        model=model_files,
        tests=expand(rules.split.output.test, task=PLAN.tasks),
        rankings=expand(rules.rank_neurons.output.ranking, task=PLAN.tasks, allow_missing=True),
        prompts=expand(
            rules.prompt_tuning_trial.output.prompt,
            task=PLAN.tasks,
            trial=PLAN.trials,
            allow_missing=True,
        ),
    output:
        "results/{model}/transfer/pairs.parquet",
    log:
        "logs/{model}/transfer/pairs.log",
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=model_spec,
        tasks=list(PLAN.tasks),
        label_words={task: PLAN.label_words(task) for task in PLAN.tasks},
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["prompt_tuning"]["eval_batch_size"],
        settings=pick("transfer", ["skill_fraction", "positions", "measure", "max_samples"]),
        per_layer=config["ranking"]["scope"] == "per_layer",
        subset_seed=config["seed"],
    script:
        "../../scripts/paper_a/prompt_transfer.py"


rule transfer_table:
    input:
        rules.prompt_transfer.output,
    output:
        csv=reported("results/{model}/tables/A-S6.2.csv"),
        md="results/{model}/tables/A-S6.2.md",
        matrix_csv=reported("results/{model}/tables/A-S6.2_transfer.csv"),
        matrix_md="results/{model}/tables/A-S6.2_transfer.md",
    log:
        "logs/{model}/tables/A-S6.2.log",
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        include_self=config["transfer"]["include_self"],
    script:
        "../../scripts/paper_a/transfer_table.py"


rule figure_transfer:
    input:
        rules.prompt_transfer.output,
    output:
        png=reported("results/{model}/figures/A-S6.2.png"),
        pdf="results/{model}/figures/A-S6.2.pdf",
    log:
        "logs/{model}/figures/A-S6.2.log",
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        include_self=config["transfer"]["include_self"],
    script:
        "../../scripts/paper_a/figure_transfer.py"
