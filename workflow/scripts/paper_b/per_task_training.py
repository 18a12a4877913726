"""Rule per_task_training: fully fine-tune the base model on one task alone and test it,
per-task FT, the reference A_i of paper B's Eq. 5 (§6: B-T5, B-F4), every training run
(paper_b.runs) of it in turn, each from a freshly loaded model."""

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import fresh_models
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b.classifiers import encode_tasks, task_classifiers
from skillneurons.paper_b.continual import per_task_fine_tuning
from skillneurons.paper_b.runs import with_run

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    task = snakemake.wildcards.task
    gpus = snakemake.resources.get("gpu", 0)
    for index, run, loaded in fresh_models(params.model, snakemake.threads, gpus, params.runs):
        seed = params.seeds[index]
        encoded = encode_tasks(
            loaded, inputs.splits, [task], params.instructions, params.max_length
        )
        results, metrics = per_task_fine_tuning(
            loaded, task_classifiers(loaded, params.label_words), encoded, task,
            TrainingSettings.from_config(params.training, seed),
            freeze_embeddings=params.training["freeze_embeddings"], batch_size=params.batch_size,
        )  # fmt: skip
        identity = {"model": snakemake.wildcards.model, "task": task, "run": run, "seed": seed}
        write_frame_parquet(output.results[index], with_run(results, run), identity)
        write_json(output.metrics[index], {**identity, **metrics})
