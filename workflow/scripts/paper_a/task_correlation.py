"""Rule task_correlation: Spearman correlation of neuron predictivity orders between
every pair of tasks, per layer (paper A, appendix E, Figure 14) and averaged over
layers (§4.3, Figure 5): tables and heatmaps."""

from skillneurons.infra.runlog import job_log
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.importance import correlation_table, mean_correlation
from skillneurons.reporting.figures import (
    correlation_heatmap,
    layer_correlation_figure,
    save_figure,
)
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, output = snakemake.params, snakemake.output
    scores = {
        task: Ranking.from_parquet(path).scores()
        for task, path in zip(params.tasks, snakemake.input, strict=True)
    }
    table = correlation_table(scores)
    write_frame(output.layers_csv, output.layers_md, table, params.layers_title)
    write_frame(output.mean_csv, output.mean_md, mean_correlation(table), params.mean_title)
    types = params.task_types
    save_figure(
        correlation_heatmap(table, types, params.mean_title), output.mean_png, output.mean_pdf
    )
    save_figure(
        layer_correlation_figure(table, types, params.layers_title),
        output.layers_png,
        output.layers_pdf,
    )
