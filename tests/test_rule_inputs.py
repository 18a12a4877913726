"""What each rule reads, from Snakemake's own DAG of a configuration (every job with its
named inputs: tests/workflow_probe.py). The consumers take the producers' outputs
(``rules.<name>.output`` and the input functions of workflow/rules/common.smk) in the
order their scripts read them: task by task, run by run, order by order."""

import pytest

from conftest import make_sandbox, probe_workflow

FOUR = ["syn_sst2", "syn_tweet", "syn_dbpedia", "syn_agnews"]
RUNS = ["run0", "run1", "run2"]


@pytest.fixture(scope="module")
def default(tmp_path_factory) -> list[dict]:
    """Every job of the embedded default's DAG (config.yaml: 4 tasks, 3 trials, 3 runs)."""
    return probe_workflow(make_sandbox(tmp_path_factory.mktemp("default")), "jobs")


@pytest.fixture(scope="module")
def smollm(tmp_path_factory) -> list[dict]:
    """Every job of configs/smollm.yaml's DAG (classification and generation tasks)."""
    sandbox = make_sandbox(tmp_path_factory.mktemp("smollm"))
    return probe_workflow(sandbox, "jobs", "configs/smollm.yaml")


def the_job(jobs: list[dict], rule: str, **wildcards: str) -> dict:
    """The one job of ``rule`` with ``wildcards``."""
    found = [
        job
        for job in jobs
        if job["rule"] == rule and all(job["wildcards"][k] == v for k, v in wildcards.items())
    ]
    assert len(found) == 1, (rule, wildcards, len(found))
    return found[0]


def test_paper_a_findings_read_each_task_in_turn(default):
    inputs = the_job(default, "findings", model="minilm")["input"]
    assert set(inputs) == {
        "perturbation", "predictivity", "random_prompt", "random_model", "adapter", "bitfit",
        "label_words", "label_word_controls", "prompt_metrics", "top_neurons",
        "paper_design", "noise_floor",
    }  # fmt: skip
    assert inputs["noise_floor"] == ["results/minilm/random_label_words/noise_floor/syn_sst2.json"]
    assert inputs["paper_design"][0] == "results/minilm/perturbation/paper_design/syn_sst2.parquet"
    assert inputs["prompt_metrics"][:2] == [
        f"results/minilm/prompt_tuning/syn_sst2/trial{trial}/metrics.json" for trial in (0, 1)
    ]
    assert inputs["top_neurons"][0] == "results/minilm/skill_neurons/tuned/syn_sst2.json"
    for key, variant in (("label_words", "draw"), ("label_word_controls", "control")):
        assert inputs[key] == [
            f"results/minilm/random_label_words/{variant}{d}/rankings/syn_sst2.parquet"
            for d in (0, 1, 2)
        ]
    # A-T3's controls run 4 forward-only trials a task: task by task, trial by trial
    assert inputs["random_model"] == [
        f"results/minilm/skill_neurons/random_model/{task}/trial{trial}.json"
        for task in FOUR
        for trial in range(4)
    ]
    assert inputs["adapter"] == [
        "results/minilm/tuning_methods/adapter/perturbation/syn_sst2.parquet"
    ]


def test_tables_read_each_task_in_turn(default):
    control = the_job(default, "control_table", model="minilm")["input"]
    assert set(control) == {"random_prompt", "hard_prompt", "random_model", "tuned"}
    assert control["hard_prompt"][:5] == [
        *(f"results/minilm/skill_neurons/hard_prompt/syn_sst2/trial{t}.json" for t in range(4)),
        "results/minilm/skill_neurons/hard_prompt/syn_tweet/trial0.json",
    ]
    speed = the_job(default, "pruning_speed", model="minilm")["input"]
    assert speed["models"] == [
        f"results/minilm/pruning/{task}/trial{trial}/model.safetensors"
        for task in FOUR
        for trial in range(3)
    ]
    assert speed["tests"] == [f"data/splits/{task}/test.parquet" for task in FOUR]


def test_rankings_read_their_task_and_subtasks(default):
    tweet = the_job(default, "rank_neurons", model="minilm", task="syn_tweet")["input"]
    assert tweet["subtasks"] == [
        f"data/splits/syn_tweet/subtasks/{sub}/dev.parquet"
        for sub in ("positive_vs_negative", "neutral_vs_rest")
    ]
    assert tweet["dev_dumps"] == [
        f"results/minilm/activations/syn_tweet/trial{t}/dev.parquet" for t in range(3)
    ]
    assert (
        the_job(default, "rank_neurons", model="minilm", task="syn_sst2")["input"].get(
            "subtasks", []
        )
        == []
    )
    # a seed-only control of one trial is main trial {draw} itself: nothing retrained
    control = the_job(
        default, "rank_neurons_random_words", variant="control", draw="1", task="syn_sst2"
    )["input"]
    assert control["dev_dumps"] == ["results/minilm/activations/syn_sst2/trial1/dev.parquet"]
    draw = the_job(default, "rank_neurons_random_words", variant="draw", draw="1")["input"]
    assert draw["dev_dumps"] == [
        "results/minilm/random_label_words/draw1/activations/syn_sst2/trial0/dev.parquet"
    ]


def test_generalization_results_come_run_by_run(default):
    inputs = the_job(default, "findings_b", model="minilm")["input"]
    folder = "results/minilm/paper_b/generalization"
    assert inputs["group"] == [f"{folder}/{run}/cls/proportions/group.parquet" for run in RUNS]
    assert inputs["single"] == [
        f"{folder}/{run}/cls/proportions/{task}.parquet"
        for run in RUNS
        for task in ("syn_sst2", "syn_dbpedia")
    ]
    assert inputs["controlled"] == [
        f"{folder}/{run}/cls-cls/controlled/q10.parquet" for run in RUNS
    ]
    assert inputs["continual_trained"] == [
        f"results/minilm/paper_b/continual/{run}/order1/{method}.parquet"
        for run in RUNS
        for method in ("seqft", "seqlora", "ncft")
    ]
    assert inputs["deactivation"] == [
        f"results/minilm/paper_b/classification/{run}/deactivation.parquet" for run in RUNS
    ]
    assert inputs["zero_shot"] == ["results/minilm/paper_b/classification/zero_shot.parquet"]
    assert not any(key.startswith("generation") for key in inputs)  # no generation task
    tables = the_job(default, "proportion_tables", model="minilm")["input"]
    assert set(tables) == {"zero_shot", "group", "single"}


def test_pages_read_what_the_configuration_makes(default):
    explorer = the_job(default, "explorer", model="minilm")["input"]
    assert explorer["test_dumps"] == [
        f"results/minilm/activations/{task}/trial0/test.parquet" for task in FOUR
    ]
    assert explorer["baselines"][0] == (
        "results/minilm/activations/syn_sst2/trial0/baseline.safetensors"
    )
    assert len(explorer["rankings"]) == len(explorer["perturbation"]) == 4
    assert explorer["task_neurons"] == [
        f"results/minilm/task_neurons/{task}.parquet" for task in FOUR[:3]
    ]
    assert explorer["deactivation"] == [
        "results/minilm/paper_b/classification/run0/deactivation.parquet"
    ]
    assert explorer["words"] == ["results/minilm/word_selectivity.parquet"]
    verdicts = the_job(default, "verdicts", model="minilm")["input"]
    assert verdicts == {
        "paper_a": ["results/minilm/tables/findings.csv"],
        "paper_b": ["results/minilm/tables/B-findings.csv"],
    }


def test_each_family_runs_through_one_rule(smollm):
    model = "smollm2-135m"
    generation = the_job(smollm, "deactivation", model=model, family="generation")
    assert generation["input"]["splits"] == [
        f"data/generation/{task}/{split}.parquet"
        for task in ("syn_sciq", "syn_tweetqa")
        for split in ("train", "dev", "test")
    ]
    assert generation["input"]["model"] == ["data/models/smollm2-135m"]
    assert generation["params"]["seeds"] == [42]
    assert {job["wildcards"]["family"] for job in smollm if job["rule"] == "deactivation"} == {
        "classification",
        "generation",
    }
    # §5's paths abbreviate the family
    sweeps = {job["wildcards"]["family"] for job in smollm if job["rule"] == "proportion_training"}
    assert sweeps == {"cls", "gen"}
    inputs = the_job(smollm, "findings_b", model=model)["input"]
    folder = f"results/{model}/paper_b/generation"
    assert inputs["generation_deactivation"] == [f"{folder}/run0/deactivation.parquet"]
    assert inputs["generation_training"] == [
        f"results/{model}/paper_b/neuron_training/run0/{task}.parquet"
        for task in ("syn_sciq", "syn_tweetqa")
    ]
    assert inputs["generation_zero_shot"] == [f"{folder}/zero_shot.parquet"]
    assert not any(key.startswith("continual") for key in inputs)  # no order
    tables = the_job(smollm, "proportion_tables", model=model)["input"]
    assert tables["zero_shot"] == [f"results/{model}/paper_b/classification/zero_shot.parquet"]
    assert tables["generation_zero_shot"] == [f"{folder}/zero_shot.parquet"]
