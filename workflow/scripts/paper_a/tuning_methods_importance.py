"""Rule tuning_methods_importance: neuronal importance of the prompt-tuning orders for
adapter and BitFit models, averaged over both methods (paper A, §5, Figure 8), each cell
with the findings engine's interval over trials, random orders and test samples, shared
by the methods (skillneurons.reporting.intervals)."""

from skillneurons.infra.runlog import job_log
from skillneurons.neurons.perturbation.curve_table import read_curves
from skillneurons.paper_a.importance import neuronal_importance
from skillneurons.paper_a.tuning_methods import average_importance
from skillneurons.reporting.figures import importance_heatmap, save_figure
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.intervals import importance_intervals, interval_note
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, output = snakemake.params, snakemake.output
    curves = {method: read_curves(snakemake.input[method]) for method in params.methods}
    importance = {method: neuronal_importance(frame) for method, frame in curves.items()}
    table = average_importance(importance)
    write_frame(output.csv, output.md, table, params.title)
    settings = BootstrapSettings(**params.intervals)
    cells = importance_intervals(list(curves.values()), settings)
    marked = "interval excludes 0 (the mean source's importance)"
    note = interval_note(cells, settings, marked=marked)
    figure = importance_heatmap(table, params.task_types, params.title, cells, note)
    save_figure(figure, output.png, output.pdf)
