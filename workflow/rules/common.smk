"""Config lookups, wildcard constraints and input functions shared by every rule file."""

from skillneurons.paper_a.controls import CONTROLS, DEFAULT_HARD_PROMPTS, TABLE_SETTINGS
from skillneurons.models.specs import resolve_models
from skillneurons.data.tasks import resolve_tasks
from skillneurons.models.label_words import default_label_words

TASKS = resolve_tasks(config["tasks"], config["task_definitions"])
SPLITS = ["train", "dev", "test"]


def names_regex(names):
    """A regex matching exactly the given names (or nothing when there are none)."""
    return "|".join(sorted(names)) if names else "(?!x)x"


def tasks_from(source):
    return [name for name, spec in TASKS.items() if spec.source == source]


MODELS = resolve_models(config["models"], config["model_definitions"])
TRIALS = list(range(config["prompt_tuning"]["trials"]))
CONTROL_TRIALS = TRIALS[: config["controls"]["trials"]]


def first_task(condition):
    return next((name for name, spec in TASKS.items() if condition(spec)), None)


# Tasks drawn in single-task figures: A-F1 uses a binary sentiment task (paper: SST-2),
# A-F2 a three-way inference task (paper: MNLI); other tasks stand in when absent.
FIGURE_TASKS = {
    "histogram": first_task(lambda s: s.type == "sentiment" and s.num_labels == 2)
    or first_task(lambda s: s.num_labels == 2),
    "scatter": first_task(lambda s: s.type == "inference" and s.subtasks)
    or first_task(lambda s: bool(s.subtasks)),
}


def subtask_files(task, split):
    """The split files of a task's binary subtasks (none for binary tasks)."""
    return [
        f"data/splits/{task}/subtasks/{sub.name}/{split}.parquet"
        for sub in TASKS[task].subtasks
    ]


def trial_files(wildcards, pattern):
    """results/{model}/<pattern> for every trial of one model and task."""
    return expand(
        f"results/{{model}}/{pattern}",
        model=wildcards.model,
        task=wildcards.task,
        trial=TRIALS,
    )


def task_trial_files(model, pattern):
    """results/{model}/<pattern> for every task and trial of one model."""
    return expand(
        f"results/{{model}}/{pattern}", model=model, task=list(TASKS), trial=TRIALS
    )


def task_files(wildcards, pattern):
    """results/{model}/<pattern> for every task of one model."""
    return expand(
        f"results/{{model}}/{pattern}", model=wildcards.model, task=list(TASKS)
    )


def control_result_files(wildcards):
    """Table A-T3's inputs: the top-neuron results of every setting, task and trial."""
    files = {
        control: expand(
            "results/{model}/skill_neurons/{control}/{task}/trial{trial}.json",
            model=wildcards.model,
            control=control,
            task=list(TASKS),
            trial=CONTROL_TRIALS,
        )
        for control in CONTROLS
    }
    files["tuned"] = expand(
        "results/{model}/skill_neurons/tuned/{task}.json",
        model=wildcards.model,
        task=list(TASKS),
    )
    return files


def hard_prompt(task):
    """Table A-T3's hand-written prompt of a task (config hard_prompts, else by type)."""
    return config["hard_prompts"].get(task, DEFAULT_HARD_PROMPTS[TASKS[task].type])


def split_files():
    """Every split of every task, and every split of every binary subtask."""
    files = expand("data/splits/{task}/{split}.parquet", task=list(TASKS), split=SPLITS)
    for name, spec in TASKS.items():
        files += expand(
            "data/splits/{task}/subtasks/{subtask}/{split}.parquet",
            task=name,
            subtask=[sub.name for sub in spec.subtasks],
            split=SPLITS,
        )
    return files


def label_words(task):
    """The verbalizer's label words of a task (config label_words, else paper A's)."""
    words = config["label_words"].get(task)
    return list(words) if words else list(default_label_words(TASKS[task].num_labels))


def prompt_tuning_metrics(model):
    return expand(
        "results/{model}/prompt_tuning/{task}/trial{trial}/metrics.json",
        model=model,
        task=list(TASKS),
        trial=TRIALS,
    )


def task_subset(section):
    """The tasks of config ``section``'s ``tasks`` key (null: every configured task)."""
    chosen = config[section]["tasks"]
    tasks = list(TASKS) if chosen is None else list(chosen)
    unknown = sorted(set(tasks) - set(TASKS))
    if unknown:
        raise ValueError(
            f"{section}.tasks {unknown} are not among the configured tasks {list(TASKS)}"
        )
    return tasks


def random_words_files(model, pattern, tasks, draws, trials=(None,)):
    """results/{model}/random_label_words/draw{d}/<pattern> by task, then draw, then
    trial (paper A, section 4.4)."""
    return [
        f"results/{model}/random_label_words/draw{draw}/"
        + pattern.format(task=task, trial=trial)
        for task in tasks
        for draw in draws
        for trial in trials
    ]


def tuning_curves(model, method, tasks):
    """Per-task perturbation tables of one tuning method's models (paper A, section 5)."""
    return expand(
        "results/{model}/tuning_methods/{method}/perturbation/{task}.parquet",
        model=model,
        method=method,
        task=tasks,
    )


def findings_inputs(wildcards):
    """The tables behind the claims; §4.4 and §5 only when the config runs them."""
    tables = f"results/{wildcards.model}/tables"
    inputs = {
        "importance": f"{tables}/A-F6_summary.csv",
        "correlation": f"{tables}/A-F5.csv",
        "controls": f"{tables}/A-T3.csv",
        "methods": [f"{tables}/A-F8_{method}_summary.csv" for method in TUNING_METHODS],
    }
    if RANDOM_WORDS_TASKS:
        inputs["label_words"] = f"{tables}/A-S4.4.csv"
    return inputs


# Each stage's rule file appends a function returning its final targets.
STAGE_TARGETS = []


def final_outputs(wildcards=None):
    """Targets of the default target "all": every output of the pipeline."""
    tables = ["A-T1_prompt_tuning", "A-T1", "A-T3"]
    figures = ["A-F3_F9", "A-F10"]
    figures += ["A-F1"] if FIGURE_TASKS["histogram"] else []
    figures += ["A-F2"] if FIGURE_TASKS["scatter"] else []
    models = list(MODELS)
    return (
        split_files()
        + expand(
            "results/{model}/rankings/{task}.parquet", model=models, task=list(TASKS)
        )
        + expand(
            "results/{model}/tables/{table}.{ext}",
            model=models,
            table=tables,
            ext=["csv", "md"],
        )
        + expand(
            "results/{model}/figures/{figure}.{ext}",
            model=models,
            figure=figures,
            ext=["png", "pdf"],
        )
        + [target for stage in STAGE_TARGETS for target in stage()]
    )
