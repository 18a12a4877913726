"""Rules figure_task_specificity and figure_generation_specificity: Figure B-F5 (paper B,
appendix A.4), for the classification tasks (panels a and c) or the generation tasks
(b and d, ROUGE-L): the drop of every task's score when each task's neurons are
deactivated in the multi-task model, its change over zero-shot when each task's
neurons are trained, and, as the control (ours), when layer-matched random neurons are
trained on each task (mean over the random draws); trainings are the mean over their
runs (paper_b.runs)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.evaluation import KEYS
from skillneurons.paper_b.runs import run_means
from skillneurons.paper_b.tables import effect_matrix, reference_scores
from skillneurons.reporting.figures import effect_heatmaps, save_figure
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, output, params = snakemake.input, snakemake.output, snakemake.params
    deactivation = pd.concat(map(pd.read_parquet, inputs.deactivation), ignore_index=True)
    deactivation = run_means(deactivation, KEYS)
    training = pd.concat(map(pd.read_parquet, inputs.training), ignore_index=True)
    training = run_means(training, KEYS)
    zero_shot = reference_scores(pd.read_parquet(inputs.zero_shot), "zero_shot")
    (off, on), measure = params.panels, params.measure
    matrices = {
        f"({off}) {measure}drop when the row's neurons are deactivated": effect_matrix(
            deactivation, reference_scores(deactivation, "original"), sign=-1.0
        ),
        f"({on}) {measure}gain over zero-shot when the row's neurons are trained": (
            effect_matrix(training, zero_shot)
        ),
        f"({on}, control) {measure}gain when random neurons are trained instead": (
            effect_matrix(training, zero_shot, condition="random")
        ),
    }
    (off_title, drop), (on_title, gain), (r_title, random) = matrices.items()
    write_frame(
        output.deactivation_csv, output.deactivation_md, drop, f"B-F5{off}: {off_title}", ".1f"
    )
    write_frame(output.training_csv, output.training_md, gain, f"B-F5{on}: {on_title}", ".1f")
    write_frame(output.random_csv, output.random_md, random, f"B-F5{on}: {r_title}", ".1f")
    figure = effect_heatmaps(matrices, params.task_types, params.title)
    save_figure(figure, output.png, output.pdf)
