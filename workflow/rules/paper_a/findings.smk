"""The findings table: paper A's claims of sections 4-5 checked on this run."""

from skillneurons.paper_a.registry import PAPER_A


rule findings:
    input:
        unpack(lambda w: PLAN.findings_inputs(w.model)),
    output:
        **paper_outputs(PAPER_A, "findings"),
    log:
        "logs/{model}/tables/findings.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
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
