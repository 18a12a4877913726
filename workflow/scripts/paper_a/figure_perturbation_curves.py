"""Rules figure_perturbation_*: accuracy vs perturbation rate with s.e.m. over trials,
one panel per evaluation task: Figures A-F4 (a representative task), A-F11 (every
task, every source order) and A-F15 (own predictivity order vs random vs the
selectivity index)."""

from skillneurons.infra.runlog import job_log
from skillneurons.neurons.perturbation.curve_table import own_order_view, read_curves
from skillneurons.reporting.figures import perturbation_curves_figure, save_figure
from skillneurons.reporting.stats import curve_statistics

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    curves = read_curves(snakemake.input)
    if params.own_order_only:
        curves = own_order_view(curves, "predictivity (ours)")
    figure = perturbation_curves_figure(
        curve_statistics(curves), params.eval_tasks, title=params.title
    )
    save_figure(figure, snakemake.output.png, snakemake.output.pdf)
