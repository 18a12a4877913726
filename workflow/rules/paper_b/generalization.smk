"""Paper B, §5 and appendices A.5-A.7: generalization and specialization through task
neurons (B-F2, B-F6, B-T8, B-T9..B-T11) and the similarity of task neurons' parameters
(B-F3, B-T4), on the classification group of paper_b.generalization and, on the causal
LMs of paper_b.generation.models, the generation group of paper_b.generation."""

from skillneurons.paper_b.groups import task_groups

GENERALIZATION = PAPER_B_CONFIG["generalization"]
TRAIN_TASKS, TEST_TASKS = task_groups(
    PAPER_B_TASKS,
    TASK_TYPES,
    GENERALIZATION["train_tasks"],
    GENERALIZATION["test_tasks"],
)
# The models with at least one group (training and test tasks) run the experiments.
GENERALIZATION_MODELS = [model for model in MODELS if generalization_groups(model)]
GENERALIZATION_ON = bool(GENERALIZATION_MODELS)
# B-T9's trained proportions q, named by percent in file names (q10, q30, ...).
CONTROLLED = {f"q{round(100 * q)}": q for q in GENERALIZATION["controlled_proportions"]}
# The configured similarity definition first, then the two B-F3 always shows: paper B's
# cosine and the set overlap (skillneurons.paper_b.similarity).
SIMILARITIES = list(
    dict.fromkeys([GENERALIZATION["similarity"], "centroid", "norm_weighted_overlap"])
)
GENERALIZATION_DIR = "results/{model}/paper_b/generalization"


localrules:
    proportion_tables,
    overlap_table,
    controlled_table,
    similarity_outputs,


wildcard_constraints:
    group="cls|gen",
    pair="(cls|gen)-(cls|gen)",
    trained=f"group|{names_regex(TRAIN_TASKS + GENERATION_TRAIN or ['none'])}",
    q="|".join(CONTROLLED or ["none"]),


rule proportion_training:
    input:
        model=model_files,
        splits=lambda w: scored_split_files(proportion_tasks(w)),
        neurons=lambda w: [
            task_neuron_file(w.model, task)
            for task in generalization_groups(w.model)[w.group][0]
        ],
    output:
        results=f"{GENERALIZATION_DIR}/{{group}}/proportions/{{trained}}.parquet",
        metrics=f"{GENERALIZATION_DIR}/{{group}}/proportions/{{trained}}.json",
    log:
        "logs/{model}/paper_b/proportion_training/{group}/{trained}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=240,
    params:
        model=lambda w: MODELS[w.model],
        tasks=lambda w: scorer_params(proportion_tasks(w)),
        train_tasks=lambda w: generalization_groups(w.model)[w.group][0],
        test_groups=proportion_test_groups,
        proportions=GENERALIZATION["proportions"],
        training=GENERALIZATION["training"],
        rate_share=GENERALIZATION["learning_rate_share"],
        output_only=PAPER_B_CONFIG["parameters"] == "output_only",
        seed=config["seed"],
    script:
        "../../scripts/paper_b/proportion_training.py"


rule controlled_overlap:
    input:
        model=model_files,
        splits=lambda w: scored_split_files(controlled_tasks(w)),
        neurons=lambda w: [task_neuron_file(w.model, t) for t in controlled_tasks(w)],
    output:
        results=f"{GENERALIZATION_DIR}/{{pair}}/controlled/{{q}}.parquet",
        metrics=f"{GENERALIZATION_DIR}/{{pair}}/controlled/{{q}}.json",
    log:
        "logs/{model}/paper_b/controlled_overlap/{pair}/{q}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=240,
    params:
        model=lambda w: MODELS[w.model],
        tasks=lambda w: scorer_params(controlled_tasks(w)),
        train_tasks=lambda w: controlled_groups(w)[0],
        test_tasks=lambda w: controlled_groups(w)[1],
        proportion=lambda w: CONTROLLED[w.q],
        shares=GENERALIZATION["controlled_shares"],
        training=GENERALIZATION["training"],
        rate_share=GENERALIZATION["learning_rate_share"],
        output_only=PAPER_B_CONFIG["parameters"] == "output_only",
        seed=config["seed"],
    script:
        "../../scripts/paper_b/controlled_overlap.py"


rule similarity_model:
    input:
        model=model_files,
        splits=lambda w: scored_split_files([w.task, *similarity_tasks(w)[1]]),
    output:
        similarities="results/{model}/paper_b/similarity/{task}.parquet",
        scores="results/{model}/paper_b/similarity/{task}_scores.parquet",
        metrics="results/{model}/paper_b/similarity/{task}.json",
    log:
        "logs/{model}/paper_b/similarity_model/{task}.log",
    wildcard_constraints:
        task=names_regex(TRAIN_TASKS + GENERATION_TRAIN or ["none"]),
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        runtime=240,
    params:
        model=lambda w: MODELS[w.model],
        tasks=lambda w: scorer_params([w.task, *similarity_tasks(w)[1]]),
        test_tasks=lambda w: similarity_tasks(w)[1],
        training=GENERALIZATION["model_training"],
        fraction=PAPER_B_CONFIG["fraction"],
        definitions=SIMILARITIES,
        relevance=RELEVANCE,
        seed=config["seed"],
    script:
        "../../scripts/paper_b/similarity_model.py"


rule proportion_tables:
    input:
        unpack(zero_shot_files),
        group=lambda w: generalization_files(w)["group"],
        single=lambda w: generalization_files(w)["single"],
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
    script:
        "../../scripts/paper_b/proportion_tables.py"


rule overlap_table:
    input:
        unpack(overlap_neuron_files),
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
        groups=overlap_groups,
        proportions=GENERALIZATION["overlap_proportions"],
        title="B-T8: overlap rate (%) of the training and test tasks' neurons (Eq. 13)",
    script:
        "../../scripts/paper_b/overlap_table.py"


rule controlled_table:
    input:
        lambda w: generalization_files(w)["controlled"],
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
        similarities=lambda w: similarity_files(w)["similarities"],
        scores=lambda w: similarity_files(w)["similarity_scores"],
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
        definition=GENERALIZATION["similarity"],
        groups=lambda w: generalization_groups(w.model),
        layers_title="B-F3: similarity of the training and test tasks' neuron "
        "parameters per layer (mean over the models)",
        title="B-T4: correlation of parameter similarity with out-of-domain score",
        points_title="B-T4 points: per model and test task, similarity (mean over layers) "
        "and score (%: accuracy, ROUGE-L x100)",
    script:
        "../../scripts/paper_b/similarity_outputs.py"
