"""Paper A's targets: every figure and table of its registry that the config enables, for
every model (skillneurons.paper_a.registry; skillneurons.plan.Plan.paper_a_targets).
`snakemake paper_a` builds them."""


rule paper_a:
    input:
        PLAN.paper_a_targets(),
