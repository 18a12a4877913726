"""Rule tuning_method_perturbation: accuracy of every adapter or BitFit trial of a task
on a label-stratified test subset while neurons are perturbed in each source task's
prompt-tuning predictivity order and in uniform and layer-matched random orders (paper
A, §5, Figures 7, 12, 13)."""

from skillneurons.data.splits import read_split
from skillneurons.data.subsets import stratified_subset
from skillneurons.infra.device import configure_torch
from skillneurons.infra.runlog import job_log
from skillneurons.neurons.perturbation.files import write_perturbation_file
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.tuning_methods import method_trials

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, wildcards = snakemake.input, snakemake.params, snakemake.wildcards
    rankings = dict(zip(params.sources, map(Ranking.from_parquet, inputs.rankings), strict=True))
    device = configure_torch(snakemake.threads, snakemake.resources.get("gpu", 0))
    test = stratified_subset(read_split(inputs.test)[0], params.test_samples, params.subset_seed)
    write_perturbation_file(
        snakemake.output[0],
        method_trials(
            params.model,
            inputs.weights,
            params.trials,
            params.seeds,
            test,
            read_split(inputs.train)[0],
            device=device,
            max_length=params.max_length,
            batch_size=params.batch_size,
            baseline_samples=params.baseline_samples,
            subset_seed=params.subset_seed,
            task=wildcards.task,
        ),
        rankings,
        None,
        {"model": wildcards.model, "method": wildcards.method, "eval_task": wildcards.task},
        sample_idx=test["idx"].tolist(),
        rates=params.rates,
        settings=params.settings,
        layer_matched_orders=params.layer_matched_orders,
        uniform_orders=params.uniform_orders,
        scope=params.scope,
        batch_size=params.batch_size,
    )
