"""Rule subtask_split: a balanced binary subtask of a multi-class split (paper A, §3.2)."""

from skillneurons.data.splits import read_split, subtask_split, write_split
from skillneurons.data.tasks import task_spec
from skillneurons.infra.runlog import job_log

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    wildcards, params = snakemake.wildcards, snakemake.params
    subtask = task_spec(wildcards.task, params.definition).subtask(wildcards.subtask)
    frame, metadata = read_split(snakemake.input[0])
    metadata.update(
        subtask=subtask.name,
        parent_label_names=metadata["label_names"],
        label_names=list(subtask.label_names),
    )
    write_split(snakemake.output[0], subtask_split(frame, subtask, seed=params.seed), metadata)
