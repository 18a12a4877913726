"""Rule tuning_method_perturbation: accuracy of every adapter or BitFit trial of a task
on its test split while neurons are perturbed in each source task's prompt-tuning
predictivity order and in random orders (paper A, §5, Figures 7, 12, 13)."""

import pandas as pd

from skillneurons.data.splits import read_split
from skillneurons.infra.device import configure_torch
from skillneurons.infra.runlog import job_log
from skillneurons.neurons.perturbation import perturb_trial, perturbation_orders, write_curves
from skillneurons.paper_a.prompt_tuning import encode_frame
from skillneurons.paper_a.tuning_methods import input_baseline, load_method_classifier

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, wildcards = snakemake.input, snakemake.params, snakemake.wildcards
    device = configure_torch(snakemake.threads, snakemake.resources.get("gpu", 0))
    test = read_split(inputs.test)[0].iloc[: params.max_test_samples]
    train = read_split(inputs.train)[0] if inputs.get("train") else None
    rankings = {
        task: pd.read_parquet(path)
        for task, path in zip(params.sources, inputs.rankings, strict=True)
    }
    frames = []
    for trial, weights, seed in zip(params.trials, inputs.weights, params.seeds, strict=True):
        loaded, classifier = load_method_classifier(params.model, weights, device)
        split = encode_frame(loaded, test, params.max_length)
        orders = perturbation_orders(rankings, None, params.random_orders, seed, params.scope)
        baseline = None
        if train is not None:
            encoded = encode_frame(loaded, train, params.max_length)
            baseline = input_baseline(
                classifier, encoded, params.batch_size, params.baseline_samples
            )
        frames.append(
            perturb_trial(
                classifier,
                split,
                orders,
                rates=params.rates,
                settings=params.settings,
                seed=seed,
                batch_size=params.batch_size,
                baseline=baseline,
                eval_task=wildcards.task,
                trial=trial,
            )
        )
    write_curves(
        snakemake.output[0],
        frames,
        {"model": wildcards.model, "method": wildcards.method, "eval_task": wildcards.task},
        samples=len(test),
        rates=params.rates,
        settings=params.settings,
        seeds=params.seeds,
        scope=params.scope,
    )
