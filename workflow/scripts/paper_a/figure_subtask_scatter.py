"""Rule figure_subtask_scatter: Figure A-F2, the top neurons of a three-way task's two
binary subtasks, one point per dev sample coloured by its label (paper A, Figure 2)."""

from skillneurons.infra.io import read_arrays
from skillneurons.infra.runlog import job_log
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.skill_neurons import cell_name, neuron_values
from skillneurons.reporting.figures import save_figure, subtask_scatter

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params = snakemake.input, snakemake.params
    ranking = Ranking.from_parquet(inputs.ranking)
    cells = [ranking.top_cell(subtask) for subtask in params.subtasks]
    values = neuron_values(inputs.dev_dump, cells)
    values = values.rename(columns={cell_name(cells[0]): "x", cell_name(cells[1]): "y"})
    baseline = read_arrays(inputs.baseline)["prompt"]
    axis_labels = tuple(
        f"{subtask}: layer {c[0]}, neuron {c[2]}, token {c[1] + 1}"
        for subtask, c in zip(params.subtasks, cells, strict=True)
    )
    figure = subtask_scatter(
        values,
        (float(baseline[cells[0]]), float(baseline[cells[1]])),
        params.label_names,
        axis_labels,
        f"A-F2: {params.task}, top neurons of its subtasks, dev, trial 0",
    )
    save_figure(figure, snakemake.output.png, snakemake.output.pdf)
