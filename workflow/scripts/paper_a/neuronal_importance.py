"""Rule neuronal_importance: the neuronal importance of every source task to every
evaluation task (paper A, §4.3, Figure 6) as a table, its per-evaluation-task summary
and the heatmap, each cell with the findings engine's interval over trials, random
orders and test samples (skillneurons.reporting.intervals)."""

from skillneurons.infra.runlog import job_log
from skillneurons.neurons.perturbation.curve_table import read_curves
from skillneurons.paper_a.importance import importance_summary, neuronal_importance
from skillneurons.reporting.figures import importance_heatmap, save_figure
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.intervals import importance_intervals, interval_note
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, output = snakemake.params, snakemake.output
    curves = read_curves(snakemake.input)
    importance = neuronal_importance(curves)
    summary = importance_summary(importance, curves, params.task_types)
    write_frame(output.csv, output.md, importance, params.title)
    write_frame(output.summary_csv, output.summary_md, summary, params.summary_title)
    settings = BootstrapSettings(**params.intervals)
    cells = importance_intervals([curves], settings)
    marked = "interval excludes 0 (the mean source's importance)"
    note = interval_note(cells, settings, marked=marked)
    figure = importance_heatmap(importance, params.task_types, params.title, cells, note)
    save_figure(figure, output.png, output.pdf)
