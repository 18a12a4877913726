"""Table A-ablation: paper A's central claim (§4.2) under other perturbation designs,
each decided with the findings engine (skillneurons.paper_a.ablation). Off unless
ablation.tasks names tasks (configs/ablation.yaml)."""

from skillneurons.paper_a.ablation_settings import resolve_settings

ABLATION_TASKS = task_subset("ablation")
ABLATION_SETTINGS = resolve_settings(
    config["ablation"]["settings"], PERTURBATION, config["ranking"]["scope"]
)


localrules:
    ablation_table,


rule perturbation_ablation:
    input:
        model=model_files,
        prompts=lambda w: trial_files(
            w, "prompt_tuning/{task}/trial{trial}/prompt.safetensors"
        ),
        test="data/splits/{task}/test.parquet",
        ranking="results/{model}/rankings/{task}.parquet",
        baselines=lambda w: trial_files(
            w, "activations/{task}/trial{trial}/baseline.safetensors"
        ),
    output:
        "results/{model}/ablation/{task}.parquet",
    log:
        "logs/{model}/ablation/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        model=lambda w: MODELS[w.model],
        settings=ABLATION_SETTINGS,
        base=pick("perturbation", PERTURBATION_KEYS),
        rates=PERTURBATION["rates"],
        random_orders=PERTURBATION["random_orders"],
        trials=TRIALS,
        seeds=[config["seed"] + trial for trial in TRIALS],
        test_samples=PERTURBATION["test_samples"],
        subset_seed=config["seed"],
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=PERTURBATION["batch_size"],
    script:
        "../../scripts/paper_a/perturbation_ablation.py"


rule ablation_table:
    input:
        expand("results/{{model}}/ablation/{task}.parquet", task=ABLATION_TASKS),
    output:
        **paper_outputs(PAPER_A, "ablation_table"),
    log:
        "logs/{model}/tables/ablation.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        settings=ABLATION_SETTINGS,
        bootstrap=BOOTSTRAP,
    script:
        "../../scripts/paper_a/ablation_table.py"
