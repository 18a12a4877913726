"""Rule controlled_overlap: for a pair of groups, at one trained proportion q, train the
training tasks on the natural set of their neurons and on sets with a controlled share
of the test tasks' neurons, and score both (paper B, appendix A.7: B-T9..B-T11), every
training run (paper_b.runs) of it in turn, each from a freshly loaded model: its seed
draws the sets and orders the training."""

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import fresh_models
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b.generalization import controlled_overlap
from skillneurons.paper_b.relevance import read_task_neuron_tables
from skillneurons.paper_b.runs import with_run
from skillneurons.paper_b.scorers import task_scorers

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    pair = snakemake.wildcards.pair
    gpus = snakemake.resources.get("gpu", 0)
    for index, run, loaded in fresh_models(params.model, snakemake.threads, gpus, params.runs):
        seed = params.seeds[index]
        tasks = [*params.train_tasks, *params.test_tasks]
        results, metrics = controlled_overlap(
            task_scorers(loaded, inputs.splits, params.tasks),
            read_task_neuron_tables(tasks, inputs.neurons), tuple(pair.split("-")),
            params.train_tasks, params.test_tasks, params.proportion, params.shares,
            TrainingSettings.from_config(params.training, seed), seed=seed,
            output_only=params.output_only, rate_share=params.rate_share,
        )  # fmt: skip
        identity = {
            "model": snakemake.wildcards.model,
            "pair": pair,
            "proportion": params.proportion,
        }
        identity |= {"run": run, "seed": seed}
        write_frame_parquet(output.results[index], with_run(results, run), identity)
        write_json(output.metrics[index], {**identity, "trainings": metrics})
