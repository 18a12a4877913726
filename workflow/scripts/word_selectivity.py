"""Rule word_selectivity: tokens related to each task's top skill neuron by cosine
similarity and by average activation (paper A, §4.4, Tables 2 and 6)."""

import pandas as pd
import pyarrow as pa

from skillneurons.data.splits import read_split
from skillneurons.infra.device import configure_torch
from skillneurons.infra.io import write_frame, write_table
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_model
from skillneurons.neurons.predictivity import task_order
from skillneurons.paper_a.prompt_tuning import encode_frame
from skillneurons.paper_a.word_selectivity import (
    COLUMNS,
    neuron_words,
    tuned_classifier,
    word_table,
)

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    device = configure_torch(snakemake.threads, snakemake.resources.get("gpu", 0))
    loaded = load_model(**params.model)
    loaded.model.to(device)
    frames = []
    for task, ranking_path, prompt_path, train_path in zip(
        params.tasks, inputs.rankings, inputs.prompts, inputs.train, strict=True
    ):
        ranking = pd.read_parquet(ranking_path)
        width = int(ranking["neuron"].max()) + 1
        layer, neuron = divmod(int(task_order(ranking)[0]), width)
        corpus = read_split(train_path)[0].iloc[: params.corpus_samples]
        words = neuron_words(
            tuned_classifier(loaded, prompt_path),
            loaded.tokenizer,
            encode_frame(loaded, corpus, params.max_length),
            layer,
            neuron,
            words=params.words,
            min_count=params.min_count,
            batch_size=params.batch_size,
        )
        words.insert(0, "task", task)
        frames.append(words)
    frame = pd.concat(frames, ignore_index=True)[list(COLUMNS)]
    meta = {"model": snakemake.wildcards.model, "trial": params.trial, "tasks": params.tasks}
    write_table(output.words, pa.Table.from_pandas(frame, preserve_index=False), meta)
    for measure, title in params.titles.items():
        table = word_table(frame, measure, params.tasks)
        write_frame(output[f"{measure}_csv"], output[f"{measure}_md"], table, title)
