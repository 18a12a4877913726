"""Rule controlled_overlap: at one trained proportion q, train the training tasks on the
natural set of their neurons and on sets with a controlled share of test-task neurons,
and evaluate both groups (paper B, appendix A.7: B-T9)."""

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_on_device
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b.classifiers import encode_tasks, task_classifiers
from skillneurons.paper_b.generalization import controlled_overlap
from skillneurons.paper_b.relevance import read_task_neuron_tables

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    tasks = [*params.train_tasks, *params.test_tasks]
    encoded = encode_tasks(loaded, inputs.splits, tasks, params.instructions, params.max_length)
    tables = read_task_neuron_tables(tasks, inputs.neurons)
    results, metrics = controlled_overlap(
        task_classifiers(loaded, params.label_words), encoded, tables, params.train_tasks,
        params.test_tasks, params.proportion, params.shares,
        TrainingSettings.from_config(params.training, params.seed), seed=params.seed,
        batch_size=params.batch_size, output_only=params.output_only,
        rate_share=params.rate_share,
    )  # fmt: skip
    identity = {"model": snakemake.wildcards.model, "proportion": params.proportion}
    write_frame_parquet(output.results, results, identity)
    write_json(output.metrics, {**identity, "trainings": metrics})
