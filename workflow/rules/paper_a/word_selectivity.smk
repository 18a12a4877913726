"""Skill neurons are not from word selectivity (paper A, §4.4): words related to each
task's top neuron (Tables A-T2, A-T6), and the agreement of neuron orders found with
random label words (prompt tuning, activations and ranking rerun per draw)."""


wildcard_constraints:
    draw=r"\d+",
    variant="draw|control",


from skillneurons.paper_a.registry import PAPER_A

RANDOM_WORDS = config["random_label_words"]
# null: every configured task; []: the experiment is off.
RANDOM_WORDS_TASKS = task_subset("random_label_words")
RANDOM_WORDS_DRAWS = list(range(RANDOM_WORDS["draws"]))
RANDOM_WORDS_TRIALS = list(range(RANDOM_WORDS["trials"]))
# variant draw: random label words of draw d; control: the configured label words with
# draw d's seeds (how much the orders move with the seed alone).
RANDOM_WORDS_DIR = "results/{model}/random_label_words/{variant}{draw}"


# Tables and figures from finished results: run on the submitting host under a
# cluster executor.
localrules:
    random_label_words_table,


rule word_selectivity:
    input:
        model=model_files,
        rankings=expand("results/{{model}}/rankings/{task}.parquet", task=list(TASKS)),
        prompts=expand(
            "results/{{model}}/prompt_tuning/{task}/trial{trial}/prompt.safetensors",
            task=list(TASKS),
            trial=config["word_selectivity"]["trial"],
        ),
        train=expand("data/splits/{task}/train.parquet", task=list(TASKS)),
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
        model=lambda w: MODELS[w.model],
        tasks=list(TASKS),
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
        prompt=f"{RANDOM_WORDS_DIR}/prompt_tuning/{{task}}/trial{{trial}}/prompt.safetensors",
        metrics=f"{RANDOM_WORDS_DIR}/prompt_tuning/{{task}}/trial{{trial}}/metrics.json",
    log:
        "logs/{model}/random_label_words/{variant}{draw}/prompt_tuning/{task}/trial{trial}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=lambda w: MODELS[w.model],
        label_words=lambda w: label_words(w.task) if w.variant == "control" else None,
        # Draw d of whole words from the vocabulary (skillneurons.paper_a.label_word_sampling).
        random_words=lambda w: (
            {
                "num_labels": TASKS[w.task].num_labels,
                "seed": config["seed"],
                "draw": int(w.draw),
            }
            if w.variant == "draw"
            else None
        ),
        settings=pick("prompt_tuning", PROMPT_TUNING_KEYS),
        # Each draw its own prompt-init and data-order seed, shared with its control.
        seed=lambda w: config["seed"] + 1000 * (int(w.draw) + 1) + int(w.trial),
    script:
        "../../scripts/shared/prompt_tuning.py"


use rule dump_activations as dump_activations_random_words with:
    input:
        model=model_files,
        prompt=f"{RANDOM_WORDS_DIR}/prompt_tuning/{{task}}/trial{{trial}}/prompt.safetensors",
        train="data/splits/{task}/train.parquet",
        dev="data/splits/{task}/dev.parquet",
        test="data/splits/{task}/test.parquet",
    output:
        baseline=f"{RANDOM_WORDS_DIR}/activations/{{task}}/trial{{trial}}/baseline.safetensors",
        dev=f"{RANDOM_WORDS_DIR}/activations/{{task}}/trial{{trial}}/dev.parquet",
        test=f"{RANDOM_WORDS_DIR}/activations/{{task}}/trial{{trial}}/test.parquet",
        dev_input=f"{RANDOM_WORDS_DIR}/activations/{{task}}/trial{{trial}}/dev_input.parquet",
    log:
        "logs/{model}/random_label_words/{variant}{draw}/activations/{task}/trial{trial}.log",


use rule rank_neurons as rank_neurons_random_words with:
    input:
        dev="data/splits/{task}/dev.parquet",
        subtasks=lambda w: subtask_files(w.task, "dev"),
        baselines=lambda w: random_words_files(
            w.model,
            "activations/{task}/trial{trial}/baseline.safetensors",
            [w.task],
            [w.draw],
            RANDOM_WORDS_TRIALS,
            w.variant,
        ),
        dev_dumps=lambda w: random_words_files(
            w.model,
            "activations/{task}/trial{trial}/dev.parquet",
            [w.task],
            [w.draw],
            RANDOM_WORDS_TRIALS,
            w.variant,
        ),
        dev_input_dumps=lambda w: random_words_files(
            w.model,
            "activations/{task}/trial{trial}/dev_input.parquet",
            [w.task],
            [w.draw],
            RANDOM_WORDS_TRIALS,
            w.variant,
        ),
        test_dumps=lambda w: random_words_files(
            w.model,
            "activations/{task}/trial{trial}/test.parquet",
            [w.task],
            [w.draw],
            RANDOM_WORDS_TRIALS,
            w.variant,
        ),
    output:
        ranking=f"{RANDOM_WORDS_DIR}/rankings/{{task}}.parquet",
        predictivity=f"{RANDOM_WORDS_DIR}/predictivity/{{task}}.safetensors",
        top_neurons=f"{RANDOM_WORDS_DIR}/skill_neurons/{{task}}.json",
    log:
        "logs/{model}/random_label_words/{variant}{draw}/rankings/{task}.log",


rule random_label_words_table:
    input:
        rankings=lambda w: random_words_files(
            w.model, "rankings/{task}.parquet", RANDOM_WORDS_TASKS, RANDOM_WORDS_DRAWS
        ),
        metrics=lambda w: random_words_files(
            w.model,
            "prompt_tuning/{task}/trial{trial}/metrics.json",
            RANDOM_WORDS_TASKS,
            RANDOM_WORDS_DRAWS,
            RANDOM_WORDS_TRIALS,
        ),
        controls=lambda w: random_words_files(
            w.model,
            "rankings/{task}.parquet",
            RANDOM_WORDS_TASKS,
            RANDOM_WORDS_DRAWS,
            variant="control",
        ),
        reference=expand(
            "results/{{model}}/rankings/{task}.parquet", task=RANDOM_WORDS_TASKS
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
        tasks=RANDOM_WORDS_TASKS,
        draws=len(RANDOM_WORDS_DRAWS),
        title="A-S4.4: Spearman correlation of neuron predictivity orders found with "
        "random label words (paper: 0.87)",
    script:
        "../../scripts/paper_a/random_label_words_table.py"
