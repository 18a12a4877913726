"""Prompt tuning (paper A, §2.1, appendix B): one job per model x task x trial, and the
prompt-tuning column of Table A-T1."""


# Run on the submitting host under a cluster executor (quick, or needs network).
localrules:
    prompt_tuning_table,


rule prompt_tuning:
    input:
        expand("data/splits/{{task}}/{split}.parquet", split=SPLITS),
    output:
        prompt="results/{model}/prompt_tuning/{task}/trial{trial}/prompt.safetensors",
        metrics="results/{model}/prompt_tuning/{task}/trial{trial}/metrics.json",
    log:
        "logs/{model}/prompt_tuning/{task}/trial{trial}.log",
    conda:
        "../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=lambda w: MODELS[w.model],
        label_words=lambda w: label_words(w.task),
        settings=config["prompt_tuning"],
        seed=lambda w: config["seed"] + int(w.trial),
    script:
        "../scripts/prompt_tuning.py"


rule prompt_tuning_table:
    input:
        lambda w: prompt_tuning_metrics(w.model),
    output:
        csv=report(
            "results/{model}/tables/A-T1_prompt_tuning.csv",
            caption="../report/A-T1_prompt_tuning.rst",
            category="Paper A: prompt tuning",
        ),
        md="results/{model}/tables/A-T1_prompt_tuning.md",
    log:
        "logs/{model}/tables/A-T1_prompt_tuning.log",
    conda:
        "../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/prompt_tuning_table.py"
