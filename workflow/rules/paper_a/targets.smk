"""Paper A's targets: every figure and table of its registry that the config enables
(skillneurons.paper_a.registry), for every model. `snakemake paper_a` builds them."""

from skillneurons.reporting.registry import targets

# The features of this configuration that outputs of the registry may require.
PAPER_A_FEATURES = [
    name
    for name, on in {
        "histogram_task": FIGURE_TASKS["histogram"] is not None,
        "scatter_task": FIGURE_TASKS["scatter"] is not None,
        "random_label_words": bool(RANDOM_WORDS_TASKS),
        "tuning_methods": bool(TUNING_TASKS and TUNING_METHODS),
        **{method: True for method in TUNING_METHODS},
        "ablation": bool(ABLATION_TASKS),
    }.items()
    if on
]
PAPER_A_TARGETS = targets(
    PAPER_A, PAPER_A_FEATURES, list(MODELS), {"method": TUNING_METHODS}
)


rule paper_a:
    input:
        PAPER_A_TARGETS,
