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
    ScoredSplit,
    encode_generation,
    generation_objective,
)
from skillneurons.paper_b.generation_deactivation import (
    generation_deactivation_results,
    train_generation_multitask,
)
from skillneurons.paper_b.relevance import deactivation_neurons, relevance_tables

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
        tests[task] = ScoredSplit.from_params(frames[task]["test"], scoring)
        devs[task] = dev = ScoredSplit.from_params(frames[task]["dev"], scoring)
        trains[task] = encode_generation(
            loaded, frames[task]["train"], dev.instruction, dev.budget
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
    neurons, width = deactivation_neurons(
        tables, output.neurons, identity, params.relevance, params.choice,
        inputs.get("base_neurons") or (),
    )  # fmt: skip
    results = generation_deactivation_results(
        loaded, tests, neurons, width=width, random_draws=params.random_draws, seed=params.seed,
        batch_size=params.batch_size, rouge_stemmer=params.rouge_stemmer,
    )  # fmt: skip
    write_frame_parquet(output.results, results, {**identity, "identify_on": params.identify_on})
    write_json(output.metrics, {**identity, **metrics})
