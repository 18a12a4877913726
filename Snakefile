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


wildcard_constraints:
    model=names_regex(MODELS),
    task=names_regex(TASKS),
    split="train|dev|test",
    subtask="[a-z_]+",
    trial=r"\d+",


include: "workflow/rules/shared/common.smk"
include: "workflow/rules/shared/data.smk"
include: "workflow/rules/shared/prompts.smk"
include: "workflow/rules/shared/activations.smk"
include: "workflow/rules/shared/rankings.smk"
include: "workflow/rules/paper_a/common.smk"
include: "workflow/rules/paper_a/skill_neurons.smk"
include: "workflow/rules/paper_a/perturbation.smk"
include: "workflow/rules/paper_a/word_selectivity.smk"
include: "workflow/rules/paper_a/tuning_methods.smk"
include: "workflow/rules/paper_a/pruning.smk"
include: "workflow/rules/paper_a/transfer.smk"
include: "workflow/rules/paper_a/findings.smk"
include: "workflow/rules/paper_a/ablation.smk"
include: "workflow/rules/paper_a/targets.smk"
include: "workflow/rules/paper_b/common.smk"
include: "workflow/rules/paper_b/neurons.smk"
include: "workflow/rules/paper_b/generation.smk"
include: "workflow/rules/paper_b/generalization.smk"
include: "workflow/rules/paper_b/continual.smk"
include: "workflow/rules/paper_b/findings.smk"
include: "workflow/rules/paper_b/targets.smk"


# Every split and ranking, and every figure and table of the papers' registries.
rule all:
    default_target: True
    input:
        split_files(),
        expand("results/{model}/rankings/{task}.parquet", model=MODELS, task=TASKS),
        PAPER_A_TARGETS,
        PAPER_B_TARGETS,
