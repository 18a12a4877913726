"""Paper B's findings: every claim of §4-§6 and the A-vs-B claims through the findings
engine (skillneurons.paper_b.findings, skillneurons.paper_b.generalization_findings)."""

# The continual-learning results, when an order is configured.
CONTINUAL_FINDINGS_INPUTS = (
    {
        "continual_trained": expand(
            "results/{{model}}/paper_b/continual/{order}/{method}.parquet",
            order=CONTINUAL_ORDERS,
            method=CONTINUAL_FILES,
        ),
        "continual_per_task": expand(
            "results/{{model}}/paper_b/continual/per_task/{task}.parquet",
            task=CONTINUAL_TASKS,
        ),
    }
    if CONTINUAL_ON
    else {}
)


rule findings_b:
    input:
        unpack(overlap_neuron_files),
        unpack(generation_findings_files),
        unpack(generalization_files),
        unpack(similarity_files),
        **CONTINUAL_FINDINGS_INPUTS,
        deactivation=f"{PAPER_B_DIR}/deactivation.parquet",
        training=expand(
            "results/{{model}}/paper_b/neuron_training/{task}.parquet",
            task=PAPER_B_TASKS,
        ),
        zero_shot=f"{PAPER_B_DIR}/zero_shot.parquet",
        rankings=expand("results/{{model}}/rankings/{task}.parquet", task=PAPER_B_TASKS),
        relevances=expand(
            "results/{{model}}/paper_b/prompt_tuned_neurons/{task}.parquet",
            task=PAPER_B_TASKS,
        ),
        curves=expand(
            "results/{{model}}/paper_b/comparison/{task}.parquet", task=PAPER_B_TASKS
        ),
    output:
        **paper_outputs(PAPER_B, "findings_b"),
    log:
        "logs/{model}/tables/B-findings.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        tasks=PAPER_B_TASKS,
        fraction=PAPER_B_CONFIG["fraction"],
        generalization=lambda w: (
            {
                "overlap_proportions": GENERALIZATION["overlap_proportions"],
                "definition": GENERALIZATION["similarity"],
            }
            if generalization_groups(w.model)
            else {}
        ),
        overlap_groups=overlap_groups,
        continual=list(CONTINUAL_ORDERS),
        bootstrap=BOOTSTRAP,
        title="Findings: paper B's claims (§4-§6, A.4-A.7) and paper A vs B (bootstrap "
        "intervals)",
    script:
        "../../scripts/paper_b/findings_b.py"
