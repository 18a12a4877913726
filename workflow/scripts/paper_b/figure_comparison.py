"""Rule figure_comparison: Figure AB-F1: every task's accuracy as neurons are deactivated
in paper A's order, paper B's order and layer-matched random orders of each."""

from skillneurons.infra.runlog import job_log
from skillneurons.neurons.perturbation.curve_table import read_curves
from skillneurons.reporting.figures import perturbation_curves_figure, save_figure
from skillneurons.reporting.stats import curve_statistics

LABELS = {
    "paper_a": "paper A (predictivity)",
    "paper_b": "paper B (relevance)",
    "random_paper_a": "random, layers of A's",
    "random_paper_b": "random, layers of B's",
}

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    stats = curve_statistics(read_curves(snakemake.input))
    figure = perturbation_curves_figure(
        stats,
        params.tasks,
        labels=LABELS,
        title=params.title,
        colors={"paper_a": "tab:blue", "random_paper_a": "tab:blue",
                "paper_b": "tab:orange", "random_paper_b": "tab:orange"},
        xlabel="fraction of neurons "
        + ("deactivated" if params.kind == "zero" else f"perturbed ({params.kind})"),
    )  # fmt: skip
    save_figure(figure, snakemake.output.png, snakemake.output.pdf)
