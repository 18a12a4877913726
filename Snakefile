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


include: "workflow/rules/data.smk"
include: "workflow/rules/prompts.smk"
include: "workflow/rules/activations.smk"
include: "workflow/rules/neurons.smk"
include: "workflow/rules/pruning.smk"
include: "workflow/rules/transfer.smk"
include: "workflow/rules/perturbation.smk"
include: "workflow/rules/analysis.smk"
include: "workflow/rules/tuning_methods.smk"
include: "workflow/rules/findings.smk"


rule all:
    default_target: True
    input:
        final_outputs,
