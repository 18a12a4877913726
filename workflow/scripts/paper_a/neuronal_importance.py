"""Rule neuronal_importance: the neuronal importance of every source task to every
evaluation task (paper A, §4.3, Figure 6) as a table, its per-evaluation-task summary
and the heatmap."""

from skillneurons.infra.runlog import job_log
from skillneurons.neurons.perturbation.curve_table import read_curves
from skillneurons.paper_a.importance import importance_summary, neuronal_importance
from skillneurons.reporting.figures import importance_heatmap, save_figure
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, output = snakemake.params, snakemake.output
    curves = read_curves(snakemake.input)
    importance = neuronal_importance(curves)
    summary = importance_summary(importance, curves, params.task_types)
    write_frame(output.csv, output.md, importance, params.title)
    write_frame(output.summary_csv, output.summary_md, summary, params.summary_title)
    save_figure(
        importance_heatmap(importance, params.task_types, params.title), output.png, output.pdf
    )
