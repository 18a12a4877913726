"""Paper B, §6 and appendix A.2: neuron-level continual fine-tuning (NCFT, W-NCFT)
against sequential full (SeqFT) and LoRA (SeqLoRA) and per-task fine-tuning, over the
orders of paper_b.continual (B-T5, B-F4).

Each training runs once per run (paper_b.runs), and one job computes every run of its
condition: one process start in place of one per run; each run's files are what its own
job would write, run r from a freshly loaded model with seed + r. Changing paper_b.runs
reruns the job as a whole (the earlier runs recomputed identically), where one job per
run would run only the new runs."""


localrules:
    continual_tables,


rule continual_training:
    input:
        model=model_files,
        splits=lambda w: for_each(rules.split.output, task=PLAN.continual_orders[w.order]),
    output:
        results=expand(
            "results/{{model}}/paper_b/continual/run{run}/{{order}}/{{method}}.parquet",
            run=PLAN.paper_b_runs,
        ),
        metrics=expand(
            "results/{{model}}/paper_b/continual/run{run}/{{order}}/{{method}}.json",
            run=PLAN.paper_b_runs,
        ),
    log:
        "logs/{model}/paper_b/continual/{order}/{method}.log",
    wildcard_constraints:
        method=names_regex(PLAN.continual_methods),
    resources:
        mem_mb=6000,
        runtime=240 * len(PLAN.paper_b_runs),
    params:
        model=model_spec,
        order=lambda w: PLAN.continual_orders[w.order],
        label_words=lambda w: {
            task: PLAN.label_words(task) for task in PLAN.continual_orders[w.order]
        },
        instructions=lambda w: PLAN.instructions(PLAN.continual_orders[w.order]),
        max_length=config["paper_b"]["max_length"],
        # the method's training section of paper_b.continual
        training=lambda w: config["paper_b"]["continual"][
            {"seqft": "training", "seqlora": "lora", "ncft": "neuron_training"}[w.method]
        ],
        freeze_embeddings=config["paper_b"]["continual"]["training"]["freeze_embeddings"],
        fraction=config["paper_b"]["fraction"],
        relevance=config["paper_b"]["relevance"],
        attribution_samples=config["paper_b"]["attribution_samples"],
        feature_samples=config["paper_b"]["continual"]["feature_samples"],
        temperature=config["paper_b"]["continual"]["temperature"],
        combine=config["paper_b"]["continual"]["combine"],
        batch_size=config["paper_b"]["batch_size"],
        output_only=config["paper_b"]["parameters"] == "output_only",
        runs=PLAN.paper_b_runs,
        seeds=PLAN.run_seeds,
    script:
        "../../scripts/paper_b/continual_training.py"


rule per_task_training:
    input:
        model=model_files,
        splits=rules.split.output,
    output:
        results=expand(
            "results/{{model}}/paper_b/continual/run{run}/per_task/{{task}}.parquet",
            run=PLAN.paper_b_runs,
        ),
        metrics=expand(
            "results/{{model}}/paper_b/continual/run{run}/per_task/{{task}}.json",
            run=PLAN.paper_b_runs,
        ),
    log:
        "logs/{model}/paper_b/continual/per_task/{task}.log",
    resources:
        mem_mb=6000,
        runtime=120 * len(PLAN.paper_b_runs),
    params:
        model=model_spec,
        label_words=lambda w: {w.task: PLAN.label_words(w.task)},
        instructions=lambda w: PLAN.instructions([w.task]),
        max_length=config["paper_b"]["max_length"],
        training=config["paper_b"]["continual"]["training"],
        batch_size=config["paper_b"]["batch_size"],
        runs=PLAN.paper_b_runs,
        seeds=PLAN.run_seeds,
    script:
        "../../scripts/paper_b/per_task_training.py"


rule continual_tables:
    input:
        trained=continual_trained(),
        per_task=continual_per_task(),
    output:
        csv=reported("results/{model}/tables/B-T5.csv"),
        md="results/{model}/tables/B-T5.md",
        matrix_csv="results/{model}/tables/B-T5_matrix.csv",
        matrix_md="results/{model}/tables/B-T5_matrix.md",
        fg_csv="results/{model}/tables/B-F4.csv",
        fg_md="results/{model}/tables/B-F4.md",
        png=reported("results/{model}/figures/B-F4.png"),
        pdf="results/{model}/figures/B-F4.pdf",
    log:
        "logs/{model}/tables/B-T5_F4.log",
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
