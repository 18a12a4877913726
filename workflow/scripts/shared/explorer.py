"""Rule explorer: results/{model}/explorer/, the neuron explorer page of one model
(skillneurons.reporting.explorer_page)."""

from skillneurons.infra.runlog import job_log
from skillneurons.reporting.explorer_page import build_explorer

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards) as log:
    params = snakemake.params
    size = build_explorer(
        snakemake.output[0],
        snakemake.wildcards.model,
        dict(snakemake.input.items()),
        tasks=params.tasks,
        paper_b_tasks=params.paper_b_tasks,
        fraction=params.fraction,
        scope=params.scope,
    )
    log.info("explorer: %.1f MB", size / 1e6)
