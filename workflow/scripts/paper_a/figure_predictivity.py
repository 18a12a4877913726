"""Rules figure_predictivity_*: distributions of neuron predictivity per task with s.e.m.
over trials: Figures A-F3/A-F9 (with the Avg./Max. input-token baselines) and A-F10
(other definitions of predictivity)."""

from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.skill_neurons import predictivity_panels
from skillneurons.reporting.figures import predictivity_histograms, save_figure

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    files = dict(zip(params.tasks, snakemake.input, strict=True))
    panels = predictivity_panels(files, list(params.series))
    figure = predictivity_histograms(panels, params.series, params.title)
    save_figure(figure, snakemake.output.png, snakemake.output.pdf)
