"""Rule task_neurons: a task's neurons by relevance on the base model (paper B, §3, Eqs.
2-3), classification or generation, read by B-T1, B-T2, part 2, part 3 and AB."""

from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_on_device
from skillneurons.paper_b.relevance import relevance_tables, write_task_neurons
from skillneurons.paper_b.scorers import task_scorers

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, task = snakemake.params, snakemake.wildcards.task
    attribution = {  # paper_b.relevance, attribution_samples and batch_size
        "definition": params.relevance,
        "attribution_samples": params.attribution_samples,
        "batch_size": params.batch_size,
    }
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    scorer = task_scorers(loaded, snakemake.input.splits, params.scorer)[task]
    table = relevance_tables(
        {task: scorer.head}, {task: scorer.train}, **attribution, seed=params.seed
    )[task]
    identity = {"model": snakemake.wildcards.model, "task": task, "identified_on": "base model"}
    write_task_neurons(snakemake.output[0], table, {**identity, **attribution})
