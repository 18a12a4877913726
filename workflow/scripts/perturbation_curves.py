"""Rule perturbation_curves: accuracy of every prompt-tuned trial of an evaluation task
on its test split while neurons are perturbed in every order (each source task's
predictivity order, random orders, the selectivity index) at every rate (paper A, §4.2,
Figures 4, 11 and 15). One model load serves every trial."""

import pandas as pd

from skillneurons.data.splits import read_split
from skillneurons.infra.device import configure_torch
from skillneurons.infra.io import read_tensors
from skillneurons.infra.runlog import job_log
from skillneurons.neurons.perturbation import perturb_trial, perturbation_orders, write_curves
from skillneurons.neurons.selectivity import read_selectivity
from skillneurons.paper_a.prompt_tuning import encode_frame, load_prompt, load_tuned_classifier

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, wildcards = snakemake.input, snakemake.params, snakemake.wildcards
    device = configure_torch(snakemake.threads, snakemake.resources.get("gpu", 0))
    loaded, classifier = load_tuned_classifier(params.model, inputs.prompts[0], device)
    test = read_split(inputs.test)[0]
    if params.max_test_samples is not None:
        test = test.head(params.max_test_samples)
    split = encode_frame(loaded, test, params.max_length)
    rankings = {
        task: pd.read_parquet(path)
        for task, path in zip(params.sources, inputs.rankings, strict=True)
    }
    selectivity = read_selectivity(inputs.selectivity)
    baselines = inputs.get("baselines") or [None] * len(params.trials)
    frames = []
    for trial, prompt, seed, baseline in zip(
        params.trials, inputs.prompts, params.seeds, baselines, strict=True
    ):
        load_prompt(classifier, prompt)
        orders = perturbation_orders(
            rankings, selectivity, params.random_orders, seed, params.scope
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
                baseline=read_tensors(baseline)["prompt"].numpy() if baseline else None,
                eval_task=wildcards.task,
                trial=trial,
            )
        )
    write_curves(
        snakemake.output[0],
        frames,
        {"model": wildcards.model, "eval_task": wildcards.task},
        samples=len(split),
        rates=params.rates,
        settings=params.settings,
        seeds=params.seeds,
        scope=params.scope,
    )
