"""Rules figure_task_specificity and figure_generation_specificity: Figure B-F5 (paper B,
appendix A.4), for the classification tasks (panels a and c) or the generation tasks
(b and d, ROUGE-L): the drop of every task's score when each task's neurons are
deactivated in the multi-task model, its change over zero-shot when each task's
neurons are trained, and, as the controls (ours), when random neurons are trained on
each task (mean over the random draws): drawn over all layers, as paper B draws its
random neurons, and layer-matched; trainings are the mean over their runs
(paper_b.runs). Each cell carries the findings engine's interval over the training
runs (> random draws) > the evaluated task's test samples
(paper_b.neuron_effects.effect_intervals)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.evaluation import KEYS
from skillneurons.paper_b.neuron_effects import effect_intervals, effect_matrix, reference_scores
from skillneurons.paper_b.random_neurons import RANDOM, RANDOM_CONDITIONS, RANDOM_LAYER_MATCHED
from skillneurons.paper_b.runs import run_means
from skillneurons.reporting.figures import effect_heatmaps, save_figure
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.intervals import interval_note
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, output, params = snakemake.input, snakemake.output, snakemake.params
    settings = BootstrapSettings(**params.intervals)
    deactivation = pd.concat(map(pd.read_parquet, inputs.deactivation), ignore_index=True)
    training = pd.concat(map(pd.read_parquet, inputs.training), ignore_index=True)
    zero_shot_rows = pd.read_parquet(inputs.zero_shot)
    original_rows = deactivation[deactivation["condition"] == "original"]
    cells = [
        effect_intervals(deactivation, original_rows, settings, sign=-1.0),
        effect_intervals(training, zero_shot_rows, settings),
        *(
            effect_intervals(training, zero_shot_rows, settings, condition=condition)
            for condition in RANDOM_CONDITIONS
        ),
    ]
    deactivation, training = run_means(deactivation, KEYS), run_means(training, KEYS)
    zero_shot = reference_scores(zero_shot_rows, "zero_shot")
    (off, on), measure = params.panels, params.measure
    matrices = {
        f"({off}) {measure}drop when the row's neurons are deactivated": effect_matrix(
            deactivation, reference_scores(deactivation, "original"), sign=-1.0
        ),
        f"({on}) {measure}gain over zero-shot when the row's neurons are trained": (
            effect_matrix(training, zero_shot)
        ),
        f"({on}, control) {measure}gain when random neurons (over all layers) are trained "
        "instead": effect_matrix(training, zero_shot, condition=RANDOM),
        f"({on}, layer-matched control) {measure}gain when layer-matched random neurons are "
        "trained instead": effect_matrix(training, zero_shot, condition=RANDOM_LAYER_MATCHED),
    }
    files = [
        (output.deactivation_csv, output.deactivation_md, off),
        (output.training_csv, output.training_md, on),
        (output.random_csv, output.random_md, on),
        (output.layer_matched_csv, output.layer_matched_md, on),
    ]
    for (csv, md, panel), (title, matrix) in zip(files, matrices.items(), strict=True):
        write_frame(csv, md, matrix, f"B-F5{panel}: {title}", ".1f")
    intervals = dict(zip(matrices, cells, strict=True))
    note = interval_note(pd.concat(cells), settings, marked="interval excludes 0")
    figure = effect_heatmaps(matrices, params.task_types, params.title, intervals, note)
    save_figure(figure, output.png, output.pdf)
