"""Do skill neurons encode skills? (paper A, §4.2-4.3, appendices D, E, H): perturbation
curves (A-F4, A-F11), the selectivity-index order (A-F15), neuronal importance (A-F6)
and task correlations of predictivity orders (A-F5, A-F14)."""

from skillneurons.paper_a.registry import PAPER_A

PERTURBATION = config["perturbation"]
# What the perturbation of a neuron reads (skillneurons.neurons.perturbation).
PERTURBATION_KEYS = ["kind", "sigma", "mean", "unit", "positions", "draw"]
# A-F4 shows one evaluation task (paper: Tweet); default: the first three-way sentiment
# task, else the first task.
CURVE_FIGURE_TASKS = PERTURBATION["figure_tasks"] or [
    first_task(lambda s: s.type == "sentiment" and s.subtasks) or next(iter(TASKS))
]
_unknown_figure_tasks = sorted(set(CURVE_FIGURE_TASKS) - set(TASKS))
if _unknown_figure_tasks:
    raise ValueError(
        f"perturbation.figure_tasks {_unknown_figure_tasks} are not among the configured "
        f"tasks: {', '.join(TASKS)}"
    )


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
        lambda w: trial_files(w, "activations/{task}/trial{trial}/dev.parquet"),
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
        classes=lambda w: TASKS[w.task].num_labels,
    script:
        "../../scripts/paper_a/selectivity_index.py"


rule perturbation_curves:
    input:
        model=model_files,
        prompts=lambda w: trial_files(
            w, "prompt_tuning/{task}/trial{trial}/prompt.safetensors"
        ),
        test="data/splits/{task}/test.parquet",
        rankings=expand(
            "results/{{model}}/rankings/{source}.parquet", source=list(TASKS)
        ),
        selectivity="results/{model}/selectivity/{task}.safetensors",
        # a_bsl (Eq. 3) and the activation std of each trial (kind baseline, unit
        # neuron_std).
        baselines=lambda w: trial_files(
            w, "activations/{task}/trial{trial}/baseline.safetensors"
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
        model=lambda w: MODELS[w.model],
        sources=list(TASKS),
        rates=PERTURBATION["rates"],
        settings=pick("perturbation", PERTURBATION_KEYS),
        trials=TRIALS,
        # One noise seed (and random order) per trial.
        seeds=[config["seed"] + trial for trial in TRIALS],
        random_orders=PERTURBATION["random_orders"],
        uniform_orders=PERTURBATION["uniform_orders"],
        scope=config["ranking"]["scope"],
        test_samples=PERTURBATION["test_samples"],
        subset_seed=config["seed"],
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=PERTURBATION["batch_size"],
    script:
        "../../scripts/paper_a/perturbation_curves.py"


rule neuronal_importance:
    input:
        lambda w: task_files(w, "perturbation/{task}.parquet"),
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
        task_types=TASK_TYPES,
        title="A-F6: neuronal importance of source tasks to evaluation tasks (z-score)",
        summary_title="A-F6 summary: perturbation findings per evaluation task",
    script:
        "../../scripts/paper_a/neuronal_importance.py"


rule figure_perturbation_all_tasks:
    input:
        lambda w: task_files(w, "perturbation/{task}.parquet"),
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
        eval_tasks=list(TASKS),
        own_order_only=False,
        title="A-F11: accuracy vs perturbation rate, by source-task order (mean ± s.e.m.)",
    script:
        "../../scripts/paper_a/figure_perturbation_curves.py"


use rule figure_perturbation_all_tasks as figure_perturbation_example with:
    output:
        **paper_outputs(PAPER_A, "figure_perturbation_example"),
    log:
        "logs/{model}/figures/A-F4.log",
    params:
        eval_tasks=CURVE_FIGURE_TASKS,
        own_order_only=False,
        title="A-F4: accuracy vs perturbation rate (mean ± s.e.m. over trials)",


use rule figure_perturbation_all_tasks as figure_perturbation_selectivity with:
    output:
        **paper_outputs(PAPER_A, "figure_perturbation_selectivity"),
    log:
        "logs/{model}/figures/A-F15.log",
    params:
        eval_tasks=list(TASKS),
        own_order_only=True,
        title="A-F15: predictivity order vs random vs selectivity index (mean ± s.e.m.)",


rule task_correlation:
    input:
        expand("results/{{model}}/rankings/{task}.parquet", task=list(TASKS)),
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
        tasks=list(TASKS),
        task_types=TASK_TYPES,
        mean_title="A-F5: Spearman correlation of predictivity orders, mean over layers",
        layers_title="A-F14: Spearman correlation of predictivity orders per layer",
    script:
        "../../scripts/paper_a/task_correlation.py"
