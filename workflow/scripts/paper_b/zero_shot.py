"""Rule zero_shot: every task's test score on the untrained model, classification
(verbalizer and instruction: accuracy) or generation (ROUGE-L) (paper B, Table 2's
"Zero-shot")."""

from skillneurons.infra.io import write_frame_parquet
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_on_device
from skillneurons.paper_b.neuron_training import zero_shot_results
from skillneurons.paper_b.scorers import task_scorers

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params = snakemake.params
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    scorers = task_scorers(loaded, snakemake.input.splits, params.scorers)
    results = zero_shot_results(scorers)
    write_frame_parquet(snakemake.output[0], results, {"model": snakemake.wildcards.model})
