"""Rule prompt_transfer: zero-shot transfer accuracy of every task's prompts on every task
with the same label words, and the overlap of activated neurons (ON) of each pair over all
neurons and over the target's top skill neurons (paper A §6.2)."""

from skillneurons.data.splits import read_split
from skillneurons.data.subsets import stratified_subset
from skillneurons.infra.io import read_tensor_metadata, write_frame_parquet
from skillneurons.infra.runlog import job_log
from skillneurons.models.encoding import encode_frame
from skillneurons.models.loading import load_on_device
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.transfer import pairs_table, skill_neuron_mask, transfer_evaluation

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params = snakemake.input, snakemake.params
    settings = params.settings
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    tests = {
        task: encode_frame(
            loaded,
            stratified_subset(
                read_split(path)[0],
                settings["max_samples"],
                params.subset_seed,
                split=f"{task}/test (transfer.max_samples)",
                allocation="proportional",
            ),
            params.max_length,
        )  # fmt: skip
        for task, path in zip(params.tasks, inputs.tests, strict=True)
    }
    files = {}
    for path in inputs.prompts:
        meta = read_tensor_metadata(path)
        files[(meta["task"], int(meta["trial"]))] = path
    accuracies, states = transfer_evaluation(
        loaded, files, tests, params.label_words,
        batch_size=params.batch_size, positions=settings["positions"],
    )  # fmt: skip
    masks = {
        task: skill_neuron_mask(
            Ranking.from_parquet(path), settings["skill_fraction"], params.per_layer
        )
        for task, path in zip(params.tasks, inputs.rankings, strict=True)
    }
    table = pairs_table(accuracies, states, masks, settings["measure"])
    meta = {"model": snakemake.wildcards.model, **settings}
    write_frame_parquet(snakemake.output[0], table, meta)
