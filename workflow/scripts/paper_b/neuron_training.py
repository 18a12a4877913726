"""Rule neuron_training: find one task's neurons on the base model, train only them (and,
in several draws, as many random neurons per layer) and evaluate every task (paper B,
§4.2: B-T2, B-F5c)."""

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_on_device
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b import relevance
from skillneurons.paper_b.classifiers import encode_tasks, task_classifiers
from skillneurons.paper_b.neuron_training import neuron_training_results

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    task = snakemake.wildcards.task
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    encoded = encode_tasks(
        loaded, inputs.splits, params.tasks, params.instructions, params.max_length
    )
    heads = task_classifiers(loaded, params.label_words)
    table = relevance.relevance_tables(
        {task: heads[task]}, {task: encoded[task]["train"]}, **params.relevance,
        seed=params.seed,
    )[task]  # fmt: skip
    identity = {"model": snakemake.wildcards.model, "task": task}
    relevance.write_task_neurons(
        output.neurons, table, {**identity, "identified_on": "base model", **params.relevance}
    )
    if inputs.get("multitask_neurons"):  # paper_b.identify_on.training: multitask
        table = relevance.read_task_neurons(inputs.multitask_neurons)[0]
    results, metrics = neuron_training_results(
        heads, task, encoded, relevance.task_neurons(table, **params.choice),
        width=relevance.layer_width(table),
        training=TrainingSettings.from_config(params.training, params.seed),
        random_draws=params.random_draws, seed=params.seed,
        batch_size=params.relevance["batch_size"], output_only=params.output_only,
    )  # fmt: skip
    write_frame_parquet(output.results, results, {**identity, "identify_on": params.identify_on})
    write_json(output.metrics, {**identity, **metrics})
