"""Skill neurons (paper A, §3-§5): the top neuron's accuracy against prompt tuning (Table
A-T1), controls without prompt tuning (Table A-T3), Figures A-F1/F2/F3/F9/F10."""

from skillneurons.paper_a.controls import CONTROLS, TABLE_SETTINGS
from skillneurons.paper_a.registry import PAPER_A


# Run on the submitting host under a cluster executor (quick, or needs network).
localrules:
    prompt_tuning_table,
    skill_neuron_table,
    control_table,
    figure_activation_histogram,
    figure_subtask_scatter,
    figure_predictivity_baselines,
    figure_predictivity_definitions,


rule control_top_neuron:
    """One job per task computes every trial's controls (issue 37: one process start in
    place of one per trial; each trial's files are what its own job wrote). Changing
    controls.trials reruns the job as a whole (the earlier trials recomputed
    identically), where one job per trial ran only the new trials."""
    input:
        model=model_files,
        splits=expand("data/splits/{{task}}/{split}.parquet", split=PLAN.splits),
        dev="data/splits/{task}/dev.parquet",
        subtasks=lambda w: PLAN.subtask_files(w.task, "dev"),
    output:
        # trial-major: every control of trial 0, then of trial 1, ...
        expand(
            "results/{{model}}/skill_neurons/{control}/{{task}}/trial{trial}.json",
            trial=PLAN.control_trials,
            control=CONTROLS,
        ),
    log:
        "logs/{model}/skill_neurons/controls/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=lambda w: 60 * len(PLAN.control_trials),
    params:
        controls=list(CONTROLS),
        model=lambda w: PLAN.models[w.model],
        label_words=lambda w: label_words(w.task),
        prompt_length=config["prompt_tuning"]["prompt_length"],
        init_std=config["prompt_tuning"]["init_std"],
        trials=PLAN.control_trials,
        seeds=[config["seed"] + trial for trial in PLAN.control_trials],  # trial t: seed + t
        hard_prompt=lambda w: PLAN.hard_prompt(w.task),
        # the baseline, dumps and top neuron as for the tuned prompts
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["activations"]["batch_size"],
        baseline_samples=config["activations"]["baseline_samples"],
        max_samples=config["activations"]["max_samples"],
        subset_seed=config["seed"],
    script:
        "../../scripts/paper_a/control_top_neuron.py"


rule prompt_tuning_table:
    input:
        expand(
            "results/{{model}}/prompt_tuning/{task}/trial{trial}/metrics.json",
            task=list(PLAN.tasks),
            trial=PLAN.trials,
        ),
    output:
        **paper_outputs(PAPER_A, "prompt_tuning_table"),
    log:
        "logs/{model}/tables/A-T1_prompt_tuning.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/paper_a/prompt_tuning_table.py"


rule skill_neuron_table:
    input:
        prompt_metrics=expand(
            "results/{{model}}/prompt_tuning/{task}/trial{trial}/metrics.json",
            task=list(PLAN.tasks),
            trial=PLAN.trials,
        ),
        neuron_results=expand(
            "results/{{model}}/skill_neurons/tuned/{task}.json", task=list(PLAN.tasks)
        ),
    output:
        **paper_outputs(PAPER_A, "skill_neuron_table"),
    log:
        "logs/{model}/tables/A-T1.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/paper_a/skill_neuron_table.py"


rule control_table:
    input:
        unpack(
            lambda w: {
                **{c: PLAN.control_files(w.model, c) for c in CONTROLS},
                "tuned": PLAN.task_files(w.model, "skill_neurons/tuned/{task}.json"),
            }
        ),
    output:
        **paper_outputs(PAPER_A, "control_table"),
    log:
        "logs/{model}/tables/A-T3.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        settings=list(TABLE_SETTINGS),
        num_labels={name: spec.num_labels for name, spec in PLAN.tasks.items()},
    script:
        "../../scripts/paper_a/control_table.py"


rule figure_activation_histogram:
    input:
        ranking=f"results/{{model}}/rankings/{PLAN.figure_task('A-F1')}.parquet",
        dev_dump=f"results/{{model}}/activations/{PLAN.figure_task('A-F1')}/trial0/dev.parquet",
        baseline=f"results/{{model}}/activations/{PLAN.figure_task('A-F1')}/trial0/baseline.safetensors",
    output:
        **paper_outputs(PAPER_A, "figure_activation_histogram"),
    log:
        "logs/{model}/figures/A-F1.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        task=PLAN.figure_task("A-F1"),
        label_names=lambda w: list(PLAN.tasks[PLAN.figure_task("A-F1")].label_names),
    script:
        "../../scripts/paper_a/figure_activation_histogram.py"


rule figure_subtask_scatter:
    input:
        ranking=f"results/{{model}}/rankings/{PLAN.figure_task('A-F2')}.parquet",
        dev_dump=f"results/{{model}}/activations/{PLAN.figure_task('A-F2')}/trial0/dev.parquet",
        baseline=f"results/{{model}}/activations/{PLAN.figure_task('A-F2')}/trial0/baseline.safetensors",
    output:
        **paper_outputs(PAPER_A, "figure_subtask_scatter"),
    log:
        "logs/{model}/figures/A-F2.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        task=PLAN.figure_task("A-F2"),
        subtasks=lambda w: [
            s.name for s in PLAN.tasks[PLAN.figure_task("A-F2")].subtasks
        ],
        label_names=lambda w: list(PLAN.tasks[PLAN.figure_task("A-F2")].label_names),
    script:
        "../../scripts/paper_a/figure_subtask_scatter.py"


rule figure_predictivity_baselines:
    input:
        expand(
            "results/{{model}}/predictivity/{task}.safetensors", task=list(PLAN.tasks)
        ),
    output:
        **paper_outputs(PAPER_A, "figure_predictivity_baselines"),
    log:
        "logs/{model}/figures/A-F3_F9.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        tasks=list(PLAN.tasks),
        series={
            "max": "prompt tokens (paper)",
            "input_avg": "Avg. over input tokens",
            "input_max": "Max. over input tokens",
        },
        title="A-F3/A-F9: neuron predictivity on dev, mean over trials",
        intervals=PLAN.intervals,
    script:
        "../../scripts/paper_a/figure_predictivity.py"


use rule figure_predictivity_baselines as figure_predictivity_definitions with:
    output:
        **paper_outputs(PAPER_A, "figure_predictivity_definitions"),
    log:
        "logs/{model}/figures/A-F10.log",
    params:
        tasks=list(PLAN.tasks),
        series={
            "max": "max over prompt tokens (paper)",
            "mean": "mean over prompt tokens",
            "positive": "positive correlation only",
        },
        title="A-F10: definitions of predictivity, mean over trials",
        intervals=PLAN.intervals,
