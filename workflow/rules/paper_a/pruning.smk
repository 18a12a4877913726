"""Pruning to skill neurons (paper A, §6.1): pruned models with re-tuned prompts per model x
task (every trial in one job), their CPU speed against the unpruned model, Table A-T4.
"""

from skillneurons.paper_a.registry import PAPER_A


# Tables and figures from finished results: run on the submitting host under a
# cluster executor.
localrules:
    pruning_table,


rule prune_model:
    input:
        model=model_files,
        splits=expand("data/splits/{{task}}/{split}.parquet", split=PLAN.splits),
        ranking="results/{model}/rankings/{task}.parquet",
        baselines=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/baseline.safetensors",
            trial=PLAN.trials,
        ),
        prompts=expand(
            "results/{{model}}/prompt_tuning/{{task}}/trial{trial}/prompt.safetensors",
            trial=PLAN.trials,
        ),
    output:
        models=expand(
            "results/{{model}}/pruning/{{task}}/trial{trial}/model.safetensors",
            trial=PLAN.trials,
        ),
        configs=expand(
            "results/{{model}}/pruning/{{task}}/trial{trial}/model.json",
            trial=PLAN.trials,
        ),
        prompts=expand(
            "results/{{model}}/pruning/{{task}}/trial{trial}/prompt.safetensors",
            trial=PLAN.trials,
        ),
        metrics=expand(
            "results/{{model}}/pruning/{{task}}/trial{trial}/metrics.json",
            trial=PLAN.trials,
        ),
    log:
        "logs/{model}/pruning/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=lambda w: PLAN.models[w.model],
        label_words=lambda w: label_words(w.task),
        prompt_tuning=pick(
            "prompt_tuning",
            [
                "learning_rate",
                "batch_size",
                "eval_batch_size",
                "init_std",
                "max_length",
            ],
        ),
        pruning=pick(
            "pruning",
            [
                "layers_fraction",
                "keep",
                "frozen_baseline",
                "prompt_init",
                "max_steps",
                "eval_every",
                "patience",
            ],
        ),
        per_layer=config["pruning"]["scope"] == "per_layer",
        seeds=[config["seed"] + trial for trial in PLAN.trials],
    script:
        "../../scripts/paper_a/prune_model.py"


rule pruning_speed:
    input:
        model=model_files,
        tests=expand("data/splits/{task}/test.parquet", task=list(PLAN.tasks)),
        models=expand(
            "results/{{model}}/pruning/{task}/trial{trial}/model.safetensors",
            task=list(PLAN.tasks),
            trial=PLAN.trials,
        ),
        configs=expand(
            "results/{{model}}/pruning/{task}/trial{trial}/model.json",
            task=list(PLAN.tasks),
            trial=PLAN.trials,
        ),
        prompts=expand(
            "results/{{model}}/pruning/{task}/trial{trial}/prompt.safetensors",
            task=list(PLAN.tasks),
            trial=PLAN.trials,
        ),
    output:
        "results/{model}/pruning/speed.json",
    log:
        "logs/{model}/pruning/speed.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: config["pruning"]["speed_threads"]
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=lambda w: PLAN.models[w.model],
        tasks=list(PLAN.tasks),
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["pruning"]["speed_batch_size"],
        repeats=config["pruning"]["speed_repeats"],
        warmup=config["pruning"]["speed_warmup"],
    script:
        "../../scripts/paper_a/pruning_speed.py"


rule pruning_table:
    input:
        prompt_metrics=expand(
            "results/{{model}}/prompt_tuning/{task}/trial{trial}/metrics.json",
            task=list(PLAN.tasks),
            trial=PLAN.trials,
        ),
        pruned_metrics=expand(
            "results/{{model}}/pruning/{task}/trial{trial}/metrics.json",
            task=list(PLAN.tasks),
            trial=PLAN.trials,
        ),
        speed="results/{model}/pruning/speed.json",
    output:
        **paper_outputs(PAPER_A, "pruning_table"),
    log:
        "logs/{model}/tables/A-T4.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/paper_a/pruning_table.py"
