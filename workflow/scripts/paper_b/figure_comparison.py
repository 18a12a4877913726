"""Rule figure_comparison: Figure AB-F1: every task's accuracy as neurons are deactivated
in paper A's order, paper B's order and layer-matched random orders of each, each point
with the findings engine's interval over random orders and test samples
(skillneurons.reporting.intervals); paper A blue, paper B vermillion in every figure."""

from skillneurons.infra.runlog import job_log
from skillneurons.neurons.perturbation.curve_table import read_curves
from skillneurons.reporting.figures import perturbation_curves_figure, save_figure
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.intervals import point_intervals

LABELS = {
    "paper_a": "paper A (predictivity)",
    "paper_b": "paper B (relevance)",
    "random_paper_a": "random, layers of A's",
    "random_paper_b": "random, layers of B's",
}

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    points = point_intervals(read_curves(snakemake.input), BootstrapSettings(**params.intervals))
    figure = perturbation_curves_figure(
        points,
        params.tasks,
        labels=LABELS,
        title=params.title,
        xlabel="fraction of neurons "
        + ("deactivated" if params.kind == "zero" else f"perturbed ({params.kind})"),
    )
    save_figure(figure, snakemake.output.png, snakemake.output.pdf)
