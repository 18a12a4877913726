"""Rule findings: paper A's claims of sections 4-5 on this run, each an effect with its
hierarchical bootstrap interval, margin and Holm-adjusted verdict
(skillneurons.paper_a.findings)."""

import pandas as pd

from skillneurons.infra.io import read_json
from skillneurons.infra.runlog import job_log
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.findings import findings_table
from skillneurons.paper_a.findings.task_relations import trial_scores
from skillneurons.paper_a.findings.top_neurons import held_out_panels
from skillneurons.paper_a.skill_neurons import read_predictivity, read_trial_results
from skillneurons.reporting.findings import BootstrapSettings
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params = snakemake.input, snakemake.params
    tasks, scores_of = params.tasks, lambda path: Ranking.from_parquet(path).scores()
    draws = params.draws
    top_neurons = read_trial_results(inputs.top_neurons)
    words, controls = (
        [scores_of(path) for path in inputs.get(key, [])]
        for key in ("label_words", "label_word_controls")
    )
    table = findings_table(
        perturbation=dict(zip(tasks, map(pd.read_parquet, inputs.perturbation), strict=True)),
        paper_design=dict(zip(tasks, map(pd.read_parquet, inputs.paper_design), strict=True)),
        noise_floor={
            task: read_json(path)["mean"]
            for task, path in zip(
                params.label_word_tasks, inputs.get("noise_floor", []), strict=True
            )
        },
        scores={
            task: trial_scores(read_predictivity(path))
            for task, path in zip(tasks, inputs.predictivity, strict=True)
        },
        controls={
            setting: [read_json(path) for path in inputs[setting]]
            for setting in ("random_prompt", "random_model")
        },
        label_word_draws={
            task: words[index * draws : (index + 1) * draws]
            for index, task in enumerate(params.label_word_tasks)
        },
        label_word_controls={
            task: controls[index * draws : (index + 1) * draws]
            for index, task in enumerate(params.label_word_tasks)
        },
        methods={
            method: dict(
                zip(params.method_tasks, map(pd.read_parquet, inputs[method]), strict=True)
            )
            for method in params.methods
        },
        task_types=params.task_types,
        accuracies=([read_json(path) for path in inputs.prompt_metrics], top_neurons),
        held_out=held_out_panels(top_neurons),
        settings=BootstrapSettings(
            resamples=params.resamples,
            alpha=params.alpha,
            seed=params.seed,
            min_runs=params.min_runs,
        ),
        primary=params.primary,
    )
    write_frame(
        snakemake.output.csv,
        snakemake.output.md,
        table,
        "Findings: paper A's claims of sections 4-5 on this run (95% hierarchical bootstrap "
        "intervals, verdicts Holm-adjusted)",
    )
