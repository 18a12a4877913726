"""Rule generation_deactivation: fine-tune the causal LM on the mixture of the
generation tasks, find each task's neurons on it, and score every generation task with
each task's (and random) neurons deactivated (paper B, §4.1: B-T1's generation rows,
B-F5b)."""

import pandas as pd

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_on_device
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b.generation import (
    GenerationBudget,
    ScoredSplit,
    encode_generation,
    generation_objective,
)
from skillneurons.paper_b.generation_deactivation import (
    generation_deactivation_results,
    train_generation_multitask,
)
from skillneurons.paper_b.relevance import (
    layer_width,
    read_task_neuron_tables,
    relevance_tables,
    task_neurons,
    write_task_neurons,
)

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards) as log:
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    tasks, paths = list(params.scoring), iter(inputs.splits)
    frames = {
        task: {split: pd.read_parquet(next(paths)) for split in params.splits} for task in tasks
    }
    tests, devs, trains = {}, {}, {}
    for task, scoring in params.scoring.items():
        budget = GenerationBudget(**scoring["budget"])
        tests[task] = ScoredSplit(frames[task]["test"], scoring["instruction"], budget)
        devs[task] = ScoredSplit(frames[task]["dev"], scoring["instruction"], budget)
        trains[task] = encode_generation(
            loaded, frames[task]["train"], scoring["instruction"], budget
        )
    training = TrainingSettings.from_config(params.training, params.seed)
    metrics = train_generation_multitask(
        loaded, trains, devs, training, batch_size=params.batch_size,
        freeze_embeddings=params.training["freeze_embeddings"],
        rouge_stemmer=params.rouge_stemmer,
    )  # fmt: skip
    log.info("mean dev ROUGE-L %.4f after %d steps", metrics["mean_dev_rouge_l"], metrics["steps"])
    objective = generation_objective(loaded)
    tables = relevance_tables(
        {task: objective for task in tasks}, trains, **params.relevance, seed=params.seed
    )
    identity = {"model": snakemake.wildcards.model, "identified_on": "multitask model"}
    for task, path in zip(tasks, output.neurons, strict=True):
        write_task_neurons(path, tables[task], {**identity, "task": task, **params.relevance})
    if inputs.get("base_neurons"):  # paper_b.identify_on.deactivation: base
        tables = read_task_neuron_tables(tasks, inputs.base_neurons)
    neurons = {task: task_neurons(table, **params.choice) for task, table in tables.items()}
    results = generation_deactivation_results(
        loaded, tests, neurons,
        width=layer_width(tables[tasks[0]]), random_draws=params.random_draws, seed=params.seed,
        batch_size=params.batch_size, rouge_stemmer=params.rouge_stemmer,
    )  # fmt: skip
    write_frame_parquet(output.results, results, {**identity, "identify_on": params.identify_on})
    write_json(output.metrics, {**identity, **metrics})
