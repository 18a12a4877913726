"""Paper B, §5 and appendices A.5-A.7: generalization and specialization through task
neurons (B-F2, B-F6, B-T8, B-T9..B-T11) and the similarity of task neurons' parameters
(B-F3, B-T4), on the classification group of paper_b.generalization and, on the causal
LMs of paper_b.generation.models, the generation group of paper_b.generation. These
paths abbreviate a task family ({family}: cls, gen; pairs cls-gen).

Every training runs once per run (paper_b.runs), run r with seed + r, and one job
computes every run of its condition: one process start in place of one per run; each
run's files are what its own job would write, run r from a freshly loaded model.
Changing paper_b.runs reruns the job as a whole (the earlier runs recomputed
identically), where one job per run would run only the new runs."""


localrules:
    proportion_tables,
    overlap_table,
    controlled_table,
    similarity_outputs,


rule proportion_training:
    input:
        model=model_files,
        splits=proportion_splits,
        neurons=group_training_neurons,
    output:
        results=expand(
            "results/{{model}}/paper_b/generalization/run{run}/{{family}}/proportions/{{trained}}.parquet",
            run=PLAN.paper_b_runs,
        ),
        metrics=expand(
            "results/{{model}}/paper_b/generalization/run{run}/{{family}}/proportions/{{trained}}.json",
            run=PLAN.paper_b_runs,
        ),
    log:
        "logs/{model}/paper_b/proportion_training/{family}/{trained}.log",
    wildcard_constraints:
        family=names_regex(FAMILIES.values()),
    resources:
        mem_mb=6000,
        runtime=240 * len(PLAN.paper_b_runs),
    params:
        model=model_spec,
        tasks=lambda w: PLAN.scorer_params(PLAN.proportion_tasks(w.model, w.family)),
        train_tasks=lambda w: PLAN.groups(w.model)[w.family][0],
        test_groups=lambda w: PLAN.proportion_test_groups(w.model),
        proportions=config["paper_b"]["generalization"]["proportions"],
        training=config["paper_b"]["generalization"]["training"],
        rate_share=config["paper_b"]["generalization"]["learning_rate_share"],
        output_only=config["paper_b"]["parameters"] == "output_only",
        runs=PLAN.paper_b_runs,
        seeds=PLAN.run_seeds,
    script:
        "../../scripts/paper_b/proportion_training.py"


rule controlled_overlap:
    input:
        model=model_files,
        splits=controlled_splits,
        neurons=controlled_neurons,
    output:
        results=expand(
            "results/{{model}}/paper_b/generalization/run{run}/{{pair}}/controlled/{{q}}.parquet",
            run=PLAN.paper_b_runs,
        ),
        metrics=expand(
            "results/{{model}}/paper_b/generalization/run{run}/{{pair}}/controlled/{{q}}.json",
            run=PLAN.paper_b_runs,
        ),
    log:
        "logs/{model}/paper_b/controlled_overlap/{pair}/{q}.log",
    resources:
        mem_mb=6000,
        runtime=240 * len(PLAN.paper_b_runs),
    params:
        model=model_spec,
        tasks=lambda w: PLAN.scorer_params(PLAN.controlled_tasks(w.model, w.pair)),
        train_tasks=lambda w: PLAN.controlled_groups(w.model, w.pair)[0],
        test_tasks=lambda w: PLAN.controlled_groups(w.model, w.pair)[1],
        proportion=lambda w: PLAN.controlled[w.q],
        shares=config["paper_b"]["generalization"]["controlled_shares"],
        training=config["paper_b"]["generalization"]["training"],
        rate_share=config["paper_b"]["generalization"]["learning_rate_share"],
        output_only=config["paper_b"]["parameters"] == "output_only",
        runs=PLAN.paper_b_runs,
        # run r: seed + r (its drawn sets too)
        seeds=PLAN.run_seeds,
    script:
        "../../scripts/paper_b/controlled_overlap.py"


rule similarity_model:
    input:
        model=model_files,
        splits=similarity_splits,
    output:
        similarities=expand(
            "results/{{model}}/paper_b/similarity/run{run}/{{task}}.parquet",
            run=PLAN.paper_b_runs,
        ),
        scores=expand(
            "results/{{model}}/paper_b/similarity/run{run}/{{task}}_scores.parquet",
            run=PLAN.paper_b_runs,
        ),
        metrics=expand(
            "results/{{model}}/paper_b/similarity/run{run}/{{task}}.json", run=PLAN.paper_b_runs
        ),
    log:
        "logs/{model}/paper_b/similarity_model/{task}.log",
    wildcard_constraints:
        task=names_regex(PLAN.train_tasks + PLAN.generation_train),
    resources:
        mem_mb=8000,
        runtime=240 * len(PLAN.paper_b_runs),
    params:
        model=model_spec,
        tasks=lambda w: PLAN.scorer_params([w.task, *PLAN.similarity_tasks(w.model)[1]]),
        test_tasks=lambda w: PLAN.similarity_tasks(w.model)[1],
        training=config["paper_b"]["generalization"]["model_training"],
        fraction=config["paper_b"]["fraction"],
        definitions=PLAN.similarities,
        relevance=config["paper_b"]["relevance"],
        attribution_samples=config["paper_b"]["attribution_samples"],
        batch_size=config["paper_b"]["batch_size"],
        runs=PLAN.paper_b_runs,
        seeds=PLAN.run_seeds,
    script:
        "../../scripts/paper_b/similarity_model.py"


rule proportion_tables:
    input:
        unpack(zero_shot_scores),
        group=group_sweeps,
        single=single_task_sweeps,
    output:
        group_csv="results/{model}/tables/B-F2.csv",
        group_md="results/{model}/tables/B-F2.md",
        group_png=reported("results/{model}/figures/B-F2.png"),
        group_pdf="results/{model}/figures/B-F2.pdf",
        single_csv="results/{model}/tables/B-F6.csv",
        single_md="results/{model}/tables/B-F6.md",
        single_png=reported("results/{model}/figures/B-F6.png"),
        single_pdf="results/{model}/figures/B-F6.pdf",
    log:
        "logs/{model}/figures/B-F2_F6.log",
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        group_title="B-F2: score (%: accuracy, ROUGE-L x100) vs share of task neurons "
        "trained, a group's training tasks together",
        single_title="B-F6: score (%: accuracy, ROUGE-L x100) vs share of task neurons "
        "trained, one model per training task",
        intervals=PLAN.intervals,
    script:
        "../../scripts/paper_b/proportion_tables.py"


rule overlap_table:
    input:
        unpack(group_task_neurons),
    output:
        csv=reported("results/{model}/tables/B-T8.csv"),
        md="results/{model}/tables/B-T8.md",
    log:
        "logs/{model}/tables/B-T8.log",
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        groups=model_groups,
        proportions=config["paper_b"]["generalization"]["overlap_proportions"],
        title="B-T8: overlap rate (%) of the training and test tasks' neurons (Eq. 13)",
    script:
        "../../scripts/paper_b/overlap_table.py"


rule controlled_table:
    input:
        controlled_sweeps,
    output:
        csv=reported("results/{model}/tables/B-T9.csv"),
        md="results/{model}/tables/B-T9.md",
    log:
        "logs/{model}/tables/B-T9.log",
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="B-T9..B-T11: out-of-domain score (%: accuracy, ROUGE-L x100) at a fixed "
        "share q of neurons trained, by the share of test-task neurons among them, per "
        "pair of groups (T9 cls-cls, T10 gen-gen, T11 gen-cls)",
    script:
        "../../scripts/paper_b/controlled_table.py"


rule similarity_outputs:
    input:
        similarities=similarities,
        scores=similarity_scores,
    output:
        layers_csv="results/{model}/tables/B-F3.csv",
        layers_md="results/{model}/tables/B-F3.md",
        png=reported("results/{model}/figures/B-F3.png"),
        pdf="results/{model}/figures/B-F3.pdf",
        csv=reported("results/{model}/tables/B-T4.csv"),
        md="results/{model}/tables/B-T4.md",
        points_csv="results/{model}/tables/B-T4_points.csv",
        points_md="results/{model}/tables/B-T4_points.md",
    log:
        "logs/{model}/figures/B-F3.log",
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        definition=config["paper_b"]["generalization"]["similarity"],
        groups=model_groups,
        intervals=PLAN.intervals,
        layers_title="B-F3: similarity of the training and test tasks' neuron "
        "parameters per layer (mean over the models)",
        title="B-T4: correlation of parameter similarity with out-of-domain score",
        points_title="B-T4 points: per model and test task, similarity (mean over layers) "
        "and score (%: accuracy, ROUGE-L x100)",
    script:
        "../../scripts/paper_b/similarity_outputs.py"
