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


# Every wildcard's values, in one place (a rule's own constraints narrow them). A task
# family of paper B is {family}: part 1's paths spell it in full, §5's abbreviate it
# (skillneurons.plan.FAMILIES).
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
    family=names_regex([*FAMILIES, *FAMILIES.values()]),
    pair=f"({names_regex(FAMILIES.values())})-({names_regex(FAMILIES.values())})",
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


# Every rule runs in the project's one conda environment (envs/skillneurons.yaml, used
# with --software-deployment-method conda), given here once rather than in each rule; the
# path is relative to the rule's file (workflow/rules/<part>/), as a conda: directive's.
# (Snakemake's global `conda:` directive is another thing: it installs an environment
# into Snakemake's own process and gives no rule one.)
for defined in workflow.rules:
    if not defined.norun:
        defined.conda_env = "../../../envs/skillneurons.yaml"


# Every split and ranking, every figure and table of the papers' registries, each
# model's neuron explorer, verdict summary and results page (docs/results/{model}.md).
rule all:
    default_target: True
    input:
        expand(rules.split.output, task=PLAN.tasks),
        expand(rules.subtask_split.output, zip, **PLAN.subtask_wildcards()),
        expand(rules.rank_neurons.output.ranking, model=PLAN.models, task=PLAN.tasks),
        PLAN.paper_a_targets(),
        PLAN.paper_b_targets(),
        expand(rules.explorer.output, model=PLAN.models),
        expand(rules.verdicts.output, model=PLAN.models),
        expand(rules.results_pages.output, model=PLAN.models),
