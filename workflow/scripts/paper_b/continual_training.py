"""Rule continual_training: learn the tasks of one order in turn by SeqFT (method
seqft), SeqLoRA (seqlora) or NCFT, testing W-NCFT beside it (method ncft: its file holds
both), after every stage testing the tasks learnt so far (paper B, §6, A.2: B-T5, B-F4),
every training run (paper_b.runs) of it in turn, each from a freshly loaded model."""

from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import fresh_models
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b import continual
from skillneurons.paper_b.classifiers import encode_tasks, task_classifiers
from skillneurons.paper_b.runs import with_run

relaunch_if_parallel(snakemake.resources, snakemake.threads, snakemake.log[0])
with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    method = snakemake.wildcards.method
    gpus = snakemake.resources.get("gpu", 0)
    for index, run, loaded in fresh_models(params.model, snakemake.threads, gpus, params.runs):
        seed = params.seeds[index]
        order = params.order
        encoded = encode_tasks(
            loaded, inputs.splits, order, params.instructions, params.max_length
        )
        heads = task_classifiers(loaded, {task: params.label_words[task] for task in order})
        training = TrainingSettings.from_config(params.training, seed)
        if method == "seqft":
            results, metrics = continual.sequential_fine_tuning(
                loaded, heads, encoded, order, training,
                freeze_embeddings=params.freeze_embeddings, batch_size=params.batch_size,
            )  # fmt: skip
        elif method == "seqlora":
            results, metrics = continual.sequential_lora(
                loaded, heads, encoded, order, training,
                lora=continual.LoraSettings.from_config(params.training), seed=seed,
                batch_size=params.batch_size,
            )  # fmt: skip
        else:
            features = {
                task: continual.task_feature(
                    heads[task],
                    encoded[task]["train"],
                    params.batch_size,
                    params.feature_samples,
                    seed=seed,
                    name=f"{task}/train",
                )  # fmt: skip
                for task in order
            }
            ncft = continual.NcftSettings(
                fraction=params.fraction,
                relevance=params.relevance,
                attribution_samples=params.attribution_samples,
                seed=seed,
                output_only=params.output_only,
                temperature=params.temperature,
                combine=params.combine,
            )
            results, metrics = continual.neuron_level_fine_tuning(
                loaded, heads, encoded, order, training, ncft, features=features,
                batch_size=params.batch_size,
            )  # fmt: skip
        identity = {"model": snakemake.wildcards.model, "order": snakemake.wildcards.order}
        identity |= {"run": run, "seed": seed}
        write_frame_parquet(
            output.results[index], with_run(results, run), {**identity, "tasks": order}
        )
        write_json(
            output.metrics[index],
            {**identity, "method": method, "tasks": order, "stages": metrics},
        )
