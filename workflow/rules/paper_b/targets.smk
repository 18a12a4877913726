"""Paper B's targets: every figure and table of its registry that the config enables, for
every model (skillneurons.paper_b.registry; skillneurons.plan.Plan.paper_b_targets).
`snakemake paper_b` builds them."""


rule paper_b:
    input:
        PLAN.paper_b_targets(),
