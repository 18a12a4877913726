"""Rule deactivation: fine-tune one model on the mixture of the tasks of one kind
(classification or generation), find each task's neurons on it, and score every task
with each task's neurons deactivated and with random sets of its count, drawn over all
layers (paper B's) and layer-matched (ours) (§4.1: B-T1, B-F5a/b), every
training run (paper_b.runs) of it in turn, each from a freshly loaded model."""

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import fresh_models
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b import relevance
from skillneurons.paper_b.deactivation import deactivation_results, train_multitask
from skillneurons.paper_b.runs import with_run
from skillneurons.paper_b.scorers import task_scorers

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards) as log:
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    attribution = {  # paper_b.relevance, attribution_samples and batch_size
        "definition": params.relevance,
        "attribution_samples": params.attribution_samples,
        "batch_size": params.batch_size,
    }
    gpus = snakemake.resources.get("gpu", 0)
    for index, run, loaded in fresh_models(params.model, snakemake.threads, gpus, params.runs):
        seed = params.seeds[index]
        scorers = task_scorers(loaded, inputs.splits, params.scorers)
        training = TrainingSettings.from_config(params.training, seed)
        metrics = train_multitask(loaded, scorers, training, params.training["freeze_embeddings"])
        log.info("mean dev %s %.4f after %d steps", metrics["metric"], metrics["mean_dev_score"],
                 metrics["steps"])  # fmt: skip
        tables = relevance.relevance_tables(
            {task: scorer.head for task, scorer in scorers.items()},
            {task: scorer.train for task, scorer in scorers.items()},
            **attribution, seed=seed,
        )  # fmt: skip
        identity = {"model": snakemake.wildcards.model, "identified_on": "multitask model"}
        identity |= {"run": run, "seed": seed}
        relevance.write_multitask_neurons(
            output.neurons[index], tables, {**identity, **attribution}
        )
        if inputs.get("base_neurons"):  # paper_b.identify_on.deactivation: base
            tables = relevance.read_task_neuron_tables(list(scorers), inputs.base_neurons)
        per_layer = params.scope == "per_layer"  # paper_b.scope
        neurons, width = relevance.neurons_of_tasks(
            tables, fraction=params.fraction, per_layer=per_layer
        )
        results = deactivation_results(
            scorers, neurons, width=width, random_draws=params.random_draws,
            seed=params.draw_seeds[index], by=params.by,
        )  # fmt: skip
        metadata = {**identity, "identify_on": params.identify_on}
        write_frame_parquet(output.results[index], with_run(results, run), metadata)
        write_json(output.metrics[index], {**identity, **metrics})
