"""The findings table: paper A's claims of sections 4-5 checked on this run, from the
per-sample results behind them: perturbation curves, per-trial predictivity, the
controls' top neurons, every trial's prompt-tuning metrics and top neurons (§4.1); §4.4
(the random-label-word draws' rankings and their seed-only controls') and §5 only when
the config runs them."""


rule findings:
    input:
        **tuning_curves(PLAN.tuning_methods, PLAN.tuning_tasks),
        **random_label_word_results(),
        perturbation=expand(rules.perturbation_curves.output, task=PLAN.tasks, allow_missing=True),
        paper_design=expand(
            rules.perturbation_paper_design.output, task=PLAN.tasks, allow_missing=True
        ),
        predictivity=expand(
            rules.rank_neurons.output.predictivity, task=PLAN.tasks, allow_missing=True
        ),
        prompt_metrics=expand(
            rules.prompt_tuning_trial.output.metrics,
            task=PLAN.tasks,
            trial=PLAN.trials,
            allow_missing=True,
        ),
        top_neurons=expand(
            rules.rank_neurons.output.top_neurons, task=PLAN.tasks, allow_missing=True
        ),
        random_prompt=for_each(rules.control_top_neuron.output.random_prompt, task=PLAN.tasks),
        random_model=for_each(rules.control_top_neuron.output.random_model, task=PLAN.tasks),
    output:
        csv=reported("results/{model}/tables/findings.csv"),
        md="results/{model}/tables/findings.md",
    log:
        "logs/{model}/tables/findings.log",
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        tasks=list(PLAN.tasks),
        task_types=PLAN.task_types,
        methods=PLAN.tuning_methods,
        method_tasks=PLAN.tuning_tasks,
        label_word_tasks=PLAN.random_words_tasks,
        draws=len(PLAN.random_words_draws),
        # the findings engine's settings (skillneurons.reporting.findings.BootstrapSettings)
        resamples=config["findings"]["bootstrap"],
        alpha=config["findings"]["alpha"],
        min_runs=config["findings"]["min_runs"],
        primary=config["findings"]["primary"],
        seed=config["seed"],
    script:
        "../../scripts/paper_a/findings_table.py"
