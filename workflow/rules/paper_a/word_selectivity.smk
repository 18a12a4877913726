"""Skill neurons are not from word selectivity (paper A, §4.4): words related to each
task's top neuron (Tables A-T2, A-T6), and the agreement of neuron orders found with
random label words (prompt tuning, activations and ranking rerun per draw)."""

from skillneurons.paper_a.registry import PAPER_A

# Outputs under results/{model}/random_label_words/{variant}{draw}/: variant draw holds
# random label words of draw d; control the configured label words with draw d's seeds
# (how much the orders move with the seed alone): its ranking from the main
# prompt-tuning trials with those seeds where they exist, else from its own training.


# Tables and figures from finished results: run on the submitting host under a
# cluster executor.
localrules:
    random_label_words_table,
    prompt_tuning_random_words_trial,


rule word_selectivity:
    input:
        model=model_files,
        rankings=expand(
            "results/{{model}}/rankings/{task}.parquet", task=list(PLAN.tasks)
        ),
        prompts=expand(
            "results/{{model}}/prompt_tuning/{task}/trial{trial}/prompt.safetensors",
            task=list(PLAN.tasks),
            trial=config["word_selectivity"]["trial"],
        ),
        train=expand("data/splits/{task}/train.parquet", task=list(PLAN.tasks)),
    output:
        **paper_outputs(PAPER_A, "word_selectivity"),
        words="results/{model}/word_selectivity.parquet",
    log:
        "logs/{model}/word_selectivity.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        model=lambda w: PLAN.models[w.model],
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
        train="data/splits/{task}/train.parquet",
        dev="data/splits/{task}/dev.parquet",
        test="data/splits/{task}/test.parquet",
    output:
        directory(
            "results/{model}/random_label_words/{variant}{draw}/prompt_tuning/{task}/passes/trials{trials}"
        ),
    log:
        "logs/{model}/random_label_words/{variant}{draw}/prompt_tuning/{task}/trials{trials}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=lambda w: PLAN.models[w.model],
        label_words=lambda w: label_words(w.task) if w.variant == "control" else None,
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
        # what the job reads of the prompt_tuning section (not trials)
        settings=pick(
            "prompt_tuning",
            [
                "prompt_length",
                "init_std",
                "init",
                "learning_rate",
                "batch_size",
                "eval_batch_size",
                "max_steps",
                "eval_every",
                "patience",
                "max_length",
            ],
        ),
        # A draw's seeds, shared with its seed-only control (draw d's first trial: main
        # trial d's, which is the control where a draw has one trial); a pass's trials
        # trained together (as rule prompt_tuning).
        trials=lambda w: pass_trials(w.trials),
        seeds=lambda w: [
            config["seed"] + PLAN.random_words_seed_offset(int(w.draw), trial)
            for trial in pass_trials(w.trials)
        ],
    script:
        "../../scripts/shared/prompt_tuning.py"


# One trial's files from its pass (as rule prompt_tuning_trial).
rule prompt_tuning_random_words_trial:
    input:
        lambda w: f"results/{w.model}/random_label_words/{w.variant}{w.draw}/prompt_tuning/{w.task}/passes/trials{PLAN.random_words_pass(int(w.trial))}",
    output:
        prompt="results/{model}/random_label_words/{variant}{draw}/prompt_tuning/{task}/trial{trial}/prompt.safetensors",
        metrics="results/{model}/random_label_words/{variant}{draw}/prompt_tuning/{task}/trial{trial}/metrics.json",
    log:
        "logs/{model}/random_label_words/{variant}{draw}/prompt_tuning/{task}/trial{trial}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    shell:
        "cp {input}/trial{wildcards.trial}/prompt.safetensors {output.prompt} 2> {log} && "
        "cp {input}/trial{wildcards.trial}/metrics.json {output.metrics} 2>> {log}"


use rule dump_activations as dump_activations_random_words with:
    input:
        model=model_files,
        prompts=expand(
            "results/{{model}}/random_label_words/{{variant}}{{draw}}/prompt_tuning/{{task}}/trial{trial}/prompt.safetensors",
            trial=PLAN.random_words_trials,
        ),
        train="data/splits/{task}/train.parquet",
        dev="data/splits/{task}/dev.parquet",
        test="data/splits/{task}/test.parquet",
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
        runtime=lambda w: 60 * len(PLAN.random_words_trials),
    params:
        trials=PLAN.random_words_trials,


use rule rank_neurons as rank_neurons_random_words with:
    input:
        dev="data/splits/{task}/dev.parquet",
        subtasks=lambda w: PLAN.subtask_files(w.task, "dev"),
        test="data/splits/{task}/test.parquet",
        test_subtasks=lambda w: PLAN.subtask_files(w.task, "test"),
        # a seed-only control made of main trials reads their dumps (nothing retrained)
        baselines=lambda w: PLAN.random_words_dumps(
            w.model, "baseline.safetensors", w.task, w.variant, int(w.draw)
        ),
        dev_dumps=lambda w: PLAN.random_words_dumps(
            w.model, "dev.parquet", w.task, w.variant, int(w.draw)
        ),
        dev_input_dumps=lambda w: PLAN.random_words_dumps(
            w.model, "dev_input.parquet", w.task, w.variant, int(w.draw)
        ),
        test_dumps=lambda w: PLAN.random_words_dumps(
            w.model, "test.parquet", w.task, w.variant, int(w.draw)
        ),
        test_input_dumps=lambda w: PLAN.random_words_dumps(
            w.model, "test_input.parquet", w.task, w.variant, int(w.draw)
        ),
    output:
        ranking="results/{model}/random_label_words/{variant}{draw}/rankings/{task}.parquet",
        predictivity="results/{model}/random_label_words/{variant}{draw}/predictivity/{task}.safetensors",
        top_neurons="results/{model}/random_label_words/{variant}{draw}/skill_neurons/{task}.json",
    log:
        "logs/{model}/random_label_words/{variant}{draw}/rankings/{task}.log",


# §4.4's noise floor: the same prompts' orders on two halves of the dev split.
rule label_word_noise_floor:
    input:
        dev="data/splits/{task}/dev.parquet",
        subtasks=lambda w: PLAN.subtask_files(w.task, "dev"),
        baselines=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/baseline.safetensors",
            trial=PLAN.trials,
        ),
        dev_dumps=expand(
            "results/{{model}}/activations/{{task}}/trial{trial}/dev.parquet",
            trial=PLAN.trials,
        ),
    output:
        "results/{model}/random_label_words/noise_floor/{task}.json",
    log:
        "logs/{model}/random_label_words/noise_floor/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
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
            "results/{{model}}/random_label_words/noise_floor/{task}.json",
            task=PLAN.random_words_tasks,
        ),
        rankings=lambda w: PLAN.random_words_files(
            w.model,
            "rankings/{task}.parquet",
            PLAN.random_words_tasks,
            PLAN.random_words_draws,
        ),
        metrics=lambda w: PLAN.random_words_files(
            w.model,
            "prompt_tuning/{task}/trial{trial}/metrics.json",
            PLAN.random_words_tasks,
            PLAN.random_words_draws,
            PLAN.random_words_trials,
        ),
        controls=lambda w: PLAN.random_words_files(
            w.model,
            "rankings/{task}.parquet",
            PLAN.random_words_tasks,
            PLAN.random_words_draws,
            variant="control",
        ),
        reference=expand(
            "results/{{model}}/rankings/{task}.parquet", task=PLAN.random_words_tasks
        ),
    output:
        **paper_outputs(PAPER_A, "random_label_words_table"),
    log:
        "logs/{model}/tables/A-S4.4.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
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
