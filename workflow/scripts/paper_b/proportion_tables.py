"""Rule proportion_tables: Figures and tables B-F2 (a group's training tasks trained
together) and B-F6 (one model per task): in-domain and out-of-domain scores against the
share of task neurons trained (paper B, §5.1, appendix A.5), each point the mean over the
training runs (paper_b.runs), with the findings engine's interval over the training runs >
the test samples, as the share claims resample
(skillneurons.paper_b.generalization_report.share_intervals)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.generalization import KEYS, with_single_task_groups
from skillneurons.paper_b.generalization_report import (
    PROPORTION_SERIES,
    proportion_table,
    role_series,
    share_intervals,
)
from skillneurons.paper_b.neuron_effects import reference_scores
from skillneurons.paper_b.runs import run_means
from skillneurons.reporting.figures import proportion_figure, save_figure
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.tables import write_frame


def frames(paths) -> pd.DataFrame:
    return pd.concat(map(pd.read_parquet, paths), ignore_index=True)


def with_series(results: pd.DataFrame, panel) -> pd.DataFrame:
    """``results`` with each row's line (``series``) and panel name (``panel``: a
    function of the trained group and task)."""
    parts = [
        rows.assign(series=role_series(rows, group), panel=panel(group, trained))
        for (group, trained), rows in results.groupby(["group", "trained"], sort=False)
    ]
    return pd.concat(parts, ignore_index=True)


with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, output, params = snakemake.input, snakemake.output, snakemake.params
    zero_shot = {}
    if "zero_shot" in inputs.keys():
        zero_shot |= reference_scores(frames(inputs.zero_shot), "zero_shot")
    if "generation_zero_shot" in inputs.keys():
        zero_shot |= reference_scores(frames(inputs.generation_zero_shot), "zero_shot")
    every_run = frames(inputs.group)
    single_runs = [frames(inputs.single)] if inputs.single else []
    together = run_means(every_run, KEYS)
    group = proportion_table(together, zero_shot)
    sweeps = with_single_task_groups(together, [run_means(f, KEYS) for f in single_runs])
    single = proportion_table(sweeps, zero_shot)
    write_frame(output.group_csv, output.group_md, group, params.group_title, ".1f")
    write_frame(output.single_csv, output.single_md, single, params.single_title, ".1f")
    settings = BootstrapSettings(**params.intervals)
    panels = {f"{name} tasks together": rows for name, rows in group.groupby("group", sort=False)}
    named = with_series(every_run, lambda group, _: f"{group} tasks together")
    figure = proportion_figure(
        panels, params.group_title, share_intervals(named, "panel", settings), PROPORTION_SERIES
    )
    save_figure(figure, output.group_png, output.group_pdf)
    panels = {f"trained on {task}": rows for task, rows in single.groupby("trained", sort=False)}
    every_sweep = with_single_task_groups(every_run, single_runs)
    named = with_series(every_sweep, lambda _, trained: f"trained on {trained}")
    figure = proportion_figure(
        panels, params.single_title, share_intervals(named, "panel", settings), PROPORTION_SERIES
    )
    save_figure(figure, output.single_png, output.single_pdf)
