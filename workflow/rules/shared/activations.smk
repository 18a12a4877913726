"""Activations at the prompt tokens (paper A, §3.1): the baseline (Eq. 3) over the
training split and float16 Parquet dumps of dev and test, per model x task x trial,
from one model load."""


rule dump_activations:
    input:
        model=model_files,
        prompt="results/{model}/prompt_tuning/{task}/trial{trial}/prompt.safetensors",
        train="data/splits/{task}/train.parquet",
        dev="data/splits/{task}/dev.parquet",
        test="data/splits/{task}/test.parquet",
    output:
        baseline="results/{model}/activations/{task}/trial{trial}/baseline.safetensors",
        dev="results/{model}/activations/{task}/trial{trial}/dev.parquet",
        test="results/{model}/activations/{task}/trial{trial}/test.parquet",
        dev_input="results/{model}/activations/{task}/trial{trial}/dev_input.parquet",
    log:
        "logs/{model}/activations/{task}/trial{trial}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=lambda w: PLAN.models[w.model],
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["activations"]["batch_size"],
        baseline_samples=config["activations"]["baseline_samples"],
        max_samples=config["activations"]["max_samples"],
        subset_seed=config["seed"],
    script:
        "../../scripts/shared/dump_activations.py"
