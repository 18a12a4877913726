"""Rule split: train/dev/test splits of a task (paper A, appendix A)."""

from skillneurons.data.sources import read_raw
from skillneurons.data.splits import make_splits, split_metadata, write_split
from skillneurons.data.tasks import SPLITS, task_spec
from skillneurons.infra.runlog import job_log

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    spec = task_spec(snakemake.wildcards.task, params.definition)
    splits = make_splits(
        read_raw(snakemake.input[0]),
        spec,
        seed=params.seed,
        dev_fraction=params.dev_fraction,
        test_fraction=params.test_fraction,
    )
    for split, path in zip(SPLITS, snakemake.output, strict=True):
        write_split(path, splits[split], split_metadata(spec, split, params.seed))
