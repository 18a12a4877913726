"""Table A-ablation: paper A's central claim (§4.2) under other perturbation designs,
each decided with the findings engine (skillneurons.paper_a.ablation). Off unless
ablation.tasks names tasks (configs/ablation.yaml)."""

from skillneurons.paper_a.registry import PAPER_A


localrules:
    ablation_table,


rule perturbation_ablation:
    input:
        model=model_files,
        prompts=expand(
            "results/{{model}}/prompt_tuning/{{task}}/trial{trial}/prompt.safetensors",
            trial=PLAN.trials,
        ),
        test="data/splits/{task}/test.parquet",
        ranking="results/{model}/rankings/{task}.parquet",
        baselines=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/baseline.safetensors",
            trial=PLAN.trials,
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
        model=lambda w: PLAN.models[w.model],
        settings=PLAN.ablation_settings,
        base=pick(
            "perturbation", ["kind", "sigma", "mean", "unit", "positions", "draw"]
        ),
        rates=config["perturbation"]["rates"],
        layer_matched_orders=config["perturbation"]["layer_matched_orders"],
        trials=PLAN.trials,
        seeds=[config["seed"] + trial for trial in PLAN.trials],
        test_samples=config["perturbation"]["test_samples"],
        subset_seed=config["seed"],
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["perturbation"]["batch_size"],
    script:
        "../../scripts/paper_a/perturbation_ablation.py"


rule ablation_table:
    input:
        expand("results/{{model}}/ablation/{task}.parquet", task=PLAN.ablation_tasks),
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
        settings=PLAN.ablation_settings,
        # the findings engine's settings (skillneurons.reporting.findings.BootstrapSettings)
        resamples=config["findings"]["bootstrap"],
        alpha=config["findings"]["alpha"],
        min_runs=config["findings"]["min_runs"],
        seed=config["seed"],
    script:
        "../../scripts/paper_a/ablation_table.py"
