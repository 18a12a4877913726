"""Rule findings_b: paper B's claims of §4-§6 and the A-vs-B claims on this run, each an
effect with its bootstrap confidence interval and verdict (skillneurons.paper_b.findings,
from each experiment's report module)."""

import pandas as pd

from skillneurons.infra.io import read_json
from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.continual import read_order_results
from skillneurons.paper_b.continual_report import continual_claims
from skillneurons.paper_b.findings import findings_table, generalization_claims
from skillneurons.paper_b.generalization import with_single_task_groups
from skillneurons.paper_b.relevance import read_task_neuron_tables
from skillneurons.paper_b.similarity_report import profile_claims, similarity_points
from skillneurons.reporting.curves import task_curves
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.tables import write_frame


def frames(paths) -> pd.DataFrame:
    return pd.concat(map(pd.read_parquet, paths), ignore_index=True)


with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params = snakemake.input, snakemake.params
    settings = BootstrapSettings(
        resamples=params.resamples,
        alpha=params.alpha,
        seed=params.seed,
        min_runs=params.min_runs,
    )
    more = []
    if params.generalization:
        group = params.generalization
        sweeps = frames(inputs.group)
        similarities = frames(inputs.similarities)
        points = similarity_points(
            similarities, frames(inputs.similarity_scores), group["definition"]
        )
        more = generalization_claims(
            results=pd.concat(
                [
                    sweeps,
                    with_single_task_groups(sweeps, map(pd.read_parquet, inputs.single)),
                    *map(pd.read_parquet, inputs.controlled),
                ],
                ignore_index=True,
            ),  # fmt: skip
            groups={
                name: (
                    read_task_neuron_tables(train, inputs[f"{name}_train"]),
                    read_task_neuron_tables(test, inputs[f"{name}_test"]),
                )
                for name, (train, test) in params.overlap_groups.items()
            },
            overlap_proportions=group["overlap_proportions"],
            points=points,
            settings=settings,
        )
        more += profile_claims(similarities, params.overlap_groups, group["definition"], settings)
    if params.continual:
        results = read_order_results(inputs.continual_trained, params.continual)
        more += continual_claims(results, frames(inputs.continual_per_task), settings)
    table = findings_table(
        deactivation=frames(inputs.deactivation),
        training=frames(inputs.training),
        zero_shot=pd.read_parquet(inputs.zero_shot),
        agreements={
            t: read_json(p)["trials"] for t, p in zip(params.tasks, inputs.agreements, strict=True)
        },
        curves={
            t: task_curves(pd.read_parquet(p))
            for t, p in zip(params.tasks, inputs.curves, strict=True)
        },
        settings=settings,
        generation=(
            {
                "deactivation": frames(inputs.generation_deactivation),
                "training": frames([*inputs.generation_training, inputs.generation_zero_shot]),
            }
            if "generation_training" in inputs.keys()
            else None
        ),
        more=more,
        primary=params.primary,
    )
    write_frame(snakemake.output.csv, snakemake.output.md, table, params.title)
