"""Skill-neuron rankings (paper A, §3.1-3.2): the predictivity of every neuron under every
definition, each task's ranking and each trial's top skill neuron, with the held-out
test correctness of the neurons the prompts and Figure 3's Avg./Max. baselines select
on dev. Paper B compares its task-specific neurons with these rankings."""


rule rank_neurons:
    input:
        dev=rules.split.output.dev,
        subtasks=subtask_splits("dev"),
        test=rules.split.output.test,
        test_subtasks=subtask_splits("test"),
        baselines=rules.dump_activations.output.baseline,
        dev_dumps=rules.dump_activations.output.dev,
        dev_input_dumps=rules.dump_activations.output.dev_input,
        test_dumps=rules.dump_activations.output.test,
        test_input_dumps=rules.dump_activations.output.test_input,
    output:
        ranking="results/{model}/rankings/{task}.parquet",
        predictivity="results/{model}/predictivity/{task}.safetensors",
        top_neurons="results/{model}/skill_neurons/tuned/{task}.json",
    log:
        "logs/{model}/rankings/{task}.log",
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        # Seeds the random key that breaks ties in predictivity.
        seed=config["seed"],
    script:
        "../../scripts/shared/rank_neurons.py"
