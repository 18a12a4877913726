"""Rule similarity_model: fully fine-tune the base model on one training task (M_i; a
classification or a generation task), find the training and test tasks' neurons on it,
and compare their parameters layer by layer (paper B, §5.2: B-F3, B-T4), every training
run (paper_b.runs) of it in turn, each from a freshly loaded model."""

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import fresh_models
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b.runs import with_run
from skillneurons.paper_b.scorers import task_scorers
from skillneurons.paper_b.similarity import model_similarity

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    task = snakemake.wildcards.task
    relevance = {
        "definition": params.relevance,
        "attribution_samples": params.attribution_samples,
        "batch_size": params.batch_size,
    }
    gpus = snakemake.resources.get("gpu", 0)
    for index, run, loaded in fresh_models(params.model, snakemake.threads, gpus, params.runs):
        seed = params.seeds[index]
        similarities, scores, metrics = model_similarity(
            loaded, task_scorers(loaded, inputs.splits, params.tasks), task, params.test_tasks,
            TrainingSettings.from_config(params.training, seed),
            freeze_embeddings=params.training["freeze_embeddings"], fraction=params.fraction,
            definitions=params.definitions, relevance=relevance, seed=seed,
        )  # fmt: skip
        identity = {"model": snakemake.wildcards.model, "trained": task, "run": run}
        identity |= {"seed": seed}
        for path, frame in (
            (output.similarities[index], similarities),
            (output.scores[index], scores),
        ):
            write_frame_parquet(path, with_run(frame.assign(trained=task), run), identity)
        write_json(output.metrics[index], {**identity, **metrics})
