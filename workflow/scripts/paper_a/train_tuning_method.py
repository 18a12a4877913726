"""Rule train_tuning_method: one trial of adapter-based tuning or BitFit on a task, with
the same verbalizer and training loop as prompt tuning (paper A, §5)."""

from skillneurons.data.splits import read_split
from skillneurons.data.tasks import SPLITS
from skillneurons.infra.io import write_json
from skillneurons.infra.runlog import job_log
from skillneurons.models.loading import load_on_device
from skillneurons.paper_a.tuning_methods import train_method, write_tuned

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, wildcards = snakemake.params, snakemake.wildcards
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    splits = {split: read_split(snakemake.input[split])[0] for split in SPLITS}
    classifier, metrics = train_method(
        loaded,
        splits,
        method=wildcards.method,
        label_words=params.label_words,
        settings=params.settings,
        max_length=params.max_length,
        seed=params.seed,
    )
    identity = {
        "model": wildcards.model,
        "method": wildcards.method,
        "task": wildcards.task,
        "trial": int(wildcards.trial),
    }
    settings = {key: params.settings[key] for key in ("adapter_size", "adapter_init_std")}
    write_tuned(snakemake.output.weights, classifier, {**identity, **settings})
    write_json(snakemake.output.metrics, {**identity, **metrics})
