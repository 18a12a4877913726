"""Do skill neurons encode skills? (paper A, §4.2-4.3, appendices D, E, H): perturbation
curves (A-F4, A-F11), the selectivity-index order (A-F15), neuronal importance (A-F6)
and task correlations of predictivity orders (A-F5, A-F14)."""


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
        rules.dump_activations.output.dev,
    output:
        "results/{model}/selectivity/{task}.safetensors",
    log:
        "logs/{model}/selectivity/{task}.log",
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
            rules.prompt_tuning_trial.output.prompt, trial=PLAN.trials, allow_missing=True
        ),
        test=rules.split.output.test,
        # every task's order, each a source of the task's curves
        rankings=expand(rules.rank_neurons.output.ranking, task=PLAN.tasks, allow_missing=True),
        selectivity=rules.selectivity_index.output[0],
        # a_bsl (Eq. 3) and the activation std of each trial (kind baseline, unit
        # neuron_std).
        baselines=rules.dump_activations.output.baseline,
    output:
        "results/{model}/perturbation/{task}.parquet",
    log:
        "logs/{model}/perturbation/{task}.log",
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        model=model_spec,
        sources=list(PLAN.tasks),
        rates=config["perturbation"]["rates"],
        # what the perturbation of a neuron reads (skillneurons.neurons.perturbation)
        settings=pick("perturbation", ["kind", "sigma", "mean", "unit", "positions", "draw"]),
        trials=PLAN.trials,
        # One noise seed (and random order) per trial.
        seeds=PLAN.seeds(PLAN.trials),
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
            rules.prompt_tuning_trial.output.prompt, trial=PLAN.trials, allow_missing=True
        ),
        test=rules.split.output.test,
        rankings=[rules.rank_neurons.output.ranking],
        baselines=rules.dump_activations.output.baseline,
    output:
        "results/{model}/perturbation/paper_design/{task}.parquet",
    log:
        "logs/{model}/perturbation/paper_design/{task}.log",
    params:
        model=model_spec,
        sources=lambda w: [w.task],
        rates=config["perturbation"]["rates"],
        settings=PLAN.paper_perturbation,
        trials=PLAN.trials,
        seeds=PLAN.seeds(PLAN.trials),
        layer_matched_orders=0,
        uniform_orders=PLAN.uniform_orders,
        scope=config["ranking"]["scope"],
        test_samples=config["perturbation"]["test_samples"],
        subset_seed=config["seed"],
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["perturbation"]["batch_size"],


rule neuronal_importance:
    input:
        expand(rules.perturbation_curves.output, task=PLAN.tasks, allow_missing=True),
    output:
        csv="results/{model}/tables/A-F6.csv",
        md="results/{model}/tables/A-F6.md",
        summary_csv="results/{model}/tables/A-F6_summary.csv",
        summary_md="results/{model}/tables/A-F6_summary.md",
        png=reported("results/{model}/figures/A-F6.png"),
        pdf="results/{model}/figures/A-F6.pdf",
    log:
        "logs/{model}/tables/A-F6.log",
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
        expand(rules.perturbation_curves.output, task=PLAN.tasks, allow_missing=True),
    output:
        png=reported("results/{model}/figures/A-F11.png"),
        pdf="results/{model}/figures/A-F11.pdf",
    log:
        "logs/{model}/figures/A-F11.log",
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


# A-F4 draws the curves of perturbation.figure_tasks (Plan.figure_tasks: the first
# three-way sentiment task when it names none).
use rule figure_perturbation_all_tasks as figure_perturbation_example with:
    output:
        png=reported("results/{model}/figures/A-F4.png"),
        pdf="results/{model}/figures/A-F4.pdf",
    log:
        "logs/{model}/figures/A-F4.log",
    params:
        eval_tasks=PLAN.figure_tasks["A-F4"],
        own_order_only=False,
        title="A-F4: accuracy vs perturbation rate",
        intervals=PLAN.intervals,


use rule figure_perturbation_all_tasks as figure_perturbation_selectivity with:
    output:
        png=reported("results/{model}/figures/A-F15.png"),
        pdf="results/{model}/figures/A-F15.pdf",
    log:
        "logs/{model}/figures/A-F15.log",
    params:
        eval_tasks=list(PLAN.tasks),
        own_order_only=True,
        title="A-F15: predictivity order vs random vs selectivity index",
        intervals=PLAN.intervals,


rule task_correlation:
    input:
        expand(rules.rank_neurons.output.ranking, task=PLAN.tasks, allow_missing=True),
    output:
        mean_csv="results/{model}/tables/A-F5.csv",
        mean_md="results/{model}/tables/A-F5.md",
        layers_csv="results/{model}/tables/A-F14.csv",
        layers_md="results/{model}/tables/A-F14.md",
        mean_png=reported("results/{model}/figures/A-F5.png"),
        mean_pdf="results/{model}/figures/A-F5.pdf",
        layers_png=reported("results/{model}/figures/A-F14.png"),
        layers_pdf="results/{model}/figures/A-F14.pdf",
    log:
        "logs/{model}/tables/A-F5_F14.log",
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
