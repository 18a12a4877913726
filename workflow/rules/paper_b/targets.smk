"""Paper B's targets: every figure and table of its registry, for every model
(skillneurons.paper_b.registry). `snakemake paper_b` builds them."""

from skillneurons.reporting.registry import targets

# The features of this configuration that outputs of the registry may require.
PAPER_B_FEATURES = [
    feature
    for feature, on in (
        ("generalization", GENERALIZATION_ON),
        ("continual", CONTINUAL_ON),
    )
    if on
]
PAPER_B_TARGETS = (
    targets(PAPER_B, PAPER_B_FEATURES, list(MODELS)) if PAPER_B_TASKS else []
)


rule paper_b:
    input:
        PAPER_B_TARGETS,
