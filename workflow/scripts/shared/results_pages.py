"""Rule results_pages: docs/results/{model}.md, every table of the run rendered per
paper, findings first (skillneurons.reporting.results_pages)."""

from skillneurons.infra.runlog import job_log
from skillneurons.reporting.results_pages import write_results_page

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    write_results_page(snakemake.output[0], snakemake.wildcards.model, snakemake.input.tables)
