"""Rule tuning_methods_importance: neuronal importance of the prompt-tuning orders for
adapter and BitFit models, averaged over both methods (paper A, §5, Figure 8)."""

from skillneurons.infra.runlog import job_log
from skillneurons.neurons.perturbation.curve_table import read_curves
from skillneurons.paper_a.importance import neuronal_importance
from skillneurons.paper_a.tuning_methods import average_importance
from skillneurons.reporting.figures import importance_heatmap, save_figure
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, output = snakemake.params, snakemake.output
    importance = {
        method: neuronal_importance(read_curves(snakemake.input[method]))
        for method in params.methods
    }
    table = average_importance(importance)
    write_frame(output.csv, output.md, table, params.title)
    save_figure(importance_heatmap(table, params.task_types, params.title), output.png, output.pdf)
