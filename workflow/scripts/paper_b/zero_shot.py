"""Rule zero_shot: every task's test accuracy on the untrained model, with its
verbalizer and instruction (paper B, Table 2's "Zero-shot")."""

from skillneurons.infra.io import write_frame_parquet
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_on_device
from skillneurons.paper_b.classifiers import encode_tasks, task_classifiers
from skillneurons.paper_b.neuron_training import zero_shot_results

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    tests = encode_tasks(
        loaded, snakemake.input.tests, params.tasks, params.instructions, params.max_length,
        splits=["test"],
    )  # fmt: skip
    heads = task_classifiers(loaded, params.label_words)
    results = zero_shot_results(heads, {t: s["test"] for t, s in tests.items()}, params.batch_size)
    write_frame_parquet(snakemake.output[0], results, {"model": snakemake.wildcards.model})
