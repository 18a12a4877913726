"""Rule comparison: on each of paper A's prompt-tuned models (every trial), paper B's
relevance beside paper A's ranking of that trial: rank agreement and curves that
deactivate neurons in A's order, B's order and layer-matched random orders (AB-T1,
AB-F1). One model load serves every trial."""

import pandas as pd

from skillneurons.data.splits import read_split
from skillneurons.data.subsets import stratified_subset
from skillneurons.infra.io import write_frame_parquet, write_json
from skillneurons.infra.runlog import job_log
from skillneurons.models.encoding import encode_frame
from skillneurons.models.loading import load_on_device
from skillneurons.neurons.perturbation.files import prompt_tuned_trials
from skillneurons.paper_a.skill_neurons import read_groups, read_predictivity, trial_ranking
from skillneurons.paper_b.comparison import comparison_orders, mean_agreement, ranking_agreement
from skillneurons.paper_b.relevance import relevance_tables, write_task_neurons

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    task, identity = snakemake.wildcards.task, dict(snakemake.wildcards.items())
    attribution = {  # paper_b.relevance, attribution_samples and batch_size
        "definition": params.relevance,
        "attribution_samples": params.attribution_samples,
        "batch_size": params.batch_size,
    }
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    train = encode_frame(loaded, read_split(inputs.train)[0], params.max_length)
    test_frame = stratified_subset(read_split(inputs.test)[0], params.test_samples, params.seed)
    test = encode_frame(loaded, test_frame, params.max_length)
    predictivity = read_predictivity(inputs.predictivity)
    groups = read_groups(inputs.dev, inputs.subtasks)
    agreements, curves = [], []
    trials = prompt_tuned_trials(
        loaded, test, inputs.prompts, inputs.baselines, params.trials, params.seeds
    )
    for model, neurons_path in zip(trials, output.neurons, strict=True):
        table = relevance_tables(
            {task: model.classifier}, {task: train}, **attribution, seed=params.seed
        )[task]
        on = {"identified_on": f"prompt-tuned model (trial {model.trial})"}
        write_task_neurons(neurons_path, table, {**identity, **on, **attribution})
        ranking = trial_ranking(predictivity, groups, model.trial, task, params.seed)
        agreements.append(ranking_agreement(ranking, table, params.fraction))
        orders = comparison_orders(ranking, table, params.layer_matched_orders, model.seed)
        curves.append(
            model.perturb(
                orders, rates=params.rates, settings=params.settings,
                batch_size=params.batch_size, eval_task=task,
            )
        )  # fmt: skip
    write_json(output.agreement, {**identity, **mean_agreement(agreements)})
    write_frame_parquet(
        output.curves,
        pd.concat(curves, ignore_index=True),
        {**identity, "sample_idx": test_frame["idx"].tolist(), "seeds": list(params.seeds)},
    )
