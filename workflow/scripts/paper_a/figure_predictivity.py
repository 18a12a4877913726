"""Rules figure_predictivity_*: distributions of neuron predictivity per task, the bars
with the findings engine's interval over trials (skillneurons.reporting.intervals):
Figures A-F3/A-F9 (with the Avg./Max. input-token baselines) and A-F10 (other
definitions of predictivity)."""

import numpy as np

from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.skill_neurons import predictivity_panels
from skillneurons.reporting.figures import predictivity_histograms, save_figure
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.intervals import histogram_intervals

#: Predictivity is an accuracy of a binary comparison: 0.5 is chance.
BINS = np.linspace(0.5, 1.0, 26)

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    files = dict(zip(params.tasks, snakemake.input, strict=True))
    panels = predictivity_panels(files, list(params.series))
    settings = BootstrapSettings(**params.intervals)
    first = next(iter(params.series))
    whiskers = {
        name: histogram_intervals(arrays[first], BINS, settings, f"{snakemake.rule} {name}")
        for name, arrays in panels.items()
    }
    figure = predictivity_histograms(panels, params.series, params.title, whiskers, BINS)
    save_figure(figure, snakemake.output.png, snakemake.output.pdf)
