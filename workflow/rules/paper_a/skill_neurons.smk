"""Skill neurons (paper A, §3-§5): the top neuron's accuracy against prompt tuning (Table
A-T1), controls without prompt tuning (Table A-T3), Figures A-F1/F2/F3/F9/F10."""

from skillneurons.paper_a.controls import CONTROLS, DEFAULT_HARD_PROMPTS, TABLE_SETTINGS
from skillneurons.paper_a.registry import PAPER_A

CONTROL_TRIALS = TRIALS[: config["controls"]["trials"]]
# Tasks drawn in single-task figures: A-F1 uses a binary sentiment task (paper: SST-2),
# A-F2 a three-way inference task (paper: MNLI); other tasks stand in when absent.
FIGURE_TASKS = {
    "histogram": first_task(lambda s: s.type == "sentiment" and s.num_labels == 2)
    or first_task(lambda s: s.num_labels == 2),
    "scatter": first_task(lambda s: s.type == "inference" and s.subtasks)
    or first_task(lambda s: bool(s.subtasks)),
}


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
    input:
        model=model_files,
        splits=expand("data/splits/{{task}}/{split}.parquet", split=SPLITS),
        dev="data/splits/{task}/dev.parquet",
        subtasks=lambda w: subtask_files(w.task, "dev"),
    output:
        expand(
            "results/{{model}}/skill_neurons/{control}/{{task}}/trial{{trial}}.json",
            control=CONTROLS,
        ),
    log:
        "logs/{model}/skill_neurons/controls/{task}/trial{trial}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        controls=list(CONTROLS),
        model=lambda w: MODELS[w.model],
        label_words=lambda w: label_words(w.task),
        prompt_length=config["prompt_tuning"]["prompt_length"],
        init_std=config["prompt_tuning"]["init_std"],
        seed=lambda w: config["seed"] + int(w.trial),
        hard_prompt=lambda w: hard_prompt(w.task),
        # the baseline, dumps and top neuron as for the tuned prompts
        evaluation={
            "max_length": config["prompt_tuning"]["max_length"],
            **pick("activations", ["batch_size", "baseline_samples", "max_samples"]),
            "subset_seed": config["seed"],
        },
    script:
        "../../scripts/paper_a/control_top_neuron.py"


rule prompt_tuning_table:
    input:
        lambda w: task_trial_files(
            w.model, "prompt_tuning/{task}/trial{trial}/metrics.json"
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
        prompt_metrics=lambda w: task_trial_files(
            w.model, "prompt_tuning/{task}/trial{trial}/metrics.json"
        ),
        neuron_results=lambda w: expand(
            "results/{model}/skill_neurons/tuned/{task}.json",
            model=w.model,
            task=list(TASKS),
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
        unpack(control_result_files),
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
        num_labels={name: spec.num_labels for name, spec in TASKS.items()},
    script:
        "../../scripts/paper_a/control_table.py"


rule figure_activation_histogram:
    input:
        ranking=lambda w: f"results/{w.model}/rankings/{FIGURE_TASKS['histogram']}.parquet",
        dev_dump=lambda w: f"results/{w.model}/activations/{FIGURE_TASKS['histogram']}/trial0/dev.parquet",
        baseline=lambda w: f"results/{w.model}/activations/{FIGURE_TASKS['histogram']}/trial0/baseline.safetensors",
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
        task=FIGURE_TASKS["histogram"],
        label_names=lambda w: list(TASKS[FIGURE_TASKS["histogram"]].label_names),
    script:
        "../../scripts/paper_a/figure_activation_histogram.py"


rule figure_subtask_scatter:
    input:
        ranking=lambda w: f"results/{w.model}/rankings/{FIGURE_TASKS['scatter']}.parquet",
        dev_dump=lambda w: f"results/{w.model}/activations/{FIGURE_TASKS['scatter']}/trial0/dev.parquet",
        baseline=lambda w: f"results/{w.model}/activations/{FIGURE_TASKS['scatter']}/trial0/baseline.safetensors",
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
        task=FIGURE_TASKS["scatter"],
        subtasks=lambda w: [s.name for s in TASKS[FIGURE_TASKS["scatter"]].subtasks],
        label_names=lambda w: list(TASKS[FIGURE_TASKS["scatter"]].label_names),
    script:
        "../../scripts/paper_a/figure_subtask_scatter.py"


rule figure_predictivity_baselines:
    input:
        expand("results/{{model}}/predictivity/{task}.safetensors", task=list(TASKS)),
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
        tasks=list(TASKS),
        series={
            "max": "prompt tokens (paper)",
            "input_avg": "Avg. over input tokens",
            "input_max": "Max. over input tokens",
        },
        title="A-F3/A-F9: neuron predictivity on dev, mean ± s.e.m. over trials",
    script:
        "../../scripts/paper_a/figure_predictivity.py"


use rule figure_predictivity_baselines as figure_predictivity_definitions with:
    output:
        **paper_outputs(PAPER_A, "figure_predictivity_definitions"),
    log:
        "logs/{model}/figures/A-F10.log",
    params:
        tasks=list(TASKS),
        series={
            "max": "max over prompt tokens (paper)",
            "mean": "mean over prompt tokens",
            "positive": "positive correlation only",
        },
        title="A-F10: definitions of predictivity, mean ± s.e.m. over trials",
