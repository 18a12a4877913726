"""Rules download / synthesize / import_task_file: a task's raw examples as Parquet."""

from skillneurons.runlog import job_log
from skillneurons.sources import load_source, write_raw
from skillneurons.tasks import task_spec

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = dict(snakemake.params.items())
    spec = task_spec(snakemake.wildcards.task, params.pop("definition"))
    write_raw(snakemake.output[0], load_source(spec, **params), spec)
