"""Rule controlled_overlap: for a pair of groups, at one trained proportion q, train the
training tasks on the natural set of their neurons and on sets with a controlled share
of the test tasks' neurons, and score both (paper B, appendix A.7: B-T9..B-T11), one
training run (paper_b.runs) of it: its seed draws the sets and orders the training."""

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_on_device
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b.generalization import controlled_overlap
from skillneurons.paper_b.relevance import read_task_neuron_tables
from skillneurons.paper_b.runs import with_run
from skillneurons.paper_b.scorers import task_scorers

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    pair = snakemake.wildcards.pair
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    tasks = [*params.train_tasks, *params.test_tasks]
    results, metrics = controlled_overlap(
        task_scorers(loaded, inputs.splits, params.tasks),
        read_task_neuron_tables(tasks, inputs.neurons), tuple(pair.split("-")),
        params.train_tasks, params.test_tasks, params.proportion, params.shares,
        TrainingSettings.from_config(params.training, params.seed), seed=params.seed,
        output_only=params.output_only, rate_share=params.rate_share,
    )  # fmt: skip
    identity = {"model": snakemake.wildcards.model, "pair": pair, "proportion": params.proportion}
    identity |= {"run": int(snakemake.wildcards.run), "seed": params.seed}
    write_frame_parquet(output.results, with_run(results, identity["run"]), identity)
    write_json(output.metrics, {**identity, "trainings": metrics})
