"""Paper B, §6 and appendix A.2: neuron-level continual fine-tuning (NCFT, W-NCFT)
against sequential full (SeqFT) and LoRA (SeqLoRA) and per-task fine-tuning, over the
orders of paper_b.continual (B-T5, B-F4)."""

from skillneurons.paper_b.groups import continual_orders

CONTINUAL = PAPER_B_CONFIG["continual"]
CONTINUAL_ORDERS = continual_orders(PAPER_B_TASKS, CONTINUAL["orders"], list(TASKS))
CONTINUAL_ON = bool(CONTINUAL_ORDERS)
CONTINUAL_TASKS = list(dict.fromkeys(t for o in CONTINUAL_ORDERS.values() for t in o))
CONTINUAL_DIR = "results/{model}/paper_b/continual"
# One continual_training job per order and file: SeqFT, SeqLoRA, NCFT (with W-NCFT).
CONTINUAL_FILES = ("seqft", "seqlora", "ncft")
# Each file's training section of paper_b.continual.
CONTINUAL_TRAINING = {"seqft": "training", "seqlora": "lora", "ncft": "neuron_training"}


localrules:
    continual_tables,


wildcard_constraints:
    order=names_regex(list(CONTINUAL_ORDERS) or ["none"]),
    method="|".join(CONTINUAL_FILES),


rule continual_training:
    input:
        model=model_files,
        splits=lambda w: task_split_files(CONTINUAL_ORDERS[w.order]),
    output:
        results=f"{CONTINUAL_DIR}/{{order}}/{{method}}.parquet",
        metrics=f"{CONTINUAL_DIR}/{{order}}/{{method}}.json",
    log:
        "logs/{model}/paper_b/continual/{order}/{method}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=240,
    params:
        model=lambda w: MODELS[w.model],
        order=lambda w: CONTINUAL_ORDERS[w.order],
        label_words=lambda w: {t: label_words(t) for t in CONTINUAL_ORDERS[w.order]},
        instructions=lambda w: paper_b_instructions(CONTINUAL_ORDERS[w.order]),
        max_length=PAPER_B_CONFIG["max_length"],
        training=lambda w: CONTINUAL[CONTINUAL_TRAINING[w.method]],
        freeze_embeddings=CONTINUAL["training"]["freeze_embeddings"],
        fraction=PAPER_B_CONFIG["fraction"],
        relevance=RELEVANCE,
        feature_samples=CONTINUAL["feature_samples"],
        temperature=CONTINUAL["temperature"],
        combine=CONTINUAL["combine"],
        batch_size=PAPER_B_CONFIG["batch_size"],
        output_only=PAPER_B_CONFIG["parameters"] == "output_only",
        seed=config["seed"],
    script:
        "../../scripts/paper_b/continual_training.py"


rule per_task_training:
    input:
        model=model_files,
        splits=lambda w: task_split_files([w.task]),
    output:
        results=f"{CONTINUAL_DIR}/per_task/{{task}}.parquet",
        metrics=f"{CONTINUAL_DIR}/per_task/{{task}}.json",
    log:
        "logs/{model}/paper_b/continual/per_task/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=lambda w: MODELS[w.model],
        label_words=lambda w: {w.task: label_words(w.task)},
        instructions=lambda w: paper_b_instructions([w.task]),
        max_length=PAPER_B_CONFIG["max_length"],
        training=CONTINUAL["training"],
        batch_size=PAPER_B_CONFIG["batch_size"],
        seed=config["seed"],
    script:
        "../../scripts/paper_b/per_task_training.py"


rule continual_tables:
    input:
        trained=expand(
            "results/{{model}}/paper_b/continual/{order}/{method}.parquet",
            order=CONTINUAL_ORDERS,
            method=CONTINUAL_FILES,
        ),
        per_task=expand(
            "results/{{model}}/paper_b/continual/per_task/{task}.parquet",
            task=CONTINUAL_TASKS,
        ),
    output:
        **paper_outputs(PAPER_B, "continual_tables"),
    log:
        "logs/{model}/tables/B-T5_F4.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        orders=list(CONTINUAL_ORDERS),
        title="B-T5: continual learning, CL (Eq. 4, %) per order and method",
        matrix_title="B-T5 matrices: accuracy a_ij (%) of task i after stage j",
        forgetting_title="B-F4: FG_j (Eq. 5, % of per-task FT) after each stage",
    script:
        "../../scripts/paper_b/continual_tables.py"
