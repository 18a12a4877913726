"""The findings table: paper A's claims of sections 4-5 checked on this run."""

from skillneurons.paper_a.registry import PAPER_A


rule findings:
    input:
        unpack(findings_inputs),
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
        tasks=list(TASKS),
        task_types=TASK_TYPES,
        methods=TUNING_METHODS,
        method_tasks=TUNING_TASKS,
        label_word_tasks=RANDOM_WORDS_TASKS,
        draws=len(RANDOM_WORDS_DRAWS),
        bootstrap=BOOTSTRAP,
    script:
        "../../scripts/paper_a/findings_table.py"
