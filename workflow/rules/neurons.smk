"""Skill neurons (paper A, §3-§5): predictivity and rankings, the top neuron's accuracy
(Table A-T1), controls without prompt tuning (Table A-T3), Figures A-F1/F2/F3/F9/F10."""


# Run on the submitting host under a cluster executor (quick, or needs network).
localrules:
    skill_neuron_table,
    control_table,
    figure_activation_histogram,
    figure_subtask_scatter,
    figure_predictivity_baselines,
    figure_predictivity_definitions,


rule rank_neurons:
    input:
        dev="data/splits/{task}/dev.parquet",
        subtasks=lambda w: subtask_files(w.task, "dev"),
        baselines=lambda w: trial_files(
            w, "activations/{task}/trial{trial}/baseline.safetensors"
        ),
        dev_dumps=lambda w: trial_files(
            w, "activations/{task}/trial{trial}/dev.parquet"
        ),
        dev_input_dumps=lambda w: trial_files(
            w, "activations/{task}/trial{trial}/dev_input.parquet"
        ),
        test_dumps=lambda w: trial_files(
            w, "activations/{task}/trial{trial}/test.parquet"
        ),
    output:
        ranking="results/{model}/rankings/{task}.parquet",
        predictivity="results/{model}/predictivity/{task}.safetensors",
        top_neurons="results/{model}/skill_neurons/tuned/{task}.json",
    log:
        "logs/{model}/rankings/{task}.log",
    conda:
        "../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    script:
        "../scripts/rank_neurons.py"


rule control_top_neuron:
    input:
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
        "../../envs/skillneurons.yaml"
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
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["activations"]["batch_size"],
        baseline_samples=config["activations"]["baseline_samples"],
        max_samples=config["activations"]["max_samples"],
    script:
        "../scripts/control_top_neuron.py"


rule skill_neuron_table:
    input:
        prompt_metrics=lambda w: prompt_tuning_metrics(w.model),
        neuron_results=lambda w: expand(
            "results/{model}/skill_neurons/tuned/{task}.json",
            model=w.model,
            task=list(TASKS),
        ),
    output:
        csv=report(
            "results/{model}/tables/A-T1.csv",
            caption="../report/A-T1.rst",
            category="Paper A: skill neurons",
        ),
        md="results/{model}/tables/A-T1.md",
    log:
        "logs/{model}/tables/A-T1.log",
    conda:
        "../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/skill_neuron_table.py"


rule control_table:
    input:
        unpack(control_result_files),
    output:
        csv=report(
            "results/{model}/tables/A-T3.csv",
            caption="../report/A-T3.rst",
            category="Paper A: skill neurons",
        ),
        md="results/{model}/tables/A-T3.md",
    log:
        "logs/{model}/tables/A-T3.log",
    conda:
        "../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        settings=list(TABLE_SETTINGS),
        num_labels={name: spec.num_labels for name, spec in TASKS.items()},
    script:
        "../scripts/control_table.py"


rule figure_activation_histogram:
    input:
        ranking=lambda w: f"results/{w.model}/rankings/{FIGURE_TASKS['histogram']}.parquet",
        dev_dump=lambda w: f"results/{w.model}/activations/{FIGURE_TASKS['histogram']}/trial0/dev.parquet",
        baseline=lambda w: f"results/{w.model}/activations/{FIGURE_TASKS['histogram']}/trial0/baseline.safetensors",
    output:
        png=report(
            "results/{model}/figures/A-F1.png",
            caption="../report/A-F1.rst",
            category="Paper A: skill neurons",
        ),
        pdf="results/{model}/figures/A-F1.pdf",
    log:
        "logs/{model}/figures/A-F1.log",
    conda:
        "../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        task=FIGURE_TASKS["histogram"],
        label_names=lambda w: list(TASKS[FIGURE_TASKS["histogram"]].label_names),
    script:
        "../scripts/figure_activation_histogram.py"


rule figure_subtask_scatter:
    input:
        ranking=lambda w: f"results/{w.model}/rankings/{FIGURE_TASKS['scatter']}.parquet",
        dev_dump=lambda w: f"results/{w.model}/activations/{FIGURE_TASKS['scatter']}/trial0/dev.parquet",
        baseline=lambda w: f"results/{w.model}/activations/{FIGURE_TASKS['scatter']}/trial0/baseline.safetensors",
    output:
        png=report(
            "results/{model}/figures/A-F2.png",
            caption="../report/A-F2.rst",
            category="Paper A: skill neurons",
        ),
        pdf="results/{model}/figures/A-F2.pdf",
    log:
        "logs/{model}/figures/A-F2.log",
    conda:
        "../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        task=FIGURE_TASKS["scatter"],
        subtasks=lambda w: [s.name for s in TASKS[FIGURE_TASKS["scatter"]].subtasks],
        label_names=lambda w: list(TASKS[FIGURE_TASKS["scatter"]].label_names),
    script:
        "../scripts/figure_subtask_scatter.py"


rule figure_predictivity_baselines:
    input:
        expand("results/{{model}}/predictivity/{task}.safetensors", task=list(TASKS)),
    output:
        png=report(
            "results/{model}/figures/A-F3_F9.png",
            caption="../report/A-F3_F9.rst",
            category="Paper A: skill neurons",
        ),
        pdf="results/{model}/figures/A-F3_F9.pdf",
    log:
        "logs/{model}/figures/A-F3_F9.log",
    conda:
        "../../envs/skillneurons.yaml"
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
        "../scripts/figure_predictivity.py"


use rule figure_predictivity_baselines as figure_predictivity_definitions with:
    output:
        png=report(
            "results/{model}/figures/A-F10.png",
            caption="../report/A-F10.rst",
            category="Paper A: skill neurons",
        ),
        pdf="results/{model}/figures/A-F10.pdf",
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
