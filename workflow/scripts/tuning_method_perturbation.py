"""Rule tuning_method_perturbation: accuracy of an adapter or BitFit model on a task's
test split while neurons are perturbed in each source task's prompt-tuning predictivity
order and in random orders (paper A, §5, Figures 7, 12, 13)."""

import pandas as pd

from skillneurons.device import configure_torch
from skillneurons.perturbation import perturb_trial, perturbation_orders
from skillneurons.prompt_tuning import encode_frame
from skillneurons.runlog import job_log
from skillneurons.splits import read_split
from skillneurons.tuning_methods import input_baseline, load_method_classifier

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards) as log:
    inputs, params, wildcards = snakemake.input, snakemake.params, snakemake.wildcards
    device = configure_torch(snakemake.threads, snakemake.resources.get("gpu", 0))
    loaded, classifier = load_method_classifier(params.model, inputs.weights, device)
    test = read_split(inputs.test)[0].iloc[: params.max_test_samples]
    split = encode_frame(loaded, test, params.max_length)
    rankings = {
        task: pd.read_parquet(path)
        for task, path in zip(params.sources, inputs.rankings, strict=True)
    }
    orders = perturbation_orders(rankings, None, params.random_orders, params.seed, params.scope)
    baseline = None
    if inputs.get("train"):
        train = encode_frame(loaded, read_split(inputs.train)[0], params.max_length)
        baseline = input_baseline(classifier, train, params.batch_size, params.baseline_samples)
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
            "method": wildcards.method,
            "eval_task": wildcards.task,
            "trial": int(wildcards.trial),
        },
    )
