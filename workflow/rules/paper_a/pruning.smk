"""Pruning to skill neurons (paper A, §6.1): pruned models with re-tuned prompts per model x
task (every trial in one job), their CPU speed against the unpruned model, Table A-T4.
"""


# Tables and figures from finished results: run on the submitting host under a
# cluster executor.
localrules:
    pruning_table,


rule prune_model:
    input:
        model=model_files,
        splits=rules.split.output,
        ranking=rules.rank_neurons.output.ranking,
        baselines=rules.dump_activations.output.baseline,
        prompts=expand(
            rules.prompt_tuning_trial.output.prompt, trial=PLAN.trials, allow_missing=True
        ),
    output:
        models=expand(
            "results/{{model}}/pruning/{{task}}/trial{trial}/model.safetensors", trial=PLAN.trials
        ),
        configs=expand(
            "results/{{model}}/pruning/{{task}}/trial{trial}/model.json", trial=PLAN.trials
        ),
        prompts=expand(
            "results/{{model}}/pruning/{{task}}/trial{trial}/prompt.safetensors",
            trial=PLAN.trials,
        ),
        metrics=expand(
            "results/{{model}}/pruning/{{task}}/trial{trial}/metrics.json", trial=PLAN.trials
        ),
    log:
        "logs/{model}/pruning/{task}.log",
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=model_spec,
        label_words=task_label_words,
        prompt_tuning=pick(
            "prompt_tuning",
            ["learning_rate", "batch_size", "eval_batch_size", "init_std", "max_length"],
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
        seeds=PLAN.seeds(PLAN.trials),
    script:
        "../../scripts/paper_a/prune_model.py"


rule pruning_speed:
    input:
        model=model_files,
        tests=expand(rules.split.output.test, task=PLAN.tasks),
        models=for_each(rules.prune_model.output.models, task=PLAN.tasks),
        configs=for_each(rules.prune_model.output.configs, task=PLAN.tasks),
        prompts=for_each(rules.prune_model.output.prompts, task=PLAN.tasks),
    output:
        speed="results/{model}/pruning/speed.json",
    log:
        "logs/{model}/pruning/speed.log",
    threads: config["pruning"]["speed_threads"]
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=model_spec,
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
            rules.prompt_tuning_trial.output.metrics,
            task=PLAN.tasks,
            trial=PLAN.trials,
            allow_missing=True,
        ),
        pruned_metrics=for_each(rules.prune_model.output.metrics, task=PLAN.tasks),
        speed=rules.pruning_speed.output.speed,
    output:
        csv=reported("results/{model}/tables/A-T4.csv"),
        md="results/{model}/tables/A-T4.md",
    log:
        "logs/{model}/tables/A-T4.log",
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/paper_a/pruning_table.py"
