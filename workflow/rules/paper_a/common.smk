"""Input functions of paper A's stages, by stage (rule files hold only rules and
constants, as `snakemake --lint` asks)."""

# skill_neurons.smk


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
    files["tuned"] = task_files(wildcards, "skill_neurons/tuned/{task}.json")
    return files


def hard_prompt(task):
    """Table A-T3's hand-written prompt of a task (config hard_prompts, else by type)."""
    return config["hard_prompts"].get(task, DEFAULT_HARD_PROMPTS[TASKS[task].type])


# word_selectivity.smk


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


# tuning_methods.smk


def tuning_curves(model, method, tasks):
    """Per-task perturbation tables of one tuning method's models (paper A, section 5)."""
    return expand(
        "results/{model}/tuning_methods/{method}/perturbation/{task}.parquet",
        model=model,
        method=method,
        task=tasks,
    )


# findings.smk


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
