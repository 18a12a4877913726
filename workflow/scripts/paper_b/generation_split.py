"""Rule generation_split: a generation task's train, dev and test frames (``source``,
``target``) from its synthetic twin, the Hub or a local copy (paper B, Table 3), a
downloaded one cut to paper_b.generation.max_samples."""

from skillneurons.data.generation_splits import (
    cap_splits,
    generation_spec,
    generation_splits,
    load_generation_source,
)
from skillneurons.infra.io import write_frame_parquet
from skillneurons.infra.runlog import job_log

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    spec = generation_spec(snakemake.wildcards.task)
    frame = load_generation_source(
        spec, seed=params.seed, synthetic_sizes=params.sizes, revision=params.revision,
        cache_dir=params.cache_dir, local_copy=params.local_copy,
    )  # fmt: skip
    splits = generation_splits(frame, dev_fraction=params.dev_fraction, seed=params.seed)
    if spec.source != "synthetic":  # twins have their sizes
        splits = cap_splits(splits, params.max_samples, params.seed)
    metadata = {"task": spec.name, "type": spec.type, "source": spec.source}
    for path, name in zip(snakemake.output, ("train", "dev", "test"), strict=True):
        write_frame_parquet(path, splits[name], {**metadata, "split": name})
