"""The results pages: docs/results/{model}.md, generated from a run's tables (every
table of the papers' registries that the config enables for the model) so that the
docs never copy a number by hand. Part of `rule all`; a run in another folder writes
the page into that folder's docs/."""

from skillneurons.reporting.results_pages import model_tables


localrules:
    results_pages,


rule results_pages:
    input:
        tables=lambda wildcards: model_tables(
            [*rules.paper_a.input, *rules.paper_b.input], wildcards.model
        ),
    output:
        "docs/results/{model}.md",
    log:
        "logs/{model}/docs/results_pages.log",
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../../scripts/shared/results_pages.py"
