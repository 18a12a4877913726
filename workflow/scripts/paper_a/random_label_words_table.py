"""Rule random_label_words_table: agreement of the neuron orders found with random label
words (paper A, §4.4: average pairwise Spearman correlation 0.87), beside the agreement
of the configured label words over the same seeds and the noise floor: the same
prompts' orders on two halves of the dev split."""

import pandas as pd

from skillneurons.infra.io import read_json
from skillneurons.infra.runlog import job_log
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.label_word_sampling import agreement_row
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params = snakemake.input, snakemake.params
    metrics = pd.DataFrame([read_json(path) for path in inputs.metrics])
    rows = []
    for index, task in enumerate(params.tasks):  # rankings: task-major, then draw
        span = slice(index * params.draws, (index + 1) * params.draws)
        runs = metrics[metrics["task"] == task].sort_values(["draw", "trial"])
        words = runs.groupby("draw", sort=True)["label_words"].first().tolist()
        rows.append(
            agreement_row(
                task,
                [Ranking.from_parquet(path) for path in inputs.rankings[span]],
                [Ranking.from_parquet(path) for path in inputs.controls[span]],
                words,
                Ranking.from_parquet(inputs.reference[index]),
                runs["test_accuracy"].tolist(),
            )
            | {"noise_floor": read_json(inputs.noise_floor[index])["mean"]}
        )
    write_frame(snakemake.output.csv, snakemake.output.md, pd.DataFrame(rows), params.title)
