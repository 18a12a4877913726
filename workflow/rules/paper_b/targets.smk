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
# Generation outputs exist for the causal LMs of paper_b.generation.models only, the
# generalization outputs for the models with a group of tasks (generalization_groups).
GENERATION_OUTPUTS = [output for output in PAPER_B if "generation" in output.requires]
GENERALIZATION_OUTPUTS = [
    output for output in PAPER_B if "generalization" in output.requires
]
PAPER_B_TARGETS = (
    (
        targets(
            [
                output
                for output in PAPER_B
                if output not in GENERATION_OUTPUTS + GENERALIZATION_OUTPUTS
            ],
            PAPER_B_FEATURES,
            list(MODELS),
        )
        + targets(GENERALIZATION_OUTPUTS, PAPER_B_FEATURES, GENERALIZATION_MODELS)
    )
    if PAPER_B_TASKS
    else []
) + (
    targets(GENERATION_OUTPUTS, ["generation"], GENERATION_MODELS)
    if GENERATION_ON
    else []
)


rule paper_b:
    input:
        PAPER_B_TARGETS,
