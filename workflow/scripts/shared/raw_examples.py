"""Rules download / synthesize / import_task_file: a task's raw examples as Parquet."""

from skillneurons.data.sources import load_source, write_raw
from skillneurons.data.tasks import task_spec
from skillneurons.infra.runlog import job_log

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = dict(snakemake.params.items())
    spec = task_spec(snakemake.wildcards.task, params.pop("definition"))
    write_raw(snakemake.output[0], load_source(spec, **params), spec)
