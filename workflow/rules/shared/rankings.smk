"""Skill-neuron rankings (paper A, §3.1-3.2): the predictivity of every neuron under every
definition, each task's ranking and each trial's top skill neuron, with the held-out
test correctness of the neurons the prompts and Figure 3's Avg./Max. baselines select
on dev. Paper B compares its task-specific neurons with these rankings."""


rule rank_neurons:
    input:
        dev="data/splits/{task}/dev.parquet",
        subtasks=lambda w: PLAN.subtask_files(w.task, "dev"),
        test="data/splits/{task}/test.parquet",
        test_subtasks=lambda w: PLAN.subtask_files(w.task, "test"),
        baselines=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/baseline.safetensors",
            trial=PLAN.trials,
        ),
        dev_dumps=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/dev.parquet",
            trial=PLAN.trials,
        ),
        dev_input_dumps=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/dev_input.parquet",
            trial=PLAN.trials,
        ),
        test_dumps=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/test.parquet",
            trial=PLAN.trials,
        ),
        test_input_dumps=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/test_input.parquet",
            trial=PLAN.trials,
        ),
    output:
        ranking="results/{model}/rankings/{task}.parquet",
        predictivity="results/{model}/predictivity/{task}.safetensors",
        top_neurons="results/{model}/skill_neurons/tuned/{task}.json",
    log:
        "logs/{model}/rankings/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        # Seeds the random key that breaks ties in predictivity.
        seed=config["seed"],
    script:
        "../../scripts/shared/rank_neurons.py"
