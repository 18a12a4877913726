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


def random_words_files(model, pattern, tasks, draws, trials=(None,), variant="draw"):
    """results/{model}/random_label_words/{variant}{d}/<pattern> by task, then draw, then
    trial (paper A, section 4.4; variant draw: random label words, control: the
    configured ones with the draw's seeds)."""
    return [
        f"results/{model}/random_label_words/{variant}{draw}/"
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
    """The per-sample results behind the claims: perturbation files, rankings, the
    controls' top neurons; §4.4 and §5 only when the config runs them."""
    inputs = {
        "perturbation": task_files(wildcards, "perturbation/{task}.parquet"),
        "rankings": task_files(wildcards, "rankings/{task}.parquet"),
        **{
            control: expand(
                "results/{model}/skill_neurons/{control}/{task}/trial{trial}.json",
                model=wildcards.model,
                control=control,
                task=list(TASKS),
                trial=CONTROL_TRIALS,
            )
            for control in ("random_prompt", "random_model")
        },
        **{
            method: tuning_curves(wildcards.model, method, TUNING_TASKS)
            for method in TUNING_METHODS
        },
    }
    if RANDOM_WORDS_TASKS:
        inputs["label_words"] = random_words_files(
            wildcards.model,
            "rankings/{task}.parquet",
            RANDOM_WORDS_TASKS,
            RANDOM_WORDS_DRAWS,
        )
    return inputs
