"""Rule neuron_training: train only one task's neurons (and, in several draws of each
kind, as many random neurons drawn over all layers, paper B's baseline, and as many per
layer, ours) and score every task of its kind (paper B, §4.2: B-T2, B-F5c/d), every
training run (paper_b.runs) of each in turn, each from a freshly loaded model."""

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import fresh_models
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b import relevance
from skillneurons.paper_b.neuron_training import neuron_training_results
from skillneurons.paper_b.scorers import task_scorers

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    task = snakemake.wildcards.task
    gpus = snakemake.resources.get("gpu", 0)
    for index, run, loaded in fresh_models(params.model, snakemake.threads, gpus, params.runs):
        seed = params.seeds[index]
        scorers = task_scorers(loaded, inputs.splits, params.scorers)
        if params.identify_on == "multitask":  # run r's multi-task model's neurons
            table = relevance.read_multitask_neurons(inputs.neurons[index], task)
        else:
            table = relevance.read_task_neurons(inputs.neurons[0])[0]
        per_layer = params.scope == "per_layer"  # paper_b.scope
        results, metrics = neuron_training_results(
            scorers, task, relevance.task_neurons(table, params.fraction, per_layer),
            width=relevance.layer_width(table),
            training=TrainingSettings.from_config(params.training, seed),
            random_draws=params.random_draws, seed=params.draw_seeds[index],
            run=run,
            output_only=params.parameters == "output_only",  # paper_b.parameters
        )  # fmt: skip
        identity = {"model": snakemake.wildcards.model, "task": task, "seed": seed}
        write_frame_parquet(
            output.results[index], results, {**identity, "identify_on": params.identify_on}
        )
        write_json(output.metrics[index], {**identity, **metrics})
