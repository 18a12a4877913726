"""Skill neurons matter beyond prompt tuning (paper A, §5, appendix D): adapter-based
tuning and BitFit per model x method x task x trial, their perturbation curves in the
prompt-tuning predictivity orders (A-F7, A-F12, A-F13), neuronal importance per method
and averaged over methods (A-F8), and the trained models' accuracy."""


wildcard_constraints:
    method="|".join(config["tuning_methods"]["methods"]) or "(?!x)x",


from skillneurons.paper_a.registry import PAPER_A

TUNING = config["tuning_methods"]
TUNING_METHODS = list(TUNING["methods"])
# null: every configured task; otherwise a subset (the evaluation tasks; the orders
# still come from every task's prompt-tuning ranking).
TUNING_TASKS = task_subset("tuning_methods")
TUNING_TRIALS = list(range(TUNING["trials"]))
# A-F7 shows BitFit on one task (paper: IMDB); default: the first sentiment task trained.
TUNING_EXAMPLE_TASK = TUNING["example_task"] or next(
    (t for t in TUNING_TASKS if TASKS[t].type == "sentiment"),
    TUNING_TASKS[0] if TUNING_TASKS else None,
)
if TUNING_EXAMPLE_TASK is not None and TUNING_EXAMPLE_TASK not in TUNING_TASKS:
    raise ValueError(
        f"tuning_methods.example_task {TUNING_EXAMPLE_TASK!r} is not among "
        f"tuning_methods.tasks {TUNING_TASKS}"
    )
TUNING_DIR = "results/{model}/tuning_methods/{method}"
TUNING_TRAINING_KEYS = [
    "adapter_size",
    "adapter_init_std",
    "batch_size",
    "eval_batch_size",
    "max_steps",
    "eval_every",
    "patience",
]


# Tables and figures from finished results: run on the submitting host under a
# cluster executor.
localrules:
    figure_adapter_curves,
    figure_bitfit_curves,
    figure_bitfit_example,
    tuning_method_importance,
    tuning_methods_importance,
    tuning_methods_table,


rule train_tuning_method:
    input:
        model=model_files,
        train="data/splits/{task}/train.parquet",
        dev="data/splits/{task}/dev.parquet",
        test="data/splits/{task}/test.parquet",
    output:
        weights=f"{TUNING_DIR}/{{task}}/trial{{trial}}/weights.safetensors",
        metrics=f"{TUNING_DIR}/{{task}}/trial{{trial}}/metrics.json",
    log:
        "logs/{model}/tuning_methods/{method}/{task}/trial{trial}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=lambda w: MODELS[w.model],
        label_words=lambda w: label_words(w.task),
        # only this method's training settings: other tasks and methods don't rerun it
        settings=lambda w: {
            **{key: TUNING[key] for key in TUNING_TRAINING_KEYS},
            "learning_rate": {w.method: TUNING["learning_rate"][w.method]},
        },
        max_length=config["prompt_tuning"]["max_length"],
        seed=lambda w: config["seed"] + int(w.trial),
    script:
        "../../scripts/paper_a/train_tuning_method.py"


rule tuning_method_perturbation:
    input:
        model=model_files,
        weights=lambda w: expand(
            f"{TUNING_DIR}/{{task}}/trial{{trial}}/weights.safetensors",
            model=w.model,
            method=w.method,
            task=w.task,
            trial=TUNING_TRIALS,
        ),
        test="data/splits/{task}/test.parquet",
        rankings=expand(
            "results/{{model}}/rankings/{source}.parquet", source=list(TASKS)
        ),
        # a_bsl and the activation std of the tuned model (kind baseline, neuron_std).
        train="data/splits/{task}/train.parquet",
    output:
        f"{TUNING_DIR}/perturbation/{{task}}.parquet",
    log:
        "logs/{model}/tuning_methods/{method}/perturbation/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        model=lambda w: MODELS[w.model],
        sources=list(TASKS),
        rates=config["perturbation"]["rates"],
        # No soft prompts: every position is perturbed (positions "all").
        settings={
            **pick("perturbation", ["kind", "sigma", "mean", "unit", "draw"]),
            "positions": "all",
        },
        trials=TUNING_TRIALS,
        # One noise seed (and random order) per trial.
        seeds=[config["seed"] + trial for trial in TUNING_TRIALS],
        random_orders=config["perturbation"]["random_orders"],
        uniform_orders=config["perturbation"]["uniform_orders"],
        scope=config["ranking"]["scope"],
        test_samples=config["perturbation"]["test_samples"],
        subset_seed=config["seed"],
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["perturbation"]["batch_size"],
        baseline_samples=config["activations"]["baseline_samples"],
    script:
        "../../scripts/paper_a/tuning_method_perturbation.py"


use rule figure_perturbation_all_tasks as figure_adapter_curves with:
    input:
        lambda w: tuning_curves(w.model, "adapter", TUNING_TASKS),
    output:
        **paper_outputs(PAPER_A, "figure_adapter_curves"),
    log:
        "logs/{model}/figures/A-F12.log",
    params:
        eval_tasks=TUNING_TASKS,
        own_order_only=False,
        title="A-F12: adapter accuracy vs perturbation rate in prompt-tuning orders "
        "(mean ± s.e.m.)",


use rule figure_perturbation_all_tasks as figure_bitfit_curves with:
    input:
        lambda w: tuning_curves(w.model, "bitfit", TUNING_TASKS),
    output:
        **paper_outputs(PAPER_A, "figure_bitfit_curves"),
    log:
        "logs/{model}/figures/A-F13.log",
    params:
        eval_tasks=TUNING_TASKS,
        own_order_only=False,
        title="A-F13: BitFit accuracy vs perturbation rate in prompt-tuning orders "
        "(mean ± s.e.m.)",


use rule figure_perturbation_all_tasks as figure_bitfit_example with:
    input:
        lambda w: tuning_curves(w.model, "bitfit", [TUNING_EXAMPLE_TASK]),
    output:
        **paper_outputs(PAPER_A, "figure_bitfit_example"),
    log:
        "logs/{model}/figures/A-F7.log",
    params:
        eval_tasks=[TUNING_EXAMPLE_TASK],
        own_order_only=False,
        title=f"A-F7: BitFit accuracy on {TUNING_EXAMPLE_TASK} vs perturbation rate "
        "(mean ± s.e.m.)",


use rule neuronal_importance as tuning_method_importance with:
    input:
        lambda w: tuning_curves(w.model, w.method, TUNING_TASKS),
    output:
        **paper_outputs(PAPER_A, "tuning_method_importance"),
    log:
        "logs/{model}/tables/A-F8_{method}.log",
    params:
        task_types=TASK_TYPES,
        title=lambda w: f"A-F8 ({w.method}): neuronal importance of prompt-tuning orders "
        "(z-score)",
        summary_title=lambda w: f"A-F8 ({w.method}) summary: perturbation findings per "
        "evaluation task",


rule tuning_methods_importance:
    input:
        unpack(
            lambda w: {
                method: tuning_curves(w.model, method, TUNING_TASKS)
                for method in TUNING_METHODS
            }
        ),
    output:
        **paper_outputs(PAPER_A, "tuning_methods_importance"),
    log:
        "logs/{model}/tables/A-F8.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        methods=TUNING_METHODS,
        task_types=TASK_TYPES,
        title="A-F8: neuronal importance averaged over adapter and BitFit models (z-score)",
    script:
        "../../scripts/paper_a/tuning_methods_importance.py"


rule tuning_methods_table:
    input:
        lambda w: expand(
            "results/{model}/tuning_methods/{method}/{task}/trial{trial}/metrics.json",
            model=w.model,
            method=TUNING_METHODS,
            task=TUNING_TASKS,
            trial=TUNING_TRIALS,
        ),
    output:
        **paper_outputs(PAPER_A, "tuning_methods_table"),
    log:
        "logs/{model}/tables/tuning_methods.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="Adapter and BitFit test accuracy per task (mean ± std over trials)",
    script:
        "../../scripts/paper_a/tuning_methods_table.py"
