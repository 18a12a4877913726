"""Skill neurons are not from word selectivity (paper A, §4.4): words related to each
task's top neuron (Tables A-T2, A-T6), and the agreement of neuron orders found with
random label words (prompt tuning, activations and ranking rerun per draw).

Outputs under results/{model}/random_label_words/{variant}{draw}/: variant draw holds
random label words of draw d; control the configured label words with draw d's seeds
(how much the orders move with the seed alone): its ranking from the main prompt-tuning
trials with those seeds where they exist, else from its own training."""


# Tables and figures from finished results: run on the submitting host under a
# cluster executor.
localrules:
    random_label_words_table,
    prompt_tuning_random_words_trial,


rule word_selectivity:
    input:
        model=model_files,
        rankings=expand(rules.rank_neurons.output.ranking, task=PLAN.tasks, allow_missing=True),
        prompts=expand(
            rules.prompt_tuning_trial.output.prompt,
            task=PLAN.tasks,
            trial=config["word_selectivity"]["trial"],
            allow_missing=True,
        ),
        train=expand(rules.split.output.train, task=PLAN.tasks),
    output:
        cosine_csv=reported("results/{model}/tables/A-T2.csv"),
        cosine_md="results/{model}/tables/A-T2.md",
        activation_csv=reported("results/{model}/tables/A-T6.csv"),
        activation_md="results/{model}/tables/A-T6.md",
        words="results/{model}/word_selectivity.parquet",
    log:
        "logs/{model}/word_selectivity.log",
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=model_spec,
        tasks=list(PLAN.tasks),
        trial=config["word_selectivity"]["trial"],
        words=config["word_selectivity"]["words"],
        min_count=config["word_selectivity"]["min_count"],
        corpus_samples=config["word_selectivity"]["corpus_samples"],
        subset_seed=config["seed"],
        max_length=config["prompt_tuning"]["max_length"],
        batch_size=config["activations"]["batch_size"],
        titles={
            "cosine": "A-T2: tokens whose input embedding is most / least cosine-similar "
            "to the top skill neuron's input weight",
            "activation": "A-T6: tokens with the highest / lowest average activation of the "
            "top skill neuron over the task's training texts",
        },
    script:
        "../../scripts/paper_a/word_selectivity.py"


rule prompt_tuning_random_words:
    input:
        model=model_files,
        train=rules.split.output.train,
        dev=rules.split.output.dev,
        test=rules.split.output.test,
    output:
        directory(
            "results/{model}/random_label_words/{variant}{draw}/prompt_tuning/{task}/passes/trials{trials}"
        ),
    log:
        "logs/{model}/random_label_words/{variant}{draw}/prompt_tuning/{task}/trials{trials}.log",
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=model_spec,
        label_words=lambda w: (PLAN.label_words(w.task) if w.variant == "control" else None),
        # Draw d of whole words from the vocabulary (skillneurons.paper_a.label_word_sampling).
        random_words=lambda w: (
            {
                "num_labels": PLAN.tasks[w.task].num_labels,
                "seed": config["seed"],
                "draw": int(w.draw),
            }
            if w.variant == "draw"
            else None
        ),
        settings=PLAN.prompt_tuning_settings,
        # A draw's seeds, shared with its seed-only control (draw d's first trial: main
        # trial d's, which is the control where a draw has one trial); a pass's trials
        # trained together (as rule prompt_tuning).
        trials=pass_trials_of,
        seeds=lambda w: [
            config["seed"] + PLAN.random_words_seed_offset(int(w.draw), trial)
            for trial in pass_trials(w.trials)
        ],
    script:
        "../../scripts/shared/prompt_tuning.py"


# One trial's files from its pass (as rule prompt_tuning_trial).
rule prompt_tuning_random_words_trial:
    input:
        trained_random_words_pass,
    output:
        prompt="results/{model}/random_label_words/{variant}{draw}/prompt_tuning/{task}/trial{trial}/prompt.safetensors",
        metrics="results/{model}/random_label_words/{variant}{draw}/prompt_tuning/{task}/trial{trial}/metrics.json",
    log:
        "logs/{model}/random_label_words/{variant}{draw}/prompt_tuning/{task}/trial{trial}.log",
    shell:
        "cp {input}/trial{wildcards.trial}/prompt.safetensors {output.prompt} 2> {log} && "
        "cp {input}/trial{wildcards.trial}/metrics.json {output.metrics} 2>> {log}"


use rule dump_activations as dump_activations_random_words with:
    input:
        model=model_files,
        prompts=expand(
            rules.prompt_tuning_random_words_trial.output.prompt,
            trial=PLAN.random_words_trials,
            allow_missing=True,
        ),
        train=rules.split.output.train,
        dev=rules.split.output.dev,
        test=rules.split.output.test,
    output:
        baseline=expand(
            "results/{{model}}/random_label_words/{{variant}}{{draw}}/activations/{{task}}/trial{trial}/baseline.safetensors",
            trial=PLAN.random_words_trials,
        ),
        dev=expand(
            "results/{{model}}/random_label_words/{{variant}}{{draw}}/activations/{{task}}/trial{trial}/dev.parquet",
            trial=PLAN.random_words_trials,
        ),
        test=expand(
            "results/{{model}}/random_label_words/{{variant}}{{draw}}/activations/{{task}}/trial{trial}/test.parquet",
            trial=PLAN.random_words_trials,
        ),
        dev_input=expand(
            "results/{{model}}/random_label_words/{{variant}}{{draw}}/activations/{{task}}/trial{trial}/dev_input.parquet",
            trial=PLAN.random_words_trials,
        ),
        test_input=expand(
            "results/{{model}}/random_label_words/{{variant}}{{draw}}/activations/{{task}}/trial{trial}/test_input.parquet",
            trial=PLAN.random_words_trials,
        ),
    log:
        "logs/{model}/random_label_words/{variant}{draw}/activations/{task}.log",
    resources:
        mem_mb=6000,
        runtime=60 * len(PLAN.random_words_trials),
    params:
        trials=PLAN.random_words_trials,


use rule rank_neurons as rank_neurons_random_words with:
    input:
        dev=rules.split.output.dev,
        subtasks=subtask_splits("dev"),
        test=rules.split.output.test,
        test_subtasks=subtask_splits("test"),
        baselines=random_words_dumps("baseline"),
        dev_dumps=random_words_dumps("dev"),
        dev_input_dumps=random_words_dumps("dev_input"),
        test_dumps=random_words_dumps("test"),
        test_input_dumps=random_words_dumps("test_input"),
    output:
        ranking="results/{model}/random_label_words/{variant}{draw}/rankings/{task}.parquet",
        predictivity="results/{model}/random_label_words/{variant}{draw}/predictivity/{task}.safetensors",
        top_neurons="results/{model}/random_label_words/{variant}{draw}/skill_neurons/{task}.json",
    log:
        "logs/{model}/random_label_words/{variant}{draw}/rankings/{task}.log",


# §4.4's noise floor: the same prompts' orders on two halves of the dev split.
rule label_word_noise_floor:
    input:
        dev=rules.split.output.dev,
        subtasks=subtask_splits("dev"),
        baselines=rules.dump_activations.output.baseline,
        dev_dumps=rules.dump_activations.output.dev,
    output:
        "results/{model}/random_label_words/noise_floor/{task}.json",
    log:
        "logs/{model}/random_label_words/noise_floor/{task}.log",
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        # seeds the label-stratified split of the dev samples into halves
        seed=config["seed"],
    script:
        "../../scripts/paper_a/label_word_noise_floor.py"


rule random_label_words_table:
    input:
        noise_floor=expand(
            rules.label_word_noise_floor.output, task=PLAN.random_words_tasks, allow_missing=True
        ),
        rankings=expand(
            rules.rank_neurons_random_words.output.ranking,
            variant="draw",
            task=PLAN.random_words_tasks,
            draw=PLAN.random_words_draws,
            allow_missing=True,
        ),
        metrics=expand(
            rules.prompt_tuning_random_words_trial.output.metrics,
            variant="draw",
            task=PLAN.random_words_tasks,
            draw=PLAN.random_words_draws,
            trial=PLAN.random_words_trials,
            allow_missing=True,
        ),
        controls=expand(
            rules.rank_neurons_random_words.output.ranking,
            variant="control",
            task=PLAN.random_words_tasks,
            draw=PLAN.random_words_draws,
            allow_missing=True,
        ),
        reference=expand(
            rules.rank_neurons.output.ranking, task=PLAN.random_words_tasks, allow_missing=True
        ),
    output:
        csv=reported("results/{model}/tables/A-S4.4.csv"),
        md="results/{model}/tables/A-S4.4.md",
    log:
        "logs/{model}/tables/A-S4.4.log",
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        tasks=PLAN.random_words_tasks,
        draws=len(PLAN.random_words_draws),
        title="A-S4.4: Spearman correlation of neuron predictivity orders found with "
        "random label words (paper: 0.87)",
    script:
        "../../scripts/paper_a/random_label_words_table.py"
