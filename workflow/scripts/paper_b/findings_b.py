"""Rule findings_b: paper B's claims of §4 and the A-vs-B claims on this run, each an
effect with its bootstrap confidence interval and verdict (skillneurons.paper_b.findings)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_b.findings import findings_table
from skillneurons.paper_b.relevance import read_task_neurons, relevance_matrix
from skillneurons.reporting.curves import task_curves
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params = snakemake.input, snakemake.params
    tasks = params.tasks
    table = findings_table(
        deactivation=pd.read_parquet(inputs.deactivation),
        training=pd.concat(map(pd.read_parquet, inputs.training), ignore_index=True),
        zero_shot=pd.read_parquet(inputs.zero_shot),
        scores={
            t: Ranking.from_parquet(p).scores()
            for t, p in zip(tasks, inputs.rankings, strict=True)
        },
        relevances={
            t: relevance_matrix(read_task_neurons(p)[0])
            for t, p in zip(params.comparison_tasks, inputs.relevances, strict=True)
        },
        curves={
            t: task_curves(pd.read_parquet(p))
            for t, p in zip(params.comparison_tasks, inputs.curves, strict=True)
        },
        fraction=params.fraction,
        settings=BootstrapSettings(**params.bootstrap),
    )
    title = "Findings: paper B's claims (§4, A.4) and paper A vs B (95% bootstrap intervals)"
    write_frame(snakemake.output.csv, snakemake.output.md, table, title)
