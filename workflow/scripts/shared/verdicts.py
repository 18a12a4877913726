"""Rule verdicts: results/{model}/verdicts.html, the report's first page: every claim of
the findings tables by paper, verdict coloured, linked to its result
(skillneurons.reporting.verdicts)."""

from skillneurons.infra.runlog import job_log
from skillneurons.reporting.verdicts import write_summary

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs = snakemake.input
    write_summary(
        snakemake.output[0],
        snakemake.wildcards.model,
        inputs.get("paper_a"),
        inputs.get("paper_b"),
        snakemake.params.reported,
    )
