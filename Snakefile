"""Neuron-level analysis of Transformer skills: reproduces paper A (skill neurons) and paper B
(task-specific neurons). See README.md; every rule lives in workflow/rules/."""

from snakemake.utils import min_version
from skillneurons.config import validate_config

min_version("9.0")


configfile: "config.yaml"


# Validate before any job runs: unknown keys, wrong values and unknown tasks fail here.
config.update(validate_config(config))


# `snakemake --report results/report.html`: every declared figure and table, the config.
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"


# Every wildcard's values, in one place (a rule's own constraints narrow them).
wildcard_constraints:
    model=names_regex(PLAN.models),
    task=names_regex(PLAN.tasks),
    split="train|dev|test",
    subtask="[a-z_]+",
    trial=r"\d+",
    trials=r"\d+-\d+",
    draw=r"\d+",
    variant="draw|control",
    method=names_regex(PLAN.tuning_methods),
    group="cls|gen",
    pair="(cls|gen)-(cls|gen)",
    trained=f"group|{names_regex(PLAN.train_tasks + PLAN.generation_train)}",
    q=names_regex(PLAN.controlled),
    order=names_regex(PLAN.continual_orders),


include: "workflow/rules/shared/data.smk"
include: "workflow/rules/shared/prompts.smk"
include: "workflow/rules/shared/activations.smk"
include: "workflow/rules/shared/rankings.smk"
include: "workflow/rules/paper_a/skill_neurons.smk"
include: "workflow/rules/paper_a/perturbation.smk"
include: "workflow/rules/paper_a/word_selectivity.smk"
include: "workflow/rules/paper_a/tuning_methods.smk"
include: "workflow/rules/paper_a/pruning.smk"
include: "workflow/rules/paper_a/transfer.smk"
include: "workflow/rules/paper_a/findings.smk"
include: "workflow/rules/paper_a/ablation.smk"
include: "workflow/rules/paper_a/targets.smk"
include: "workflow/rules/paper_b/neurons.smk"
include: "workflow/rules/paper_b/generation.smk"
include: "workflow/rules/paper_b/generalization.smk"
include: "workflow/rules/paper_b/continual.smk"
include: "workflow/rules/paper_b/findings.smk"
include: "workflow/rules/paper_b/targets.smk"
include: "workflow/rules/shared/docs.smk"
include: "workflow/rules/shared/explorer.smk"
include: "workflow/rules/shared/verdicts.smk"


# Every split and ranking, every figure and table of the papers' registries, each
# model's neuron explorer and results page (docs/results/{model}.md).
rule all:
    default_target: True
    input:
        PLAN.all_targets(),
        expand("docs/results/{model}.md", model=config["models"]),
