"""Paper B, §6 and appendix A.2: neuron-level continual fine-tuning (NCFT, W-NCFT)
against sequential full (SeqFT) and LoRA (SeqLoRA) and per-task fine-tuning, over the
orders of paper_b.continual (B-T5, B-F4), each training once per run (paper_b.runs)."""

from skillneurons.paper_b.registry import PAPER_B


localrules:
    continual_tables,


rule continual_training:
    input:
        model=model_files,
        splits=lambda w: PLAN.task_split_files(PLAN.continual_orders[w.order]),
    output:
        results="results/{model}/paper_b/continual/run{run}/{order}/{method}.parquet",
        metrics="results/{model}/paper_b/continual/run{run}/{order}/{method}.json",
    log:
        "logs/{model}/paper_b/continual/run{run}/{order}/{method}.log",
    wildcard_constraints:
        method=names_regex(PLAN.continual_methods),
        run=r"\d+",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=240,
    params:
        model=lambda w: PLAN.models[w.model],
        order=lambda w: PLAN.continual_orders[w.order],
        label_words=lambda w: {
            t: label_words(t) for t in PLAN.continual_orders[w.order]
        },
        instructions=lambda w: PLAN.instructions(PLAN.continual_orders[w.order]),
        max_length=config["paper_b"]["max_length"],
        # the method's training section of paper_b.continual
        training=lambda w: config["paper_b"]["continual"][
            {"seqft": "training", "seqlora": "lora", "ncft": "neuron_training"}[
                w.method
            ]
        ],
        freeze_embeddings=config["paper_b"]["continual"]["training"][
            "freeze_embeddings"
        ],
        fraction=config["paper_b"]["fraction"],
        relevance=config["paper_b"]["relevance"],
        attribution_samples=config["paper_b"]["attribution_samples"],
        feature_samples=config["paper_b"]["continual"]["feature_samples"],
        temperature=config["paper_b"]["continual"]["temperature"],
        combine=config["paper_b"]["continual"]["combine"],
        batch_size=config["paper_b"]["batch_size"],
        output_only=config["paper_b"]["parameters"] == "output_only",
        seed=lambda w: PLAN.run_seed(w.run),  # run r: seed + r
    script:
        "../../scripts/paper_b/continual_training.py"


rule per_task_training:
    input:
        model=model_files,
        splits=lambda w: PLAN.task_split_files([w.task]),
    output:
        results="results/{model}/paper_b/continual/run{run}/per_task/{task}.parquet",
        metrics="results/{model}/paper_b/continual/run{run}/per_task/{task}.json",
    log:
        "logs/{model}/paper_b/continual/run{run}/per_task/{task}.log",
    wildcard_constraints:
        run=r"\d+",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        model=lambda w: PLAN.models[w.model],
        label_words=lambda w: {w.task: label_words(w.task)},
        instructions=lambda w: PLAN.instructions([w.task]),
        max_length=config["paper_b"]["max_length"],
        training=config["paper_b"]["continual"]["training"],
        batch_size=config["paper_b"]["batch_size"],
        seed=lambda w: PLAN.run_seed(w.run),  # run r: seed + r
    script:
        "../../scripts/paper_b/per_task_training.py"


rule continual_tables:
    input:
        unpack(lambda w: PLAN.continual_files(w.model)),
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
        orders=list(PLAN.continual_orders),
        title="B-T5: continual learning, CL (Eq. 4, %) per order and method",
        matrix_title="B-T5 matrices: accuracy a_ij (%) of task i after stage j",
        forgetting_title="B-F4: FG_j (Eq. 5, % of per-task FT) after each stage",
        intervals=PLAN.intervals,
    script:
        "../../scripts/paper_b/continual_tables.py"
