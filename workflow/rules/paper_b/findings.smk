"""Paper B's findings: every claim of §4-§6 and the A-vs-B claims through the findings
engine (skillneurons.paper_b.findings, from each experiment's *_report module)."""

from skillneurons.paper_b.registry import PAPER_B


rule findings_b:
    input:
        unpack(lambda w: PLAN.group_neuron_files(w.model)),
        unpack(lambda w: PLAN.generation_findings_files(w.model)),
        unpack(lambda w: PLAN.generalization_files(w.model)),
        unpack(lambda w: PLAN.similarity_files(w.model)),
        unpack(lambda w: PLAN.continual_findings_files(w.model)),
        deactivation=lambda w: PLAN.deactivation_files(w.model, "classification"),
        training=lambda w: PLAN.neuron_training_files(w.model, PLAN.paper_b_tasks),
        zero_shot="results/{model}/paper_b/classification/zero_shot.parquet",
        agreements=expand(
            "results/{{model}}/paper_b/comparison/{task}.json", task=PLAN.paper_b_tasks
        ),
        curves=expand(
            "results/{{model}}/paper_b/comparison/{task}.parquet",
            task=PLAN.paper_b_tasks,
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
        tasks=PLAN.paper_b_tasks,
        generalization=lambda w: (
            {
                "overlap_proportions": config["paper_b"]["generalization"][
                    "overlap_proportions"
                ],
                "definition": config["paper_b"]["generalization"]["similarity"],
            }
            if PLAN.groups(w.model)
            else {}
        ),
        overlap_groups=lambda w: PLAN.groups(w.model),
        continual=list(PLAN.continual_orders),
        # the findings engine's settings (skillneurons.reporting.findings.BootstrapSettings)
        resamples=config["findings"]["bootstrap"],
        alpha=config["findings"]["alpha"],
        primary=config["findings"]["primary"],
        min_runs=config["findings"]["min_runs"],
        seed=config["seed"],
        title="Findings: paper B's claims (§4-§6, A.4-A.7) and paper A vs B (bootstrap "
        "intervals)",
    script:
        "../../scripts/paper_b/findings_b.py"
