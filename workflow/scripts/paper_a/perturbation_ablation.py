"""Rule perturbation_ablation: one evaluation task's prompt-tuned trials perturbed in
its own order and in layer-matched random orders under every setting of
ablation.settings (skillneurons.paper_a.ablation), on the label-stratified test subset
the perturbation curves use. One model load serves every setting and trial."""

from skillneurons.data.splits import read_split
from skillneurons.data.subsets import stratified_subset
from skillneurons.infra.runlog import job_log
from skillneurons.models.encoding import encode_frame
from skillneurons.models.loading import load_on_device
from skillneurons.neurons.perturbation.files import prompt_tuned_trials
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.ablation import write_ablation_file

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, wildcards = snakemake.input, snakemake.params, snakemake.wildcards
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    test = stratified_subset(read_split(inputs.test)[0], params.test_samples, params.subset_seed)
    split = encode_frame(loaded, test, params.max_length)
    write_ablation_file(
        snakemake.output[0],
        list(
            prompt_tuned_trials(
                loaded, split, inputs.prompts, inputs.baselines, params.trials, params.seeds
            )
        ),  # fmt: skip
        Ranking.from_parquet(inputs.ranking),
        {"model": wildcards.model, "eval_task": wildcards.task},
        sample_idx=test["idx"].tolist(),
        settings=params.settings,
        base=params.base,
        rates=params.rates,
        layer_matched_orders=params.layer_matched_orders,
        batch_size=params.batch_size,
    )
