"""Skill neurons (paper A, §3-§5): the top neuron's accuracy against prompt tuning (Table
A-T1), controls without prompt tuning (Table A-T3), Figures A-F1/F2/F3/F9/F10.

One job per task computes every trial's controls: one process start in place of one per
trial; each trial's files are what its own job would write. Changing controls.trials
reruns the job as a whole (the earlier trials recomputed identically), where one job
per trial would run only the new trials."""

from skillneurons.paper_a.controls import CONTROLS, TABLE_SETTINGS


# Run on the submitting host under a cluster executor (quick, or needs network).
localrules:
    prompt_tuning_table,
    skill_neuron_table,
    control_table,
    figure_activation_histogram,
    figure_subtask_scatter,
    figure_predictivity_baselines,
    figure_predictivity_definitions,


# Table A-T3's controls (skillneurons.paper_a.controls.CONTROLS), each trial's.
rule control_top_neuron:
    input:
        model=model_files,
        splits=rules.split.output,
        dev=rules.split.output.dev,
        subtasks=subtask_splits("dev"),
    output:
        random_prompt=expand(
            "results/{{model}}/skill_neurons/random_prompt/{{task}}/trial{trial}.json",
            trial=PLAN.control_trials,
        ),
        hard_prompt=expand(
            "results/{{model}}/skill_neurons/hard_prompt/{{task}}/trial{trial}.json",
            trial=PLAN.control_trials,
        ),
        random_model=expand(
            "results/{{model}}/skill_neurons/random_model/{{task}}/trial{trial}.json",
            trial=PLAN.control_trials,
        ),
    log:
        "logs/{model}/skill_neurons/controls/{task}.log",
    resources:
        mem_mb=6000,
        runtime=60 * len(PLAN.control_trials),
    params:
        controls=list(CONTROLS),
        model=model_spec,
        label_words=task_label_words,
        prompt_length=config["prompt_tuning"]["prompt_length"],
        init_std=config["prompt_tuning"]["init_std"],
        trials=PLAN.control_trials,
        seeds=PLAN.seeds(PLAN.control_trials),
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
            rules.prompt_tuning_trial.output.metrics,
            task=PLAN.tasks,
            trial=PLAN.trials,
            allow_missing=True,
        ),
    output:
        csv=reported("results/{model}/tables/A-T1_prompt_tuning.csv"),
        md="results/{model}/tables/A-T1_prompt_tuning.md",
    log:
        "logs/{model}/tables/A-T1_prompt_tuning.log",
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/paper_a/prompt_tuning_table.py"


rule skill_neuron_table:
    input:
        prompt_metrics=expand(
            rules.prompt_tuning_trial.output.metrics,
            task=PLAN.tasks,
            trial=PLAN.trials,
            allow_missing=True,
        ),
        neuron_results=expand(
            rules.rank_neurons.output.top_neurons, task=PLAN.tasks, allow_missing=True
        ),
    output:
        csv=reported("results/{model}/tables/A-T1.csv"),
        md="results/{model}/tables/A-T1.md",
    log:
        "logs/{model}/tables/A-T1.log",
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/paper_a/skill_neuron_table.py"


rule control_table:
    input:
        **{
            control: for_each(rules.control_top_neuron.output[control], task=PLAN.tasks)
            for control in CONTROLS
        },
        tuned=expand(rules.rank_neurons.output.top_neurons, task=PLAN.tasks, allow_missing=True),
    output:
        csv=reported("results/{model}/tables/A-T3.csv"),
        md="results/{model}/tables/A-T3.md",
    log:
        "logs/{model}/tables/A-T3.log",
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
        ranking=filled(rules.rank_neurons.output.ranking, task=PLAN.figure_task("A-F1")),
        dev_dump=filled(rules.dump_activations.output.dev[0], task=PLAN.figure_task("A-F1")),
        baseline=filled(rules.dump_activations.output.baseline[0], task=PLAN.figure_task("A-F1")),
    output:
        png=reported("results/{model}/figures/A-F1.png"),
        pdf="results/{model}/figures/A-F1.pdf",
    log:
        "logs/{model}/figures/A-F1.log",
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
        ranking=filled(rules.rank_neurons.output.ranking, task=PLAN.figure_task("A-F2")),
        dev_dump=filled(rules.dump_activations.output.dev[0], task=PLAN.figure_task("A-F2")),
        baseline=filled(rules.dump_activations.output.baseline[0], task=PLAN.figure_task("A-F2")),
    output:
        png=reported("results/{model}/figures/A-F2.png"),
        pdf="results/{model}/figures/A-F2.pdf",
    log:
        "logs/{model}/figures/A-F2.log",
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        task=PLAN.figure_task("A-F2"),
        subtasks=lambda w: PLAN.subtasks(PLAN.figure_task("A-F2")),
        label_names=lambda w: list(PLAN.tasks[PLAN.figure_task("A-F2")].label_names),
    script:
        "../../scripts/paper_a/figure_subtask_scatter.py"


rule figure_predictivity_baselines:
    input:
        expand(rules.rank_neurons.output.predictivity, task=PLAN.tasks, allow_missing=True),
    output:
        png=reported("results/{model}/figures/A-F3_F9.png"),
        pdf="results/{model}/figures/A-F3_F9.pdf",
    log:
        "logs/{model}/figures/A-F3_F9.log",
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
        png=reported("results/{model}/figures/A-F10.png"),
        pdf="results/{model}/figures/A-F10.pdf",
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
