"""Activations at the prompt tokens (paper A, §3.1): the baseline (Eq. 3) over the
training split and float16 Parquet dumps of dev and test, at the prompt tokens and as
the input-token mean/max (Figure 3's baselines), per model x task.

One job per task computes every trial's files: one process start and one model load in
place of one per trial; each trial's files are what its own job would write. Changing
prompt_tuning.trials reruns the job as a whole (the earlier trials recomputed
identically), where one job per trial would run only the new trials."""


rule dump_activations:
    input:
        model=model_files,
        prompts=expand(
            rules.prompt_tuning_trial.output.prompt, trial=PLAN.trials, allow_missing=True
        ),
        train=rules.split.output.train,
        dev=rules.split.output.dev,
        test=rules.split.output.test,
    output:
        baseline=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/baseline.safetensors",
            trial=PLAN.trials,
        ),
        dev=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/dev.parquet", trial=PLAN.trials
        ),
        test=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/test.parquet", trial=PLAN.trials
        ),
        dev_input=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/dev_input.parquet",
            trial=PLAN.trials,
        ),
        test_input=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/test_input.parquet",
            trial=PLAN.trials,
        ),
    log:
        "logs/{model}/activations/{task}.log",
    resources:
        mem_mb=6000,
        runtime=60 * len(PLAN.trials),
    params:
        trials=PLAN.trials,
        model=model_spec,
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["activations"]["batch_size"],
        baseline_samples=config["activations"]["baseline_samples"],
        max_samples=config["activations"]["max_samples"],
        subset_seed=config["seed"],
    script:
        "../../scripts/shared/dump_activations.py"
