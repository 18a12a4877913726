"""Prompt tuning (paper A, §2.1, appendix B): one job per model x task, which trains all
its trials together (skillneurons.models.trial_training: one forward pass per step for
all trials) and writes each trial's files. Paper A's skill neurons are read on these
prompts; paper B compares its neurons with them."""


rule prompt_tuning:
    input:
        **{split: f"data/splits/{{task}}/{split}.parquet" for split in PLAN.splits},
        model=model_files,
    output:
        prompt=expand(
            "results/{{model}}/prompt_tuning/{{task}}/trial{trial}/prompt.safetensors",
            trial=PLAN.trials,
        ),
        metrics=expand(
            "results/{{model}}/prompt_tuning/{{task}}/trial{trial}/metrics.json",
            trial=PLAN.trials,
        ),
    log:
        "logs/{model}/prompt_tuning/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=lambda w: PLAN.models[w.model],
        label_words=lambda w: label_words(w.task),
        random_words=None,
        # what the job reads of the prompt_tuning section (not trials)
        settings=pick(
            "prompt_tuning",
            [
                "prompt_length",
                "init_std",
                "init",
                "learning_rate",
                "batch_size",
                "eval_batch_size",
                "max_steps",
                "eval_every",
                "patience",
                "max_length",
            ],
        ),
        trials=PLAN.trials,
        seeds=[config["seed"] + trial for trial in PLAN.trials],
    script:
        "../../scripts/shared/prompt_tuning.py"


# A GGUF model (e.g. smollm2-135m) converted once into a safetensors directory, which
# every job of that model loads (skillneurons.models.gguf).
rule prepare_model:
    output:
        directory("data/models/{model}"),
    log:
        "logs/data/models/{model}.log",
    wildcard_constraints:
        model=names_regex(PLAN.gguf_models),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        runtime=30,
    params:
        source=lambda w: PLAN.gguf_models[w.model],
    script:
        "../../scripts/shared/prepare_model.py"
