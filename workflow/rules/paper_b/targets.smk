"""Paper B's targets: every figure and table of its registry, for every model
(skillneurons.paper_b.registry). `snakemake paper_b` builds them."""

PAPER_B_TARGETS = targets(PAPER_B, [], list(MODELS)) if PAPER_B_TASKS else []


rule paper_b:
    input:
        PAPER_B_TARGETS,
