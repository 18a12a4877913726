"""Prompt tuning (paper A, §2.1, appendix B): one job per model x task x trial. Paper A's
skill neurons are read on these prompts; paper B compares its neurons with them."""


rule prompt_tuning:
    input:
        **{split: f"data/splits/{{task}}/{split}.parquet" for split in PLAN.splits},
        model=model_files,
    output:
        prompt="results/{model}/prompt_tuning/{task}/trial{trial}/prompt.safetensors",
        metrics="results/{model}/prompt_tuning/{task}/trial{trial}/metrics.json",
    log:
        "logs/{model}/prompt_tuning/{task}/trial{trial}.log",
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
        seed=lambda w: config["seed"] + int(w.trial),
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
