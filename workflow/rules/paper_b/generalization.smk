"""Paper B, §5 and appendices A.5-A.7: generalization and specialization through task
neurons (B-F2, B-F6, B-T8, B-T9..B-T11) and the similarity of task neurons' parameters
(B-F3, B-T4), on the classification group of paper_b.generalization and, on the causal
LMs of paper_b.generation.models, the generation group of paper_b.generation; every
training once per run (paper_b.runs), run r with seed + r."""

from skillneurons.paper_b.registry import PAPER_B


localrules:
    proportion_tables,
    overlap_table,
    controlled_table,
    similarity_outputs,


rule proportion_training:
    """One job computes every run (paper_b.runs) of the condition (issue 37: one process
    start in place of one per run; each run's files are what its own job wrote, run r
    from a freshly loaded model with seed + r). Changing paper_b.runs reruns the job as
    a whole (the earlier runs recomputed identically), where one job per run ran only
    the new runs."""
    input:
        model=model_files,
        splits=lambda w: PLAN.scored_split_files(
            PLAN.proportion_tasks(w.model, w.group)
        ),
        neurons=lambda w: [
            PLAN.task_neuron_file(w.model, task)
            for task in PLAN.groups(w.model)[w.group][0]
        ],
    output:
        results=expand(
            "results/{{model}}/paper_b/generalization/run{run}/{{group}}/proportions/{{trained}}.parquet",
            run=PLAN.paper_b_runs,
        ),
        metrics=expand(
            "results/{{model}}/paper_b/generalization/run{run}/{{group}}/proportions/{{trained}}.json",
            run=PLAN.paper_b_runs,
        ),
    log:
        "logs/{model}/paper_b/proportion_training/{group}/{trained}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=240 * len(PLAN.paper_b_runs),
    params:
        model=lambda w: PLAN.models[w.model],
        tasks=lambda w: PLAN.scorer_params(PLAN.proportion_tasks(w.model, w.group)),
        train_tasks=lambda w: PLAN.groups(w.model)[w.group][0],
        test_groups=lambda w: PLAN.proportion_test_groups(w.model),
        proportions=config["paper_b"]["generalization"]["proportions"],
        training=config["paper_b"]["generalization"]["training"],
        rate_share=config["paper_b"]["generalization"]["learning_rate_share"],
        output_only=config["paper_b"]["parameters"] == "output_only",
        runs=PLAN.paper_b_runs,
        # run r: seed + r
        seeds=[PLAN.run_seed(run) for run in PLAN.paper_b_runs],
    script:
        "../../scripts/paper_b/proportion_training.py"


rule controlled_overlap:
    """One job computes every run (paper_b.runs) of the condition (issue 37: one process
    start in place of one per run; each run's files are what its own job wrote, run r
    from a freshly loaded model with seed + r). Changing paper_b.runs reruns the job as
    a whole (the earlier runs recomputed identically), where one job per run ran only
    the new runs."""
    input:
        model=model_files,
        splits=lambda w: PLAN.scored_split_files(PLAN.controlled_tasks(w.model, w.pair)),
        neurons=lambda w: [
            PLAN.task_neuron_file(w.model, t)
            for t in PLAN.controlled_tasks(w.model, w.pair)
        ],
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
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=240 * len(PLAN.paper_b_runs),
    params:
        model=lambda w: PLAN.models[w.model],
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
        seeds=[PLAN.run_seed(run) for run in PLAN.paper_b_runs],
    script:
        "../../scripts/paper_b/controlled_overlap.py"


rule similarity_model:
    """One job computes every run (paper_b.runs) of the condition (issue 37: one process
    start in place of one per run; each run's files are what its own job wrote, run r
    from a freshly loaded model with seed + r). Changing paper_b.runs reruns the job as
    a whole (the earlier runs recomputed identically), where one job per run ran only
    the new runs."""
    input:
        model=model_files,
        splits=lambda w: PLAN.scored_split_files(
            [w.task, *PLAN.similarity_tasks(w.model)[1]]
        ),
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
            "results/{{model}}/paper_b/similarity/run{run}/{{task}}.json",
            run=PLAN.paper_b_runs,
        ),
    log:
        "logs/{model}/paper_b/similarity_model/{task}.log",
    wildcard_constraints:
        task=names_regex(PLAN.train_tasks + PLAN.generation_train),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        runtime=240 * len(PLAN.paper_b_runs),
    params:
        model=lambda w: PLAN.models[w.model],
        tasks=lambda w: PLAN.scorer_params([w.task, *PLAN.similarity_tasks(w.model)[1]]),
        test_tasks=lambda w: PLAN.similarity_tasks(w.model)[1],
        training=config["paper_b"]["generalization"]["model_training"],
        fraction=config["paper_b"]["fraction"],
        definitions=PLAN.similarities,
        relevance=config["paper_b"]["relevance"],
        attribution_samples=config["paper_b"]["attribution_samples"],
        batch_size=config["paper_b"]["batch_size"],
        runs=PLAN.paper_b_runs,
        # run r: seed + r
        seeds=[PLAN.run_seed(run) for run in PLAN.paper_b_runs],
    script:
        "../../scripts/paper_b/similarity_model.py"


rule proportion_tables:
    input:
        unpack(lambda w: PLAN.zero_shot_files(w.model)),
        group=lambda w: PLAN.generalization_files(w.model)["group"],
        single=lambda w: PLAN.generalization_files(w.model)["single"],
    output:
        **paper_outputs(PAPER_B, "proportion_tables"),
    log:
        "logs/{model}/figures/B-F2_F6.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
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
        unpack(lambda w: PLAN.group_neuron_files(w.model)),
    output:
        **paper_outputs(PAPER_B, "overlap_table"),
    log:
        "logs/{model}/tables/B-T8.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        groups=lambda w: PLAN.groups(w.model),
        proportions=config["paper_b"]["generalization"]["overlap_proportions"],
        title="B-T8: overlap rate (%) of the training and test tasks' neurons (Eq. 13)",
    script:
        "../../scripts/paper_b/overlap_table.py"


rule controlled_table:
    input:
        lambda w: PLAN.generalization_files(w.model)["controlled"],
    output:
        **paper_outputs(PAPER_B, "controlled_table"),
    log:
        "logs/{model}/tables/B-T9.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
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
        similarities=lambda w: PLAN.similarity_files(w.model)["similarities"],
        scores=lambda w: PLAN.similarity_files(w.model)["similarity_scores"],
    output:
        **paper_outputs(PAPER_B, "similarity_outputs"),
    log:
        "logs/{model}/figures/B-F3.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        definition=config["paper_b"]["generalization"]["similarity"],
        groups=lambda w: PLAN.groups(w.model),
        intervals=PLAN.intervals,
        layers_title="B-F3: similarity of the training and test tasks' neuron "
        "parameters per layer (mean over the models)",
        title="B-T4: correlation of parameter similarity with out-of-domain score",
        points_title="B-T4 points: per model and test task, similarity (mean over layers) "
        "and score (%: accuracy, ROUGE-L x100)",
    script:
        "../../scripts/paper_b/similarity_outputs.py"
