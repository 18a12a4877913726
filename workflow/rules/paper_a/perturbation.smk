"""Do skill neurons encode skills? (paper A, §4.2-4.3, appendices D, E, H): perturbation
curves (A-F4, A-F11), the selectivity-index order (A-F15), neuronal importance (A-F6)
and task correlations of predictivity orders (A-F5, A-F14)."""

from skillneurons.paper_a.registry import PAPER_A


# Tables and figures from finished results: run on the submitting host under a
# cluster executor.
localrules:
    neuronal_importance,
    figure_perturbation_all_tasks,
    figure_perturbation_example,
    figure_perturbation_selectivity,
    task_correlation,


rule selectivity_index:
    input:
        expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/dev.parquet",
            trial=PLAN.trials,
        ),
    output:
        "results/{model}/selectivity/{task}.safetensors",
    log:
        "logs/{model}/selectivity/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        classes=lambda w: PLAN.tasks[w.task].num_labels,
    script:
        "../../scripts/paper_a/selectivity_index.py"


rule perturbation_curves:
    input:
        model=model_files,
        prompts=expand(
            "results/{{model}}/prompt_tuning/{{task}}/trial{trial}/prompt.safetensors",
            trial=PLAN.trials,
        ),
        test="data/splits/{task}/test.parquet",
        rankings=expand(
            "results/{{model}}/rankings/{source}.parquet", source=list(PLAN.tasks)
        ),
        selectivity="results/{model}/selectivity/{task}.safetensors",
        # a_bsl (Eq. 3) and the activation std of each trial (kind baseline, unit
        # neuron_std).
        baselines=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/baseline.safetensors",
            trial=PLAN.trials,
        ),
    output:
        "results/{model}/perturbation/{task}.parquet",
    log:
        "logs/{model}/perturbation/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        model=lambda w: PLAN.models[w.model],
        sources=list(PLAN.tasks),
        rates=config["perturbation"]["rates"],
        # what the perturbation of a neuron reads (skillneurons.neurons.perturbation)
        settings=pick(
            "perturbation", ["kind", "sigma", "mean", "unit", "positions", "draw"]
        ),
        trials=PLAN.trials,
        # One noise seed (and random order) per trial.
        seeds=[config["seed"] + trial for trial in PLAN.trials],
        layer_matched_orders=config["perturbation"]["layer_matched_orders"],
        uniform_orders=config["perturbation"]["uniform_orders"],
        scope=config["ranking"]["scope"],
        test_samples=config["perturbation"]["test_samples"],
        subset_seed=config["seed"],
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["perturbation"]["batch_size"],
    script:
        "../../scripts/paper_a/perturbation_curves.py"


# §4.2's central claim as the paper ran it: PLAN.paper_perturbation's noise, the task's
# own order against uniform random orders (no layer-matched ones: ours, at the configured
# noise, in the file above).
use rule perturbation_curves as perturbation_paper_design with:
    input:
        model=model_files,
        prompts=expand(
            "results/{{model}}/prompt_tuning/{{task}}/trial{trial}/prompt.safetensors",
            trial=PLAN.trials,
        ),
        test="data/splits/{task}/test.parquet",
        rankings=["results/{model}/rankings/{task}.parquet"],
        baselines=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/baseline.safetensors",
            trial=PLAN.trials,
        ),
    output:
        "results/{model}/perturbation/paper_design/{task}.parquet",
    log:
        "logs/{model}/perturbation/paper_design/{task}.log",
    params:
        model=lambda w: PLAN.models[w.model],
        sources=lambda w: [w.task],
        rates=config["perturbation"]["rates"],
        settings=PLAN.paper_perturbation,
        trials=PLAN.trials,
        seeds=[config["seed"] + trial for trial in PLAN.trials],
        layer_matched_orders=0,
        uniform_orders=PLAN.uniform_orders,
        scope=config["ranking"]["scope"],
        test_samples=config["perturbation"]["test_samples"],
        subset_seed=config["seed"],
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["perturbation"]["batch_size"],


rule neuronal_importance:
    input:
        expand("results/{{model}}/perturbation/{task}.parquet", task=list(PLAN.tasks)),
    output:
        **paper_outputs(PAPER_A, "neuronal_importance"),
    log:
        "logs/{model}/tables/A-F6.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        task_types=PLAN.task_types,
        title="A-F6: neuronal importance of source tasks to evaluation tasks (z-score)",
        summary_title="A-F6 summary: perturbation findings per evaluation task",
        intervals=PLAN.intervals,
    script:
        "../../scripts/paper_a/neuronal_importance.py"


rule figure_perturbation_all_tasks:
    input:
        expand("results/{{model}}/perturbation/{task}.parquet", task=list(PLAN.tasks)),
    output:
        **paper_outputs(PAPER_A, "figure_perturbation_all_tasks"),
    log:
        "logs/{model}/figures/A-F11.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        eval_tasks=list(PLAN.tasks),
        own_order_only=False,
        title="A-F11: accuracy vs perturbation rate, by source-task order",
        intervals=PLAN.intervals,
    script:
        "../../scripts/paper_a/figure_perturbation_curves.py"


use rule figure_perturbation_all_tasks as figure_perturbation_example with:
    output:
        **paper_outputs(PAPER_A, "figure_perturbation_example"),
    log:
        "logs/{model}/figures/A-F4.log",
    params:
        eval_tasks=PLAN.figure_tasks["A-F4"],
        own_order_only=False,
        title="A-F4: accuracy vs perturbation rate",
        intervals=PLAN.intervals,


use rule figure_perturbation_all_tasks as figure_perturbation_selectivity with:
    output:
        **paper_outputs(PAPER_A, "figure_perturbation_selectivity"),
    log:
        "logs/{model}/figures/A-F15.log",
    params:
        eval_tasks=list(PLAN.tasks),
        own_order_only=True,
        title="A-F15: predictivity order vs random vs selectivity index",
        intervals=PLAN.intervals,


rule task_correlation:
    input:
        expand("results/{{model}}/rankings/{task}.parquet", task=list(PLAN.tasks)),
    output:
        **paper_outputs(PAPER_A, "task_correlation"),
    log:
        "logs/{model}/tables/A-F5_F14.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        tasks=list(PLAN.tasks),
        task_types=PLAN.task_types,
        mean_title="A-F5: Spearman correlation of predictivity orders, mean over layers",
        layers_title="A-F14: Spearman correlation of predictivity orders per layer",
    script:
        "../../scripts/paper_a/task_correlation.py"
