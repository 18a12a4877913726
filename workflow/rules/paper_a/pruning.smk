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
        splits=expand("data/splits/{{task}}/{split}.parquet", split=SPLITS),
        ranking="results/{model}/rankings/{task}.parquet",
        baselines=lambda w: trial_files(
            w, "activations/{task}/trial{trial}/baseline.safetensors"
        ),
        prompts=lambda w: trial_files(
            w, "prompt_tuning/{task}/trial{trial}/prompt.safetensors"
        ),
    output:
        models=expand(
            "results/{{model}}/pruning/{{task}}/trial{trial}/model.safetensors",
            trial=TRIALS,
        ),
        configs=expand(
            "results/{{model}}/pruning/{{task}}/trial{trial}/model.json", trial=TRIALS
        ),
        prompts=expand(
            "results/{{model}}/pruning/{{task}}/trial{trial}/prompt.safetensors",
            trial=TRIALS,
        ),
        metrics=expand(
            "results/{{model}}/pruning/{{task}}/trial{trial}/metrics.json",
            trial=TRIALS,
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
        model=lambda w: MODELS[w.model],
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
        per_layer=config["ranking"]["scope"] == "per_layer",
        seeds=[config["seed"] + trial for trial in TRIALS],
    script:
        "../../scripts/paper_a/prune_model.py"


rule pruning_speed:
    input:
        model=model_files,
        tests=expand("data/splits/{task}/test.parquet", task=list(TASKS)),
        models=lambda w: task_trial_files(
            w.model, "pruning/{task}/trial{trial}/model.safetensors"
        ),
        configs=lambda w: task_trial_files(
            w.model, "pruning/{task}/trial{trial}/model.json"
        ),
        prompts=lambda w: task_trial_files(
            w.model, "pruning/{task}/trial{trial}/prompt.safetensors"
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
        model=lambda w: MODELS[w.model],
        tasks=list(TASKS),
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["pruning"]["speed_batch_size"],
        repeats=config["pruning"]["speed_repeats"],
        warmup=config["pruning"]["speed_warmup"],
    script:
        "../../scripts/paper_a/pruning_speed.py"


rule pruning_table:
    input:
        prompt_metrics=lambda w: task_trial_files(
            w.model, "prompt_tuning/{task}/trial{trial}/metrics.json"
        ),
        pruned_metrics=lambda w: task_trial_files(
            w.model, "pruning/{task}/trial{trial}/metrics.json"
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
