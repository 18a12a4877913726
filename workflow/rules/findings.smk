"""The findings table: paper A's claims of sections 4-5 checked on this run."""


rule findings:
    input:
        unpack(findings_inputs),
    output:
        csv=report(
            "results/{model}/tables/findings.csv",
            caption="../report/findings.rst",
            category="Paper A: findings",
        ),
        md="results/{model}/tables/findings.md",
    log:
        "logs/{model}/tables/findings.log",
    conda:
        "../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        methods=TUNING_METHODS,
        task_types=TASK_TYPES,
    script:
        "../scripts/findings_table.py"


STAGE_TARGETS.append(
    lambda: expand(
        "results/{model}/tables/findings.{ext}", model=list(MODELS), ext=["csv", "md"]
    )
)
