"""The findings table: paper A's claims of sections 4-5 checked on this run."""

from skillneurons.paper_a.registry import PAPER_A


def findings_inputs(wildcards):
    """The tables behind the claims; §4.4 and §5 only when the config runs them."""
    tables = f"results/{wildcards.model}/tables"
    inputs = {
        "importance": f"{tables}/A-F6_summary.csv",
        "correlation": f"{tables}/A-F5.csv",
        "controls": f"{tables}/A-T3.csv",
        "methods": [f"{tables}/A-F8_{method}_summary.csv" for method in TUNING_METHODS],
    }
    if RANDOM_WORDS_TASKS:
        inputs["label_words"] = f"{tables}/A-S4.4.csv"
    return inputs


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
        methods=TUNING_METHODS,
        task_types=TASK_TYPES,
    script:
        "../../scripts/paper_a/findings_table.py"
