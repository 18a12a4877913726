"""Paper B, part 1 (§3-§4, appendix A.4): task-specific neurons by gradient attribution
(rule task_neurons, on the base model); deactivating them in a multi-task model (B-T1,
B-F5a/b) and training only them (B-T2, B-F5c/d), one rule each for both task families
(classification and generation, through their skillneurons.paper_b.scorers.TaskScorer;
{family}, spelled in full in these paths); paper A's and paper B's neurons on the same
prompt-tuned model (AB-T1, AB-F1).

Rules deactivation and neuron_training compute every run (paper_b.runs) of their
condition in one job: one process start in place of one per run; each run's files are
what its own job would write, run r from a freshly loaded model with seed + r. Changing
paper_b.runs reruns the job as a whole (the earlier runs recomputed identically), where
one job per run would run only the new runs."""


# Tables and figures from finished results: run on the submitting host under a
# cluster executor.
localrules:
    deactivation_table,
    training_table,
    figure_task_specificity,
    comparison_table,
    figure_comparison,


rule task_neurons:
    input:
        model=model_files,
        splits=task_splits,
    output:
        "results/{model}/task_neurons/{task}.parquet",
    log:
        "logs/{model}/task_neurons/{task}.log",
    wildcard_constraints:
        task=names_regex([*PLAN.tasks, *PLAN.generation_tasks]),
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=model_spec,
        scorer=lambda w: PLAN.scorer_params([w.task]),
        relevance=config["paper_b"]["relevance"],
        attribution_samples=config["paper_b"]["attribution_samples"],
        batch_size=config["paper_b"]["batch_size"],
        seed=config["seed"],
    script:
        "../../scripts/paper_b/task_neurons.py"


rule deactivation:
    input:
        model=model_files,
        splits=family_splits,
        base_neurons=base_neurons,
    output:
        results=expand(
            "results/{{model}}/paper_b/{{family}}/run{run}/deactivation.parquet",
            run=PLAN.paper_b_runs,
        ),
        metrics=expand(
            "results/{{model}}/paper_b/{{family}}/run{run}/multitask.json", run=PLAN.paper_b_runs
        ),
        neurons=expand(
            "results/{{model}}/paper_b/{{family}}/run{run}/multitask_neurons.parquet",
            run=PLAN.paper_b_runs,
        ),
    log:
        "logs/{model}/paper_b/{family}/deactivation.log",
    wildcard_constraints:
        family=names_regex(FAMILIES),
    resources:
        mem_mb=8000,
        runtime=lambda w: (480 if w.family == "generation" else 240) * len(PLAN.paper_b_runs),
    params:
        model=model_spec,
        scorers=scorers_of_family,
        training=lambda w: PLAN.part_one_training(w.family, "multitask"),
        relevance=config["paper_b"]["relevance"],
        attribution_samples=config["paper_b"]["attribution_samples"],
        batch_size=config["paper_b"]["batch_size"],
        fraction=config["paper_b"]["fraction"],
        scope=config["paper_b"]["scope"],
        random_draws=config["paper_b"]["random_draws"],
        by=config["paper_b"]["deactivation"],
        identify_on=config["paper_b"]["identify_on"]["deactivation"],
        runs=PLAN.paper_b_runs,
        seeds=PLAN.run_seeds,
        draw_seeds=PLAN.draw_seeds,
    script:
        "../../scripts/paper_b/deactivation.py"


rule zero_shot:
    input:
        model=model_files,
        splits=zero_shot_splits,
    output:
        "results/{model}/paper_b/{family}/zero_shot.parquet",
    log:
        "logs/{model}/paper_b/{family}/zero_shot.log",
    wildcard_constraints:
        family=names_regex(FAMILIES),
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=model_spec,
        scorers=lambda w: PLAN.scorer_params(PLAN.zero_shot_tasks(w.family)),
    script:
        "../../scripts/paper_b/zero_shot.py"


rule neuron_training:
    input:
        model=model_files,
        splits=task_family_splits,
        # every run's multi-task model's neurons (run r's for run r), or the base model's
        neurons=training_neurons,
    output:
        results=expand(
            "results/{{model}}/paper_b/neuron_training/run{run}/{{task}}.parquet",
            run=PLAN.paper_b_runs,
        ),
        metrics=expand(
            "results/{{model}}/paper_b/neuron_training/run{run}/{{task}}.json",
            run=PLAN.paper_b_runs,
        ),
    log:
        "logs/{model}/paper_b/neuron_training/{task}.log",
    wildcard_constraints:
        task=names_regex([*PLAN.tasks, *PLAN.generation_tasks]),
    resources:
        mem_mb=6000,
        runtime=240 * len(PLAN.paper_b_runs),
    params:
        model=model_spec,
        scorers=lambda w: PLAN.scorer_params(PLAN.family_tasks(PLAN.family_of(w.task))),
        training=lambda w: PLAN.part_one_training(PLAN.family_of(w.task), "neuron_training"),
        fraction=config["paper_b"]["fraction"],
        scope=config["paper_b"]["scope"],
        random_draws=config["paper_b"]["random_draws"],
        identify_on=config["paper_b"]["identify_on"]["training"],
        parameters=config["paper_b"]["parameters"],
        runs=PLAN.paper_b_runs,
        seeds=PLAN.run_seeds,
        draw_seeds=PLAN.draw_seeds,
    script:
        "../../scripts/paper_b/neuron_training.py"


# One job per task computes every prompt trial's comparison (one model load): the AB
# claims resample the trials.
rule comparison:
    input:
        model=model_files,
        prompts=expand(
            rules.prompt_tuning_trial.output.prompt, trial=PLAN.trials, allow_missing=True
        ),
        baselines=rules.dump_activations.output.baseline,
        predictivity=rules.rank_neurons.output.predictivity,
        dev=rules.split.output.dev,
        subtasks=subtask_splits("dev"),
        train=rules.split.output.train,
        test=rules.split.output.test,
    output:
        curves="results/{model}/paper_b/comparison/{task}.parquet",
        agreement="results/{model}/paper_b/comparison/{task}.json",
        neurons=expand(
            "results/{{model}}/paper_b/prompt_tuned_neurons/{{task}}/trial{trial}.parquet",
            trial=PLAN.trials,
        ),
    log:
        "logs/{model}/paper_b/comparison/{task}.log",
    resources:
        mem_mb=6000,
        runtime=60 * len(PLAN.trials),
    params:
        trials=PLAN.trials,
        # One seed per trial: its layer-matched random orders (as perturbation_curves).
        seeds=PLAN.seeds(PLAN.trials),
        model=model_spec,
        max_length=config["prompt_tuning"]["max_length"],
        relevance=config["paper_b"]["relevance"],
        attribution_samples=config["paper_b"]["attribution_samples"],
        batch_size=config["paper_b"]["batch_size"],
        fraction=config["paper_b"]["fraction"],
        rates=config["perturbation"]["rates"],
        settings=PLAN.comparison_settings(),
        layer_matched_orders=config["paper_b"]["comparison"]["layer_matched_orders"],
        test_samples=config["perturbation"]["test_samples"],
        seed=config["seed"],
    script:
        "../../scripts/paper_b/comparison.py"


rule deactivation_table:
    input:
        expand(rules.deactivation.output.results, family="classification", allow_missing=True),
    output:
        csv=reported("results/{model}/tables/B-T1.csv"),
        md="results/{model}/tables/B-T1.md",
    log:
        "logs/{model}/tables/B-T1.log",
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="B-T1: multi-task model accuracy (%): original, random and task neurons "
        "deactivated",
    script:
        "../../scripts/paper_b/deactivation_table.py"


rule training_table:
    input:
        training=expand(
            rules.neuron_training.output.results, task=PLAN.paper_b_tasks, allow_missing=True
        ),
        zero_shot=filled(rules.zero_shot.output, family="classification"),
    output:
        csv=reported("results/{model}/tables/B-T2.csv"),
        md="results/{model}/tables/B-T2.md",
    log:
        "logs/{model}/tables/B-T2.log",
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="B-T2: accuracy (%) after training only random or only the task's neurons",
    script:
        "../../scripts/paper_b/training_table.py"


rule figure_task_specificity:
    input:
        deactivation=expand(
            rules.deactivation.output.results, family="classification", allow_missing=True
        ),
        training=expand(
            rules.neuron_training.output.results, task=PLAN.paper_b_tasks, allow_missing=True
        ),
        zero_shot=filled(rules.zero_shot.output, family="classification"),
    output:
        deactivation_csv="results/{model}/tables/B-F5a.csv",
        deactivation_md="results/{model}/tables/B-F5a.md",
        training_csv="results/{model}/tables/B-F5c.csv",
        training_md="results/{model}/tables/B-F5c.md",
        random_csv="results/{model}/tables/B-F5c_random.csv",
        random_md="results/{model}/tables/B-F5c_random.md",
        layer_matched_csv="results/{model}/tables/B-F5c_random_layer_matched.csv",
        layer_matched_md="results/{model}/tables/B-F5c_random_layer_matched.md",
        png=reported("results/{model}/figures/B-F5.png"),
        pdf="results/{model}/figures/B-F5.pdf",
    log:
        "logs/{model}/figures/B-F5.log",
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        task_types=PLAN.task_types,
        panels=["a", "c"],
        measure="",
        intervals=PLAN.intervals,
        title="B-F5: how much a task's neurons matter for each task (points)",
    script:
        "../../scripts/paper_b/figure_task_specificity.py"


rule comparison_table:
    input:
        agreements=expand(
            rules.comparison.output.agreement, task=PLAN.paper_b_tasks, allow_missing=True
        ),
        curves=expand(rules.comparison.output.curves, task=PLAN.paper_b_tasks, allow_missing=True),
    output:
        csv=reported("results/{model}/tables/AB-T1.csv"),
        md="results/{model}/tables/AB-T1.md",
    log:
        "logs/{model}/tables/AB-T1.log",
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        tasks=PLAN.paper_b_tasks,
        title="AB-T1: paper A's skill neurons vs paper B's task neurons on the "
        "prompt-tuned model",
    script:
        "../../scripts/paper_b/comparison_table.py"


rule figure_comparison:
    input:
        expand(rules.comparison.output.curves, task=PLAN.paper_b_tasks, allow_missing=True),
    output:
        png=reported("results/{model}/figures/AB-F1.png"),
        pdf="results/{model}/figures/AB-F1.pdf",
    log:
        "logs/{model}/figures/AB-F1.log",
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        tasks=PLAN.paper_b_tasks,
        kind=config["paper_b"]["comparison"]["kind"],
        title="AB-F1: accuracy as neurons are deactivated (or perturbed) in paper A's "
        "and paper B's orders and layer-matched random ones",
        intervals=PLAN.intervals,
    script:
        "../../scripts/paper_b/figure_comparison.py"
