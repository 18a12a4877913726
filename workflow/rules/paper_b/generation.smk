"""Paper B's generation tasks on causal LMs (§4.1-4.2, Table 3 group b): their splits,
and the tables and figure of B-T1's and B-T2's generation rows and B-F5's generation
panels, for the models of paper_b.generation.models (their task neurons, deactivation
and neuron-only training run through neurons.smk's rules, as the classification
tasks')."""


localrules:
    generation_split,
    generation_training_table,
    generation_deactivation_table,
    figure_generation_specificity,


rule generation_split:
    output:
        train="data/generation/{task}/train.parquet",
        dev="data/generation/{task}/dev.parquet",
        test="data/generation/{task}/test.parquet",
    log:
        "logs/data/generation_split/{task}.log",
    wildcard_constraints:
        task=names_regex(PLAN.generation_tasks),
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        sizes=config["paper_b"]["generation"]["sizes"],
        max_samples=config["paper_b"]["generation"]["max_samples"],
        dev_fraction=config["data"]["dev_fraction"],
        revision=dataset_revision,
        cache_dir=config["data"]["cache_dir"],
        local_copy=local_dataset,
        seed=config["seed"],
    script:
        "../../scripts/paper_b/generation_split.py"


rule generation_training_table:
    input:
        training=expand(
            rules.neuron_training.output.results, task=PLAN.generation_tasks, allow_missing=True
        ),
        zero_shot=filled(rules.zero_shot.output, family="generation"),
    output:
        csv=reported("results/{model}/tables/B-T2_generation.csv"),
        md="results/{model}/tables/B-T2_generation.md",
    log:
        "logs/{model}/tables/B-T2_generation.log",
    wildcard_constraints:
        model=names_regex(PLAN.generation_models),
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="B-T2, generation: ROUGE-L (x100) after training random or only the task's neurons",
    script:
        "../../scripts/paper_b/training_table.py"


rule generation_deactivation_table:
    input:
        expand(rules.deactivation.output.results, family="generation", allow_missing=True),
    output:
        csv=reported("results/{model}/tables/B-T1_generation.csv"),
        md="results/{model}/tables/B-T1_generation.md",
    log:
        "logs/{model}/tables/B-T1_generation.log",
    wildcard_constraints:
        model=names_regex(PLAN.generation_models),
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        title="B-T1, generation: ROUGE-L (x100) of the multi-task model, random or the "
        "task's neurons deactivated",
    script:
        "../../scripts/paper_b/deactivation_table.py"


rule figure_generation_specificity:
    input:
        deactivation=expand(
            rules.deactivation.output.results, family="generation", allow_missing=True
        ),
        training=expand(
            rules.neuron_training.output.results, task=PLAN.generation_tasks, allow_missing=True
        ),
        zero_shot=filled(rules.zero_shot.output, family="generation"),
    output:
        deactivation_csv="results/{model}/tables/B-F5b.csv",
        deactivation_md="results/{model}/tables/B-F5b.md",
        training_csv="results/{model}/tables/B-F5d.csv",
        training_md="results/{model}/tables/B-F5d.md",
        random_csv="results/{model}/tables/B-F5d_random.csv",
        random_md="results/{model}/tables/B-F5d_random.md",
        layer_matched_csv="results/{model}/tables/B-F5d_random_layer_matched.csv",
        layer_matched_md="results/{model}/tables/B-F5d_random_layer_matched.md",
        png=reported("results/{model}/figures/B-F5_generation.png"),
        pdf="results/{model}/figures/B-F5_generation.pdf",
    log:
        "logs/{model}/figures/B-F5_generation.log",
    wildcard_constraints:
        model=names_regex(PLAN.generation_models),
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        task_types=PLAN.generation_types,
        panels=["b", "d"],
        measure="ROUGE-L ",
        intervals=PLAN.intervals,
        title="B-F5, generation tasks: how much a task's neurons matter for each task "
        "(ROUGE-L points)",
    script:
        "../../scripts/paper_b/figure_task_specificity.py"
