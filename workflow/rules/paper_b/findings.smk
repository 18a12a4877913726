"""Paper B's findings: every claim of §4-§6 and the A-vs-B claims through the findings
engine (skillneurons.paper_b.findings, from each experiment's *_report module)."""


rule findings_b:
    input:
        unpack(group_task_neurons),
        unpack(generation_part_one),
        unpack(generalization_sweeps),
        unpack(similarity_results),
        unpack(continual_findings_results),
        deactivation=expand(
            rules.deactivation.output.results, family="classification", allow_missing=True
        ),
        training=expand(
            rules.neuron_training.output.results, task=PLAN.paper_b_tasks, allow_missing=True
        ),
        zero_shot=filled(rules.zero_shot.output, family="classification"),
        agreements=expand(
            rules.comparison.output.agreement, task=PLAN.paper_b_tasks, allow_missing=True
        ),
        curves=expand(rules.comparison.output.curves, task=PLAN.paper_b_tasks, allow_missing=True),
    output:
        csv=reported("results/{model}/tables/B-findings.csv"),
        md="results/{model}/tables/B-findings.md",
    log:
        "logs/{model}/tables/B-findings.log",
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        tasks=PLAN.paper_b_tasks,
        generalization=lambda w: (
            {
                "overlap_proportions": config["paper_b"]["generalization"]["overlap_proportions"],
                "definition": config["paper_b"]["generalization"]["similarity"],
            }
            if PLAN.groups(w.model)
            else {}
        ),
        overlap_groups=model_groups,
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
