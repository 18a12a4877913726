"""What every stage needs: the configured tasks, models and trials, result paths over
them, and the helpers that give a rule its outputs (from the papers' figure registries)
and its params (only the keys of a config section that its job uses)."""

from pathlib import Path

from snakemake.logging import logger

from skillneurons.data.task_choice import task_subset as choose_tasks
from skillneurons.data.tasks import resolve_tasks
from skillneurons.models.label_words import task_label_words
from skillneurons.models.specs import gguf_models, prepared_directory, resolve_models
from skillneurons.reporting.registry import rule_files

TASKS = resolve_tasks(config["tasks"], config["task_definitions"])
TASK_TYPES = {name: spec.type for name, spec in TASKS.items()}
SPLITS = ["train", "dev", "test"]
MODELS = resolve_models(config["models"], config["model_definitions"])
# Models read from a GGUF file, converted once to data/models/{model} (prepare_model).
GGUF_MODELS = gguf_models(config["models"], config["model_definitions"])
TRIALS = list(range(config["prompt_tuning"]["trials"]))
REPORT_CAPTIONS = Path(workflow.basedir) / "workflow" / "report"
# The findings engine's settings (skillneurons.reporting.findings.BootstrapSettings),
# the same for every table of claims.
BOOTSTRAP = {
    "resamples": config["findings"]["bootstrap"],
    "alpha": config["findings"]["alpha"],
    "seed": config["seed"],
}


def names_regex(names):
    """A regex matching exactly the given names (or nothing when there are none)."""
    return "|".join(sorted(names)) if names else "(?!x)x"


def pick(section, keys):
    """The ``keys`` of config ``section``: what a rule's job reads of it, and nothing
    more, so that changing another key of the section reruns nothing."""
    return {key: config[section][key] for key in keys}


def first_task(condition):
    """The first configured task whose spec satisfies ``condition`` (None if none)."""
    return next((name for name, spec in TASKS.items() if condition(spec)), None)


def task_subset(section):
    """The tasks of config ``section``'s ``tasks`` key (skillneurons.data.task_choice:
    a list, null for every configured task, auto for a rule); auto is logged."""
    chosen = config[section]["tasks"]
    tasks = choose_tasks(section, chosen, TASK_TYPES)
    if chosen == "auto":
        logger.info(f"{section}.tasks: auto -> {tasks}")
    return tasks


def label_words(task):
    """The verbalizer's label words of a task (skillneurons.models.label_words)."""
    return list(task_label_words(TASKS[task], config["label_words"].get(task)))


def model_files(wildcards):
    """What a job loading model {model} needs on disk: the converted directory of a
    GGUF model (nothing for the others, which load from a package, folder or the Hub).
    """
    return (
        [prepared_directory(wildcards.model)] if wildcards.model in GGUF_MODELS else []
    )


def trial_files(wildcards, pattern):
    """results/{model}/<pattern> for every trial of one model and task."""
    return expand(
        f"results/{{model}}/{pattern}",
        model=wildcards.model,
        task=wildcards.task,
        trial=TRIALS,
    )


def task_files(wildcards, pattern):
    """results/{model}/<pattern> for every task of one model."""
    return expand(
        f"results/{{model}}/{pattern}", model=wildcards.model, task=list(TASKS)
    )


def task_trial_files(model, pattern):
    """results/{model}/<pattern> for every task and trial of one model."""
    return expand(
        f"results/{{model}}/{pattern}", model=model, task=list(TASKS), trial=TRIALS
    )


def paper_outputs(registry, rule):
    """A rule's outputs as its paper's figure registry lists them: every file under
    results/{model}/, the report's figures and tables with their caption and category.
    """
    outputs = {}
    for key, entry in rule_files(registry, rule).items():
        path = f"results/{{model}}/{entry.path}"
        if entry.caption is not None:
            caption = str(REPORT_CAPTIONS / f"{entry.caption}.rst")
            path = report(path, caption=caption, category=entry.category)
        outputs[key] = path
    return outputs
