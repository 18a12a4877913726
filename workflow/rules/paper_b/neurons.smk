"""Paper B, part 1 (§3-§4, appendix A.4): task-specific neurons by gradient attribution
(rule task_neurons, on the base model); deactivating them in a multi-task model (B-T1,
B-F5a/b) and training only them (B-T2, B-F5c/d), one rule each for classification and
generation tasks (through their skillneurons.paper_b.scorers.TaskScorer; {kind}:
classification or generation); paper A's and paper B's neurons on the same
prompt-tuned model (AB-T1, AB-F1).
"""

from skillneurons.paper_b.registry import PAPER_B


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
        splits=lambda w: PLAN.scored_split_files([w.task]),
    output:
        "results/{model}/task_neurons/{task}.parquet",
    log:
        "logs/{model}/task_neurons/{task}.log",
    wildcard_constraints:
        task=names_regex([*PLAN.tasks, *PLAN.generation_tasks]),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=lambda w: PLAN.models[w.model],
        scorer=lambda w: PLAN.scorer_params([w.task]),
        relevance=config["paper_b"]["relevance"],
        attribution_samples=config["paper_b"]["attribution_samples"],
        batch_size=config["paper_b"]["batch_size"],
        seed=config["seed"],
    script:
        "../../scripts/paper_b/task_neurons.py"


rule deactivation:
    """One job computes every run (paper_b.runs) of the condition (issue 37: one process
    start in place of one per run; each run's files are what its own job wrote, run r
    from a freshly loaded model with seed + r). Changing paper_b.runs reruns the job as
    a whole (the earlier runs recomputed identically), where one job per run ran only
    the new runs."""
    input:
        model=model_files,
        splits=lambda w: PLAN.scored_split_files(PLAN.part_one_tasks(w.kind)),
        base_neurons=lambda w: (
            [PLAN.task_neuron_file(w.model, t) for t in PLAN.part_one_tasks(w.kind)]
            if config["paper_b"]["identify_on"]["deactivation"] == "base"
            else []
        ),
    output:
        results=expand(
            "results/{{model}}/paper_b/{{kind}}/run{run}/deactivation.parquet",
            run=PLAN.paper_b_runs,
        ),
        metrics=expand(
            "results/{{model}}/paper_b/{{kind}}/run{run}/multitask.json",
            run=PLAN.paper_b_runs,
        ),
        neurons=expand(
            "results/{{model}}/paper_b/{{kind}}/run{run}/multitask_neurons.parquet",
            run=PLAN.paper_b_runs,
        ),
    log:
        "logs/{model}/paper_b/{kind}/deactivation.log",
    wildcard_constraints:
        kind="classification|generation",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        runtime=lambda w: (480 if w.kind == "generation" else 240)
        * len(PLAN.paper_b_runs),
    params:
        model=lambda w: PLAN.models[w.model],
        scorers=lambda w: PLAN.scorer_params(PLAN.part_one_tasks(w.kind)),
        training=lambda w: PLAN.part_one_training(w.kind, "multitask"),
        relevance=config["paper_b"]["relevance"],
        attribution_samples=config["paper_b"]["attribution_samples"],
        batch_size=config["paper_b"]["batch_size"],
        fraction=config["paper_b"]["fraction"],
        scope=config["paper_b"]["scope"],
        random_draws=config["paper_b"]["random_draws"],
        by=config["paper_b"]["deactivation"],
        identify_on=config["paper_b"]["identify_on"]["deactivation"],
        runs=PLAN.paper_b_runs,
        # run r: seed + r, its random draws from seed + r x random_draws
        seeds=[PLAN.run_seed(run) for run in PLAN.paper_b_runs],
        draw_seeds=[PLAN.draw_seed(run) for run in PLAN.paper_b_runs],
    script:
        "../../scripts/paper_b/deactivation.py"


rule zero_shot:
    input:
        model=model_files,
        splits=lambda w: PLAN.scored_split_files(PLAN.zero_shot_tasks(w.kind)),
    output:
        "results/{model}/paper_b/{kind}/zero_shot.parquet",
    log:
        "logs/{model}/paper_b/{kind}/zero_shot.log",
    wildcard_constraints:
        kind="classification|generation",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=lambda w: PLAN.models[w.model],
        scorers=lambda w: PLAN.scorer_params(PLAN.zero_shot_tasks(w.kind)),
    script:
        "../../scripts/paper_b/zero_shot.py"


rule neuron_training:
    """One job computes every run (paper_b.runs) of the condition (issue 37: one process
    start in place of one per run; each run's files are what its own job wrote, run r
    from a freshly loaded model with seed + r). Changing paper_b.runs reruns the job as
    a whole (the earlier runs recomputed identically), where one job per run ran only
    the new runs."""
    input:
        model=model_files,
        splits=lambda w: PLAN.scored_split_files(
            PLAN.part_one_tasks(PLAN.part_one_kind(w.task))
        ),
        # every run's multi-task model's neurons (run r's for run r), or the base model's
        neurons=lambda w: (
            [
                f"results/{w.model}/paper_b/{PLAN.part_one_kind(w.task)}/run{run}/multitask_neurons.parquet"
                for run in PLAN.paper_b_runs
            ]
            if config["paper_b"]["identify_on"]["training"] == "multitask"
            else [PLAN.task_neuron_file(w.model, w.task)]
        ),
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
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=240 * len(PLAN.paper_b_runs),
    params:
        model=lambda w: PLAN.models[w.model],
        scorers=lambda w: PLAN.scorer_params(
            PLAN.part_one_tasks(PLAN.part_one_kind(w.task))
        ),
        training=lambda w: PLAN.part_one_training(
            PLAN.part_one_kind(w.task), "neuron_training"
        ),
        fraction=config["paper_b"]["fraction"],
        scope=config["paper_b"]["scope"],
        random_draws=config["paper_b"]["random_draws"],
        identify_on=config["paper_b"]["identify_on"]["training"],
        parameters=config["paper_b"]["parameters"],
        runs=PLAN.paper_b_runs,
        # run r: seed + r, its random draws from seed + r x random_draws
        seeds=[PLAN.run_seed(run) for run in PLAN.paper_b_runs],
        draw_seeds=[PLAN.draw_seed(run) for run in PLAN.paper_b_runs],
    script:
        "../../scripts/paper_b/neuron_training.py"


rule comparison:
    """One job per task computes every prompt trial's comparison (one model load): the
    AB claims resample the trials."""
    input:
        model=model_files,
        prompts=expand(
            "results/{{model}}/prompt_tuning/{{task}}/trial{trial}/prompt.safetensors",
            trial=PLAN.trials,
        ),
        baselines=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/baseline.safetensors",
            trial=PLAN.trials,
        ),
        predictivity="results/{model}/predictivity/{task}.safetensors",
        dev="data/splits/{task}/dev.parquet",
        subtasks=lambda w: PLAN.subtask_files(w.task, "dev"),
        train="data/splits/{task}/train.parquet",
        test="data/splits/{task}/test.parquet",
    output:
        curves="results/{model}/paper_b/comparison/{task}.parquet",
        agreement="results/{model}/paper_b/comparison/{task}.json",
        neurons=expand(
            "results/{{model}}/paper_b/prompt_tuned_neurons/{{task}}/trial{trial}.parquet",
            trial=PLAN.trials,
        ),
    log:
        "logs/{model}/paper_b/comparison/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=lambda w: 60 * len(PLAN.trials),
    params:
        trials=PLAN.trials,
        # One seed per trial: its layer-matched random orders (as perturbation_curves).
        seeds=[config["seed"] + trial for trial in PLAN.trials],
        model=lambda w: PLAN.models[w.model],
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
        lambda w: PLAN.deactivation_files(w.model, "classification"),
    output:
        **paper_outputs(PAPER_B, "deactivation_table"),
    log:
        "logs/{model}/tables/B-T1.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
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
        training=lambda w: PLAN.neuron_training_files(w.model, PLAN.paper_b_tasks),
        zero_shot="results/{model}/paper_b/classification/zero_shot.parquet",
    output:
        **paper_outputs(PAPER_B, "training_table"),
    log:
        "logs/{model}/tables/B-T2.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="B-T2: accuracy (%) after training only random or only the task's neurons",
    script:
        "../../scripts/paper_b/training_table.py"


rule figure_task_specificity:
    input:
        deactivation=lambda w: PLAN.deactivation_files(w.model, "classification"),
        training=lambda w: PLAN.neuron_training_files(w.model, PLAN.paper_b_tasks),
        zero_shot="results/{model}/paper_b/classification/zero_shot.parquet",
    output:
        **paper_outputs(PAPER_B, "figure_task_specificity"),
    log:
        "logs/{model}/figures/B-F5.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
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
            "results/{{model}}/paper_b/comparison/{task}.json", task=PLAN.paper_b_tasks
        ),
        curves=expand(
            "results/{{model}}/paper_b/comparison/{task}.parquet",
            task=PLAN.paper_b_tasks,
        ),
    output:
        **paper_outputs(PAPER_B, "comparison_table"),
    log:
        "logs/{model}/tables/AB-T1.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
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
        expand(
            "results/{{model}}/paper_b/comparison/{task}.parquet",
            task=PLAN.paper_b_tasks,
        ),
    output:
        **paper_outputs(PAPER_B, "figure_comparison"),
    log:
        "logs/{model}/figures/AB-F1.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
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
