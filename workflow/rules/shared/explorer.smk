"""The neuron explorer: results/{model}/explorer/index.html, one static page per model
with paper A's and paper B's top neurons per task, each neuron's test activations by
label against Eq. 3's baseline, its top words and its ranks on the other tasks; built
from the run's outputs (no model is loaded). Part of `rule all`; the report's front page
links it."""


localrules:
    explorer,


rule explorer:
    input:
        unpack(explorer_inputs),
    output:
        directory("results/{model}/explorer"),
    log:
        "logs/{model}/explorer.log",
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        tasks=list(PLAN.tasks),
        paper_b_tasks=PLAN.paper_b_tasks,
        fraction=config["paper_b"]["fraction"],
        scope=config["paper_b"]["scope"],
    script:
        "../../scripts/shared/explorer.py"
