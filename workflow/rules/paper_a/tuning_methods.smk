"""Skill neurons matter beyond prompt tuning (paper A, §5, appendix D): adapter-based
tuning and BitFit per model x method x task x trial, their perturbation curves in the
prompt-tuning predictivity orders (A-F7, A-F12, A-F13), neuronal importance per method
and averaged over methods (A-F8), and the trained models' accuracy."""


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
        train=rules.split.output.train,
        dev=rules.split.output.dev,
        test=rules.split.output.test,
    output:
        weights="results/{model}/tuning_methods/{method}/{task}/trial{trial}/weights.safetensors",
        metrics="results/{model}/tuning_methods/{method}/{task}/trial{trial}/metrics.json",
    log:
        "logs/{model}/tuning_methods/{method}/{task}/trial{trial}.log",
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=model_spec,
        label_words=task_label_words,
        # only this method's training settings: other tasks and methods don't rerun it
        settings=lambda w: {
            **pick(
                "tuning_methods",
                [
                    "adapter_size",
                    "adapter_init_std",
                    "batch_size",
                    "eval_batch_size",
                    "max_steps",
                    "eval_every",
                    "patience",
                ],
            ),
            "learning_rate": {w.method: config["tuning_methods"]["learning_rate"][w.method]},
        },
        max_length=config["prompt_tuning"]["max_length"],
        seed=lambda w: config["seed"] + int(w.trial),
    script:
        "../../scripts/paper_a/train_tuning_method.py"


rule tuning_method_perturbation:
    input:
        model=model_files,
        weights=expand(
            rules.train_tuning_method.output.weights, trial=PLAN.tuning_trials, allow_missing=True
        ),
        test=rules.split.output.test,
        rankings=expand(rules.rank_neurons.output.ranking, task=PLAN.tasks, allow_missing=True),
        # a_bsl and the activation std of the tuned model (kind baseline, neuron_std).
        train=rules.split.output.train,
    output:
        "results/{model}/tuning_methods/{method}/perturbation/{task}.parquet",
    log:
        "logs/{model}/tuning_methods/{method}/perturbation/{task}.log",
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        model=model_spec,
        sources=list(PLAN.tasks),
        rates=config["perturbation"]["rates"],
        # No soft prompts: every position is perturbed (positions "all").
        settings={
            **pick("perturbation", ["kind", "sigma", "mean", "unit", "draw"]),
            "positions": "all",
        },
        trials=PLAN.tuning_trials,
        # One noise seed (and random order) per trial.
        seeds=PLAN.seeds(PLAN.tuning_trials),
        layer_matched_orders=config["perturbation"]["layer_matched_orders"],
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
        expand(
            rules.tuning_method_perturbation.output,
            method="adapter",
            task=PLAN.tuning_tasks,
            allow_missing=True,
        ),
    output:
        png=reported("results/{model}/figures/A-F12.png"),
        pdf="results/{model}/figures/A-F12.pdf",
    log:
        "logs/{model}/figures/A-F12.log",
    params:
        eval_tasks=PLAN.tuning_tasks,
        own_order_only=False,
        title="A-F12: adapter accuracy vs perturbation rate in prompt-tuning orders",
        intervals=PLAN.intervals,


use rule figure_perturbation_all_tasks as figure_bitfit_curves with:
    input:
        expand(
            rules.tuning_method_perturbation.output,
            method="bitfit",
            task=PLAN.tuning_tasks,
            allow_missing=True,
        ),
    output:
        png=reported("results/{model}/figures/A-F13.png"),
        pdf="results/{model}/figures/A-F13.pdf",
    log:
        "logs/{model}/figures/A-F13.log",
    params:
        eval_tasks=PLAN.tuning_tasks,
        own_order_only=False,
        title="A-F13: BitFit accuracy vs perturbation rate in prompt-tuning orders",
        intervals=PLAN.intervals,


use rule figure_perturbation_all_tasks as figure_bitfit_example with:
    input:
        expand(
            rules.tuning_method_perturbation.output,
            method="bitfit",
            task=PLAN.figure_tasks["A-F7"],
            allow_missing=True,
        ),
    output:
        png=reported("results/{model}/figures/A-F7.png"),
        pdf="results/{model}/figures/A-F7.pdf",
    log:
        "logs/{model}/figures/A-F7.log",
    params:
        eval_tasks=PLAN.figure_tasks["A-F7"],
        own_order_only=False,
        title=f"A-F7: BitFit accuracy on {PLAN.figure_task('A-F7')} vs perturbation rate",
        intervals=PLAN.intervals,


use rule neuronal_importance as tuning_method_importance with:
    input:
        expand(rules.tuning_method_perturbation.output, task=PLAN.tuning_tasks, allow_missing=True),
    output:
        csv="results/{model}/tables/A-F8_{method}.csv",
        md="results/{model}/tables/A-F8_{method}.md",
        summary_csv="results/{model}/tables/A-F8_{method}_summary.csv",
        summary_md="results/{model}/tables/A-F8_{method}_summary.md",
        png=reported("results/{model}/figures/A-F8_{method}.png"),
        pdf="results/{model}/figures/A-F8_{method}.pdf",
    log:
        "logs/{model}/tables/A-F8_{method}.log",
    params:
        task_types=PLAN.task_types,
        title=lambda w: f"A-F8 ({w.method}): neuronal importance of prompt-tuning orders "
        "(z-score)",
        summary_title=lambda w: f"A-F8 ({w.method}) summary: perturbation findings per "
        "evaluation task",
        intervals=PLAN.intervals,


rule tuning_methods_importance:
    input:
        **tuning_curves(PLAN.tuning_methods, PLAN.tuning_tasks),
    output:
        csv="results/{model}/tables/A-F8.csv",
        md="results/{model}/tables/A-F8.md",
        png=reported("results/{model}/figures/A-F8.png"),
        pdf="results/{model}/figures/A-F8.pdf",
    log:
        "logs/{model}/tables/A-F8.log",
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        methods=PLAN.tuning_methods,
        task_types=PLAN.task_types,
        title="A-F8: neuronal importance averaged over adapter and BitFit models (z-score)",
        intervals=PLAN.intervals,
    script:
        "../../scripts/paper_a/tuning_methods_importance.py"


rule tuning_methods_table:
    input:
        expand(
            rules.train_tuning_method.output.metrics,
            method=PLAN.tuning_methods,
            task=PLAN.tuning_tasks,
            trial=PLAN.tuning_trials,
            allow_missing=True,
        ),
    output:
        csv=reported("results/{model}/tables/tuning_methods.csv"),
        md="results/{model}/tables/tuning_methods.md",
    log:
        "logs/{model}/tables/tuning_methods.log",
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="Adapter and BitFit test accuracy per task (mean ± std over trials)",
    script:
        "../../scripts/paper_a/tuning_methods_table.py"
