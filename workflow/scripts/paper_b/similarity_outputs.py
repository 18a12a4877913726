"""Rule similarity_outputs: Figure and table B-F3 (the similarity of the training task's
and each test task's neuron parameters per layer, mean over the models M_i: each test
group against all the models and, with two groups, against its own group's) and Table
B-T4 (its correlation with the models' out-of-domain accuracy) (paper B, §5.2); every
value the mean over the training runs (paper_b.runs). B-F3's lines carry bands: the
findings engine's interval over the training runs > the models M_i
(paper_b.similarity_report.layer_similarity_intervals)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.runs import run_means
from skillneurons.paper_b.similarity_definitions import DEFINITIONS
from skillneurons.paper_b.similarity_report import (
    correlation_table,
    layer_similarity_intervals,
    layer_similarity_table,
    similarity_points,
)
from skillneurons.reporting.figures import save_figure, similarity_layers_figure
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.intervals import interval_note
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, output, params = snakemake.input, snakemake.output, snakemake.params
    settings = BootstrapSettings(**params.intervals)
    runs = pd.concat(map(pd.read_parquet, inputs.similarities), ignore_index=True)
    similarities = run_means(runs, ["layer", "test_task", "definition", "trained"])
    scores = pd.concat(map(pd.read_parquet, inputs.scores), ignore_index=True)
    scores = run_means(scores, ["eval_task", "metric", "trained"])
    groups = {name: tuple(tasks) for name, tasks in params.groups.items()}
    layers = layer_similarity_table(similarities, groups)
    write_frame(output.layers_csv, output.layers_md, layers, params.layers_title)
    definitions = {name: DEFINITIONS[name] for name in dict.fromkeys(similarities["definition"])}
    bands = layer_similarity_intervals(runs, groups, settings)
    note = interval_note(bands, settings, "bands")
    figure = similarity_layers_figure(layers, definitions, params.layers_title, bands, note)
    save_figure(figure, output.png, output.pdf)
    points = similarity_points(similarities, scores, params.definition)
    write_frame(output.csv, output.md, correlation_table(points), params.title)
    write_frame(output.points_csv, output.points_md, points, params.points_title)
