"""Rule neuron_training: train only one task's neurons (and, in several draws, as many
random neurons per layer) and score every task of its kind (paper B, §4.2: B-T2,
B-F5c/d), one training run (paper_b.runs) of each."""

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_on_device
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b import relevance
from skillneurons.paper_b.neuron_training import neuron_training_results
from skillneurons.paper_b.scorers import task_scorers

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    task = snakemake.wildcards.task
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    scorers = task_scorers(loaded, inputs.splits, params.scorers)
    if params.identify_on == "multitask":
        table = relevance.read_multitask_neurons(inputs.neurons, task)
    else:
        table = relevance.read_task_neurons(inputs.neurons)[0]
    per_layer = params.scope == "per_layer"  # paper_b.scope
    results, metrics = neuron_training_results(
        scorers, task, relevance.task_neurons(table, params.fraction, per_layer),
        width=relevance.layer_width(table),
        training=TrainingSettings.from_config(params.training, params.seed),
        random_draws=params.random_draws, seed=params.draw_seed,
        run=int(snakemake.wildcards.run),
        output_only=params.parameters == "output_only",  # paper_b.parameters
    )  # fmt: skip
    identity = {"model": snakemake.wildcards.model, "task": task, "seed": params.seed}
    write_frame_parquet(output.results, results, {**identity, "identify_on": params.identify_on})
    write_json(output.metrics, {**identity, **metrics})
