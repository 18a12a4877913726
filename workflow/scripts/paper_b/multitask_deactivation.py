"""Rule multitask_deactivation: fine-tune one model on the mixture of the tasks, find each
task's neurons on it, and evaluate every task with each task's (and random) neurons
deactivated (paper B, §4.1: B-T1, B-F5a)."""

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_on_device
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b.classifiers import encode_tasks
from skillneurons.paper_b.multitask import deactivation_results, train_multitask
from skillneurons.paper_b.relevance import deactivation_neurons, relevance_tables

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards) as log:
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    encoded = encode_tasks(
        loaded, inputs.splits, params.tasks, params.instructions, params.max_length
    )
    training = TrainingSettings.from_config(params.training, params.seed)
    heads, metrics = train_multitask(
        loaded, encoded, params.label_words, training, params.training["freeze_embeddings"]
    )
    log.info(
        "mean dev accuracy %.4f after %d steps", metrics["mean_dev_accuracy"], metrics["steps"]
    )
    tables = relevance_tables(
        heads, {task: splits["train"] for task, splits in encoded.items()},
        **params.relevance, seed=params.seed,
    )  # fmt: skip
    identity = {"model": snakemake.wildcards.model, "identified_on": "multitask model"}
    neurons, width = deactivation_neurons(
        tables, output.neurons, identity, params.relevance, params.choice,
        inputs.get("base_neurons") or (),
    )  # fmt: skip
    results = deactivation_results(
        heads, encoded, neurons, width=width,
        random_draws=params.random_draws, seed=params.seed,
        batch_size=params.relevance["batch_size"], by=params.by,
    )  # fmt: skip
    write_frame_parquet(output.results, results, {**identity, "identify_on": params.identify_on})
    write_json(output.metrics, {**identity, **metrics})
