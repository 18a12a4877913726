"""Paper B, §5 and appendices A.5-A.7: generalization and specialization through task
neurons (B-F2, B-F6, B-T8, B-T9) and the similarity of task neurons' parameters (B-F3,
B-T4), on the classification group of paper_b.generalization."""

from skillneurons.paper_b.groups import task_groups

GENERALIZATION = PAPER_B_CONFIG["generalization"]
TRAIN_TASKS, TEST_TASKS = task_groups(
    PAPER_B_TASKS,
    TASK_TYPES,
    GENERALIZATION["train_tasks"],
    GENERALIZATION["test_tasks"],
)
# The generalization experiments need both groups.
GENERALIZATION_ON = bool(TRAIN_TASKS and TEST_TASKS)
GROUP_TASKS = TRAIN_TASKS + TEST_TASKS
# B-T9's trained proportions q, named by percent in file names (q10, q30, ...).
CONTROLLED = {f"q{round(100 * q)}": q for q in GENERALIZATION["controlled_proportions"]}
# Both similarity definitions B-F3 always shows, and the configured one.
SIMILARITIES = list(dict.fromkeys(["masked", "centroid", GENERALIZATION["similarity"]]))
GENERALIZATION_DIR = "results/{model}/paper_b/generalization"


localrules:
    proportion_tables,
    overlap_table,
    controlled_table,
    similarity_outputs,


wildcard_constraints:
    trained=f"group|{names_regex(TRAIN_TASKS or ['none'])}",
    q="|".join(CONTROLLED or ["none"]),


rule proportion_training:
    input:
        model=model_files,
        splits=task_split_files(GROUP_TASKS),
        neurons=expand(
            "results/{{model}}/task_neurons/{task}.parquet", task=TRAIN_TASKS
        ),
    output:
        results=f"{GENERALIZATION_DIR}/proportions/{{trained}}.parquet",
        metrics=f"{GENERALIZATION_DIR}/proportions/{{trained}}.json",
    log:
        "logs/{model}/paper_b/proportion_training/{trained}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=240,
    params:
        model=lambda w: MODELS[w.model],
        train_tasks=TRAIN_TASKS,
        test_tasks=TEST_TASKS,
        label_words={task: label_words(task) for task in GROUP_TASKS},
        instructions=paper_b_instructions(GROUP_TASKS),
        max_length=PAPER_B_CONFIG["max_length"],
        proportions=GENERALIZATION["proportions"],
        training=GENERALIZATION["training"],
        rate_share=GENERALIZATION["learning_rate_share"],
        batch_size=PAPER_B_CONFIG["batch_size"],
        output_only=PAPER_B_CONFIG["parameters"] == "output_only",
        seed=config["seed"],
    script:
        "../../scripts/paper_b/proportion_training.py"


rule controlled_overlap:
    input:
        model=model_files,
        splits=task_split_files(GROUP_TASKS),
        neurons=expand(
            "results/{{model}}/task_neurons/{task}.parquet", task=GROUP_TASKS
        ),
    output:
        results=f"{GENERALIZATION_DIR}/controlled/{{q}}.parquet",
        metrics=f"{GENERALIZATION_DIR}/controlled/{{q}}.json",
    log:
        "logs/{model}/paper_b/controlled_overlap/{q}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=6000,
        runtime=240,
    params:
        model=lambda w: MODELS[w.model],
        train_tasks=TRAIN_TASKS,
        test_tasks=TEST_TASKS,
        label_words={task: label_words(task) for task in GROUP_TASKS},
        instructions=paper_b_instructions(GROUP_TASKS),
        max_length=PAPER_B_CONFIG["max_length"],
        proportion=lambda w: CONTROLLED[w.q],
        shares=GENERALIZATION["controlled_shares"],
        training=GENERALIZATION["training"],
        rate_share=GENERALIZATION["learning_rate_share"],
        batch_size=PAPER_B_CONFIG["batch_size"],
        output_only=PAPER_B_CONFIG["parameters"] == "output_only",
        seed=config["seed"],
    script:
        "../../scripts/paper_b/controlled_overlap.py"


rule similarity_model:
    input:
        model=model_files,
        splits=lambda w: task_split_files([w.task, *TEST_TASKS]),
    output:
        similarities="results/{model}/paper_b/similarity/{task}.parquet",
        scores="results/{model}/paper_b/similarity/{task}_scores.parquet",
        metrics="results/{model}/paper_b/similarity/{task}.json",
    log:
        "logs/{model}/paper_b/similarity_model/{task}.log",
    conda:
        "../../../envs/skillneurons.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        runtime=240,
    params:
        model=lambda w: MODELS[w.model],
        test_tasks=TEST_TASKS,
        label_words=lambda w: {
            task: label_words(task) for task in [w.task, *TEST_TASKS]
        },
        instructions=lambda w: paper_b_instructions([w.task, *TEST_TASKS]),
        max_length=PAPER_B_CONFIG["max_length"],
        training=GENERALIZATION["model_training"],
        fraction=PAPER_B_CONFIG["fraction"],
        definitions=SIMILARITIES,
        relevance=RELEVANCE,
        seed=config["seed"],
    script:
        "../../scripts/paper_b/similarity_model.py"


rule proportion_tables:
    input:
        group=f"{GENERALIZATION_DIR}/proportions/group.parquet",
        single=expand(
            "results/{{model}}/paper_b/generalization/proportions/{task}.parquet",
            task=TRAIN_TASKS,
        ),
        zero_shot=f"{PAPER_B_DIR}/zero_shot.parquet",
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
        group_title="B-F2: accuracy (%) vs share of task neurons trained, the training "
        "tasks together",
        single_title="B-F6: accuracy (%) vs share of task neurons trained, one model per "
        "training task",
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
        expand(
            "results/{{model}}/paper_b/generalization/controlled/{q}.parquet",
            q=CONTROLLED,
        ),
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
        title="B-T9: accuracy (%) at a fixed share q of neurons trained, by the share of "
        "test-task neurons among them",
    script:
        "../../scripts/paper_b/controlled_table.py"


rule similarity_outputs:
    input:
        similarities=expand(
            "results/{{model}}/paper_b/similarity/{task}.parquet", task=TRAIN_TASKS
        ),
        scores=expand(
            "results/{{model}}/paper_b/similarity/{task}_scores.parquet",
            task=TRAIN_TASKS,
        ),
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
        layers_title="B-F3: similarity of the training and test tasks' neuron "
        "parameters per layer (mean over the models)",
        title="B-T4: correlation of parameter similarity with out-of-domain accuracy",
        points_title="B-T4 points: per model and test task, similarity (mean over layers) "
        "and accuracy (%)",
    script:
        "../../scripts/paper_b/similarity_outputs.py"
