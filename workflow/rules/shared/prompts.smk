"""Prompt tuning (paper A, §2.1, appendix B). Rule prompt_tuning trains one pass of a
model x task: prompt_tuning.trials_per_pass trials together (skillneurons.plan.passes,
skillneurons.models.trial_training: one forward pass per step for all of them), into a
folder named by its first and last trial; rule prompt_tuning_trial copies one trial's
files from its pass to the trial's own paths, which every later rule reads. Paper A's
skill neurons are read on these prompts; paper B compares its neurons with them.

Why a pass wildcard and a copy rule: Snakemake outputs cannot depend on a wildcard's
value, so one rule cannot list a pass's trial files, and rules made in a loop (one per
pass) would each have their own name, which the SLURM profiles' resources (the GPU
partition) and --forcerun prompt_tuning could not name. A pass named by its trials keeps
a pass's job unchanged when trials are added (only a new or grown last pass runs)."""


localrules:
    prompt_tuning_trial,


rule prompt_tuning:
    input:
        **rules.split.output,
        model=model_files,
    output:
        directory("results/{model}/prompt_tuning/{task}/passes/trials{trials}"),
    log:
        "logs/{model}/prompt_tuning/{task}/trials{trials}.log",
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=model_spec,
        label_words=task_label_words,
        random_words=None,
        settings=PLAN.prompt_tuning_settings,
        trials=pass_trials_of,
        seeds=pass_seeds,
    script:
        "../../scripts/shared/prompt_tuning.py"


rule prompt_tuning_trial:
    input:
        trained_pass,
    output:
        prompt="results/{model}/prompt_tuning/{task}/trial{trial}/prompt.safetensors",
        metrics="results/{model}/prompt_tuning/{task}/trial{trial}/metrics.json",
    log:
        "logs/{model}/prompt_tuning/{task}/trial{trial}.log",
    shell:
        "cp {input}/trial{wildcards.trial}/prompt.safetensors {output.prompt} 2> {log} && "
        "cp {input}/trial{wildcards.trial}/metrics.json {output.metrics} 2>> {log}"


# A GGUF model (e.g. smollm2-135m) converted once into a safetensors directory, which
# every job of that model loads (skillneurons.models.gguf).
rule prepare_model:
    output:
        directory("data/models/{model}"),
    log:
        "logs/data/models/{model}.log",
    wildcard_constraints:
        model=names_regex(PLAN.gguf_models),
    resources:
        mem_mb=8000,
        runtime=30,
    params:
        source=lambda w: PLAN.gguf_models[w.model],
    script:
        "../../scripts/shared/prepare_model.py"
