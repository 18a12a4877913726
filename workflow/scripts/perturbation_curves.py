"""Rule perturbation_curves: accuracy of one prompt-tuned trial on an evaluation task's
test split while neurons are perturbed in every order (each source task's predictivity
order, random orders, the selectivity index) at every rate (paper A, §4.2, Figures 4,
11 and 15)."""

import pandas as pd

from skillneurons.device import configure_torch
from skillneurons.io import read_tensors
from skillneurons.perturbation import perturb_trial, perturbation_orders
from skillneurons.prompt_tuning import encode_frame, load_tuned_classifier
from skillneurons.runlog import job_log
from skillneurons.selectivity import read_selectivity
from skillneurons.splits import read_split

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards) as log:
    inputs, params, wildcards = snakemake.input, snakemake.params, snakemake.wildcards
    device = configure_torch(snakemake.threads, snakemake.resources.get("gpu", 0))
    loaded, classifier = load_tuned_classifier(params.model, inputs.prompt, device)
    test = read_split(inputs.test)[0]
    if params.max_test_samples is not None:
        test = test.head(params.max_test_samples)
    split = encode_frame(loaded, test, params.max_length)
    rankings = {
        task: pd.read_parquet(path)
        for task, path in zip(params.sources, inputs.rankings, strict=True)
    }
    orders = perturbation_orders(
        rankings,
        read_selectivity(inputs.selectivity),
        params.random_orders,
        params.seed,
        params.scope,
    )
    baseline = read_tensors(inputs.baseline)["prompt"].numpy() if inputs.get("baseline") else None
    log.info("%d orders x %d rates on %d test samples", len(orders), len(params.rates), len(split))
    perturb_trial(
        snakemake.output[0],
        classifier,
        split,
        orders,
        rates=params.rates,
        settings=params.settings,
        seed=params.seed,
        scope=params.scope,
        batch_size=params.batch_size,
        baseline=baseline,
        identity={
            "model": wildcards.model,
            "eval_task": wildcards.task,
            "trial": int(wildcards.trial),
        },
    )
