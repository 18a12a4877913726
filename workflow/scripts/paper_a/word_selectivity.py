"""Rule word_selectivity: tokens related to each task's top skill neuron by cosine
similarity and by average activation (paper A, §4.4, Tables 2 and 6)."""

import pandas as pd

from skillneurons.data.splits import read_split
from skillneurons.data.subsets import stratified_subset
from skillneurons.infra.io import write_frame_parquet
from skillneurons.infra.runlog import job_log
from skillneurons.models.encoding import encode_frame
from skillneurons.models.loading import load_on_device
from skillneurons.models.prompted import classifier_from_prompt_file
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.word_selectivity import (
    COLUMNS,
    neuron_words,
    word_table,
)
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    frames = []
    for task, ranking_path, prompt_path, train_path in zip(
        params.tasks, inputs.rankings, inputs.prompts, inputs.train, strict=True
    ):
        layer, neuron = Ranking.from_parquet(ranking_path).top(1)[0].tolist()
        corpus = stratified_subset(
            read_split(train_path)[0], params.corpus_samples, params.subset_seed,
            split=f"{task}/train (word_selectivity.corpus_samples)", allocation="proportional",
        )  # fmt: skip
        words = neuron_words(
            classifier_from_prompt_file(loaded, prompt_path),
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
    write_frame_parquet(output.words, frame, meta)
    for measure, title in params.titles.items():
        table = word_table(frame, measure, params.tasks)
        write_frame(output[f"{measure}_csv"], output[f"{measure}_md"], table, title)
