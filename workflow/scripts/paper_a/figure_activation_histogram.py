"""Rule figure_activation_histogram: Figure A-F1, the top skill neuron's activation on
dev samples by label, with its baseline (paper A, Figure 1)."""

from skillneurons.infra.io import read_arrays
from skillneurons.infra.runlog import job_log
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.skill_neurons import cell_name, neuron_values
from skillneurons.reporting.figures import activation_histogram, save_figure

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs = snakemake.input
    cell = Ranking.from_parquet(inputs.ranking).top_cell()
    values = neuron_values(inputs.dev_dump, [cell]).rename(columns={cell_name(cell): "activation"})
    baseline = float(read_arrays(inputs.baseline)["prompt"][cell])
    title = (
        f"A-F1: {snakemake.params.task}, top neuron (layer {cell[0]}, neuron {cell[2]}, "
        f"prompt token {cell[1] + 1}), dev, trial 0"
    )
    figure = activation_histogram(values, baseline, snakemake.params.label_names, title)
    save_figure(figure, snakemake.output.png, snakemake.output.pdf)
