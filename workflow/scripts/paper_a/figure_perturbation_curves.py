"""Rules figure_perturbation_*: accuracy vs perturbation rate, one panel per evaluation
task, each point with the findings engine's interval over trials, random orders and test
samples (skillneurons.reporting.intervals): Figures A-F4 (a representative task), A-F11
(every task, every source order) and A-F15 (own predictivity order vs random vs the
selectivity index); the tuning methods' A-F7, A-F12 and A-F13."""

from skillneurons.infra.runlog import job_log
from skillneurons.neurons.perturbation.curve_table import own_order_view, read_curves
from skillneurons.reporting.figures import perturbation_curves_figure, save_figure
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.intervals import point_intervals

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    curves = read_curves(snakemake.input)
    curves = curves[curves["eval_task"].isin(params.eval_tasks)]
    if params.own_order_only:
        curves = own_order_view(curves, "predictivity (ours)")
    points = point_intervals(curves, BootstrapSettings(**params.intervals))
    figure = perturbation_curves_figure(points, params.eval_tasks, title=params.title)
    save_figure(figure, snakemake.output.png, snakemake.output.pdf)
