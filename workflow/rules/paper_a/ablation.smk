"""Table A-ablation: paper A's central claim (§4.2) under other perturbation designs,
each decided with the findings engine (skillneurons.paper_a.ablation). Off unless
ablation.tasks names tasks (configs/ablation.yaml)."""


localrules:
    ablation_table,


rule perturbation_ablation:
    input:
        model=model_files,
        prompts=expand(
            rules.prompt_tuning_trial.output.prompt, trial=PLAN.trials, allow_missing=True
        ),
        test=rules.split.output.test,
        ranking=rules.rank_neurons.output.ranking,
        baselines=rules.dump_activations.output.baseline,
    output:
        "results/{model}/ablation/{task}.parquet",
    log:
        "logs/{model}/ablation/{task}.log",
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        model=model_spec,
        settings=PLAN.ablation_settings,
        base=pick("perturbation", ["kind", "sigma", "mean", "unit", "positions", "draw"]),
        rates=config["perturbation"]["rates"],
        layer_matched_orders=config["perturbation"]["layer_matched_orders"],
        trials=PLAN.trials,
        seeds=PLAN.seeds(PLAN.trials),
        test_samples=config["perturbation"]["test_samples"],
        subset_seed=config["seed"],
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["perturbation"]["batch_size"],
    script:
        "../../scripts/paper_a/perturbation_ablation.py"


rule ablation_table:
    input:
        expand(rules.perturbation_ablation.output, task=PLAN.ablation_tasks, allow_missing=True),
    output:
        csv=reported("results/{model}/tables/A-ablation.csv"),
        md="results/{model}/tables/A-ablation.md",
    log:
        "logs/{model}/tables/ablation.log",
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
