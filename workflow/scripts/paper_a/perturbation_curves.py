"""Rules perturbation_curves and perturbation_paper_design: accuracy of every
prompt-tuned trial of an evaluation task on a label-stratified test subset while neurons
are perturbed in every order (each source task's predictivity order, uniform and
layer-matched random orders, the selectivity index when the rule reads one) at every
rate (paper A, §4.2, Figures 4, 11 and 15). One model load serves every trial."""

from skillneurons.data.splits import read_split
from skillneurons.data.subsets import stratified_subset
from skillneurons.infra.runlog import job_log
from skillneurons.models.encoding import encode_frame
from skillneurons.models.loading import load_on_device
from skillneurons.neurons.perturbation.files import prompt_tuned_trials, write_perturbation_file
from skillneurons.neurons.ranking import Ranking
from skillneurons.neurons.selectivity import read_selectivity

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, wildcards = snakemake.input, snakemake.params, snakemake.wildcards
    rankings = dict(zip(params.sources, map(Ranking.from_parquet, inputs.rankings), strict=True))
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    test = stratified_subset(read_split(inputs.test)[0], params.test_samples, params.subset_seed)
    split = encode_frame(loaded, test, params.max_length)
    trials = prompt_tuned_trials(
        loaded, split, inputs.prompts, inputs.baselines, params.trials, params.seeds
    )
    write_perturbation_file(
        snakemake.output[0],
        trials,
        rankings,
        read_selectivity(inputs.selectivity) if "selectivity" in inputs.keys() else None,
        {"model": wildcards.model, "eval_task": wildcards.task},
        sample_idx=test["idx"].tolist(),
        rates=params.rates,
        settings=params.settings,
        layer_matched_orders=params.layer_matched_orders,
        uniform_orders=params.uniform_orders,
        scope=params.scope,
        batch_size=params.batch_size,
    )
