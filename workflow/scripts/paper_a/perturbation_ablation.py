"""Rule perturbation_ablation: one evaluation task's prompt-tuned trials perturbed in
its own order and in layer-matched random orders under every setting of
ablation.settings (skillneurons.paper_a.ablation), on the label-stratified test subset
the perturbation curves use. One model load serves every setting and trial."""

from skillneurons.data.splits import read_split
from skillneurons.data.subsets import stratified_subset
from skillneurons.infra.io import read_tensors, write_frame_parquet
from skillneurons.infra.runlog import job_log
from skillneurons.models.encoding import encode_frame
from skillneurons.models.loading import load_on_device
from skillneurons.models.prompted import classifier_from_prompt_file
from skillneurons.neurons import perturbation
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.ablation import sweep_settings

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, wildcards = snakemake.input, snakemake.params, snakemake.wildcards
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    test = stratified_subset(read_split(inputs.test)[0], params.test_samples, params.subset_seed)
    split = encode_frame(loaded, test, params.max_length)
    baselines = [read_tensors(path) for path in inputs.baselines]
    trials = [
        perturbation.TrialModel(
            trial,
            seed,
            classifier_from_prompt_file(loaded, prompt),
            split,
            baseline["prompt"].numpy(),
            perturbation.noise_scale(baseline["prompt_std"]),
        )
        for trial, prompt, seed, baseline in zip(
            params.trials, inputs.prompts, params.seeds, baselines, strict=True
        )
    ]
    curves = sweep_settings(
        trials,
        Ranking.from_parquet(inputs.ranking),
        wildcards.task,
        params.settings,
        base=params.base,
        rates=params.rates,
        random_orders=params.random_orders,
        batch_size=params.batch_size,
    )
    metadata = {
        "model": wildcards.model,
        "eval_task": wildcards.task,
        "sample_idx": [int(i) for i in test["idx"]],
        "settings": params.settings,
        "rates": list(params.rates),
        "seeds": list(params.seeds),
    }
    write_frame_parquet(snakemake.output[0], curves, metadata)
