"""What every stage needs: the plan of this configuration (skillneurons.plan: every
derived list, task choice and input path, computed from the validated config) and what
ties it to Snakemake: a rule's outputs from the papers' figure registries (with their
report captions) and input functions of the wildcards."""

from pathlib import Path

from snakemake.logging import logger

from skillneurons.plan import Plan, names_regex
from skillneurons.plan.passes import pass_trials
from skillneurons.reporting.registry import rule_files

PLAN = Plan(config)
for section, chosen in PLAN.auto_choices.items():
    logger.info(f"{section}.tasks: auto -> {chosen}")


def pick(section, keys):
    """The ``keys`` of config ``section`` that a job's settings read (the rule lists
    them), and nothing more, so that changing another key of the section reruns nothing.
    """
    return {key: config[section][key] for key in keys}


def label_words(task):
    """The verbalizer's label words of a task (skillneurons.plan.Plan.label_words)."""
    return PLAN.label_words(task)


def model_files(wildcards):
    """What a job loading model {model} needs on disk (Plan.model_files)."""
    return PLAN.model_files(wildcards.model)


def paper_outputs(registry, rule):
    """A rule's outputs as its paper's figure registry lists them: every file under
    results/{model}/, the report's figures and tables with their caption and category.
    """
    captions = Path(workflow.basedir) / "workflow" / "report"
    outputs = {}
    for key, entry in rule_files(registry, rule).items():
        path = f"results/{{model}}/{entry.path}"
        if entry.caption is not None:
            caption = str(captions / f"{entry.caption}.rst")
            path = report(path, caption=caption, category=entry.category)
        outputs[key] = path
    return outputs
