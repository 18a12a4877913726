"""Rule proportion_training: from the base model, train only the top-p share of a
group's task neurons, for every p, and score both groups' tasks (paper B, §5.1: B-F2
with the group's training tasks together, wildcard trained = group; A.5: B-F6 with one
task), every training run (paper_b.runs) of it in turn, each from a freshly loaded
model."""

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import fresh_models
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b.generalization import proportion_sweep
from skillneurons.paper_b.relevance import read_task_neuron_tables
from skillneurons.paper_b.runs import with_run
from skillneurons.paper_b.scorers import task_scorers

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    # the group of the {family} (abbreviated: cls, gen), as §5's files name it
    group, trained = snakemake.wildcards.family, snakemake.wildcards.trained
    gpus = snakemake.resources.get("gpu", 0)
    for index, run, loaded in fresh_models(params.model, snakemake.threads, gpus, params.runs):
        seed = params.seeds[index]
        results, metrics = proportion_sweep(
            task_scorers(loaded, inputs.splits, params.tasks),
            read_task_neuron_tables(params.train_tasks, inputs.neurons), group,
            params.train_tasks, params.test_groups, params.proportions,
            TrainingSettings.from_config(params.training, seed),
            single=None if trained == "group" else trained, output_only=params.output_only,
            rate_share=params.rate_share,
        )  # fmt: skip
        identity = {"model": snakemake.wildcards.model, "group": group, "trained": trained}
        identity |= {"run": run, "seed": seed}
        write_frame_parquet(output.results[index], with_run(results, run), identity)
        write_json(output.metrics[index], {**identity, "trainings": metrics})
