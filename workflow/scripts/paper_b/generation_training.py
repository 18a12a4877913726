"""Rule generation_training: a generation task's neurons by relevance on the base causal
LM, then B-T2's generation rows: zero-shot, training only random neurons or only the
task's, scored by ROUGE-L (paper B, §4.2, Table 2); the task's training also on the
other generation tasks' test splits (B-F5d)."""

import pandas as pd

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_on_device
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b import relevance
from skillneurons.paper_b.generation import (
    GenerationBudget,
    ScoredSplit,
    encode_generation,
    generation_objective,
    generation_training_results,
)

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    task = snakemake.wildcards.task
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    frames = dict(zip(("train", "dev", "test"), map(pd.read_parquet, inputs.splits), strict=True))
    budget = GenerationBudget(**params.budget)
    other_tests = {
        other: ScoredSplit.from_params(pd.read_parquet(path), scoring)
        for (other, scoring), path in zip(params.others.items(), inputs.others, strict=True)
    }
    train_split = encode_generation(loaded, frames["train"], params.instruction, budget)
    table = relevance.relevance_tables(
        {task: generation_objective(loaded)}, {task: train_split}, **params.relevance,
        seed=params.seed,
    )[task]  # fmt: skip
    identity = {"model": snakemake.wildcards.model, "task": task}
    relevance.write_task_neurons(
        output.neurons, table, {**identity, "identified_on": "base model", **params.relevance}
    )
    results, metrics = generation_training_results(
        loaded, task, train_split, frames, relevance.task_neurons(table, **params.choice),
        instruction=params.instruction, budget=budget, width=relevance.layer_width(table),
        training=TrainingSettings.from_config(params.training, params.seed),
        random_draws=params.random_draws, seed=params.seed, batch_size=params.batch_size,
        output_only=params.output_only, rouge_stemmer=params.rouge_stemmer,
        other_tests=other_tests,
    )  # fmt: skip
    write_frame_parquet(output.results, results, identity)
    write_json(output.metrics, {**identity, **metrics})
