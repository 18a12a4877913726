"""The workflow's plan (skillneurons.plan): the lists, task choices and targets the rule
files read, checked against what the embedded default, configs/smoke.yaml and
configs/smollm.yaml say when read by hand. What each rule reads (the producers' outputs)
is tests/test_rule_inputs.py's."""

import copy

import pytest
import yaml

from conftest import ROOT
from skillneurons.config import ConfigError, load_schema, validate_config
from skillneurons.plan import FAMILIES, NO_VALUES, Plan, names_regex


def merged(base: dict, extra: dict) -> dict:
    """``extra`` over ``base``, section by section (as ``snakemake --configfile`` merges)."""
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def plan_of(*files: str, **changes) -> Plan:
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    for name in files:
        config = merged(config, yaml.safe_load((ROOT / name).read_text()))
    return Plan(validate_config(merged(config, changes)))


@pytest.fixture(scope="module")
def default():
    return plan_of()


@pytest.fixture(scope="module")
def smoke():
    return plan_of("configs/smoke.yaml")


@pytest.fixture(scope="module")
def smollm():
    return plan_of("configs/smollm.yaml")


THREE = ["syn_sst2", "syn_tweet", "syn_dbpedia"]
FOUR = [*THREE, "syn_agnews"]


def test_default_lists(default):
    assert list(default.tasks) == FOUR and list(default.models) == ["minilm"]
    # the controls take forward passes only: four trials beside prompt tuning's three
    assert default.trials == [0, 1, 2] and default.control_trials == list(range(4))
    assert default.gguf_models == {}
    # tasks: auto takes the first sentiment task for both stages, and says so
    assert default.auto_choices == {
        "random_label_words.tasks": ["syn_sst2"],
        "tuning_methods.tasks": ["syn_sst2"],
        "paper_b.tasks": THREE,
        "paper_b.generalization.test_tasks": ["syn_tweet", "syn_agnews"],
    }
    assert default.random_words_draws == [0, 1, 2] and default.random_words_trials == [0]
    assert default.tuning_methods == ["adapter", "bitfit"] and default.tuning_trials == [0, 1, 2]
    assert default.ablation_tasks == [] and default.paper_b_tasks == THREE


def test_default_figure_tasks(default):
    # A-F1 binary sentiment (SST-2's twin); A-F2 a three-way task (the default has no
    # inference task: Tweet's twin); A-F4 the first three-way sentiment task (Tweet's);
    # A-F7 the first sentiment task trained.
    assert default.figure_tasks == {
        "A-F1": ["syn_sst2"],
        "A-F2": ["syn_tweet"],
        "A-F4": ["syn_tweet"],
        "A-F7": ["syn_sst2"],
    }
    assert default.figure_task("A-F2") == "syn_tweet"


def test_default_paper_b_groups_orders_and_similarities(default):
    # First task of each type trains; an out-of-domain task of each type tests, one of
    # them (syn_agnews) outside part 1's paper_b.tasks
    assert default.groups("minilm") == {
        "cls": (["syn_sst2", "syn_dbpedia"], ["syn_tweet", "syn_agnews"])
    }
    assert default.generation_tasks == [] and not default.generation_on
    assert default.generalization_models == ["minilm"]
    assert default.controlled == {"q10": 0.1}
    assert default.controlled_pairs("minilm") == ["cls-cls"]
    assert default.similarities == ["centroid", "norm_weighted_overlap"]
    # paper B's order 1 on the configured twins: DBPedia, Amazon (sst2)
    order = ["syn_dbpedia", "syn_sst2"]
    assert default.continual_orders == {"order1": order}
    assert default.continual_tasks == order


def test_default_subtasks_and_sweeps(default):
    # one three-way task with two binary subtasks, each split of each in rule all
    assert default.subtasks("syn_tweet") == ["positive_vs_negative", "neutral_vs_rest"]
    assert default.subtasks("syn_sst2") == []
    zipped = default.subtask_wildcards()
    assert set(zipped["task"]) == {"syn_tweet"} and len(zipped["split"]) == 2 * 3
    assert default.proportion_tasks("minilm", "cls") == [
        "syn_sst2", "syn_dbpedia", "syn_tweet", "syn_agnews",
    ]  # fmt: skip


def test_default_targets(default):
    a, b = default.paper_a_targets(), default.paper_b_targets()
    assert "results/minilm/figures/A-F7.png" in a
    assert "results/minilm/figures/A-F12.png" in a and "results/minilm/figures/A-F13.png" in a
    assert not any("ablation" in path for path in a)  # ablation.tasks: []
    assert not any("generation" in path for path in b)  # no generation task
    # the findings tables the verdict summary reads, and A-T2 (the explorer's words)
    for paper_id in ("§4-§5 claims", "paper B claims", "A-T2, A-T6"):
        assert default.makes(paper_id, "minilm"), paper_id
    assert not default.makes("B-T1 (generation)", "minilm")


def test_smoke(smoke):
    assert list(smoke.tasks) == ["syn_sst2", "syn_tweet", "syn_agnews"]
    assert list(smoke.models) == ["minilm-l2"] and smoke.trials == [0, 1]
    assert smoke.control_trials == [0] and smoke.auto_choices == {}
    assert smoke.tuning_tasks == ["syn_sst2", "syn_tweet"]
    # No inference task: A-F2 shows the first task with subtasks, the Tweet twin.
    assert smoke.figure_tasks == {
        "A-F1": ["syn_sst2"],
        "A-F2": ["syn_tweet"],
        "A-F4": ["syn_tweet"],
        "A-F7": ["syn_sst2"],
    }
    assert smoke.groups("minilm-l2") == {"cls": (["syn_sst2", "syn_agnews"], ["syn_tweet"])}
    # orders: null without the order-1 twins: the tasks as configured
    assert smoke.continual_orders == {"order1": ["syn_sst2", "syn_tweet", "syn_agnews"]}
    # A-T3's controls run on the first controls.trials trials only
    assert smoke.control_trials == [0] and smoke.seeds(smoke.control_trials) == [7]


def test_smollm(smollm):
    model = "smollm2-135m"
    assert smollm.gguf_models.keys() == {model}
    assert smollm.tuning_methods == ["adapter"] and smollm.tuning_tasks == ["syn_sst2"]
    assert smollm.generation_tasks == ["syn_sciq", "syn_tweetqa"] and smollm.generation_on
    assert smollm.groups(model) == {
        "cls": (["syn_sst2", "syn_agnews"], ["syn_tweet"]),
        "gen": (["syn_sciq"], ["syn_tweetqa"]),
    }
    assert smollm.controlled_pairs(model) == ["cls-cls", "gen-gen", "gen-cls"]
    assert smollm.controlled_tasks(model, "gen-cls") == ["syn_sciq", "syn_tweet"]
    # A sweep trains a group's tasks and is scored on every group's test tasks.
    assert smollm.proportion_tasks(model, "gen") == ["syn_sciq", "syn_tweet", "syn_tweetqa"]
    scorers = smollm.scorer_params(["syn_sst2", "syn_sciq"])
    assert scorers["syn_sst2"]["kind"] == "classification"
    assert scorers["syn_sst2"]["instruction"] == "Sentiment of the text:"
    assert scorers["syn_sciq"]["kind"] == "generation"
    assert scorers["syn_sciq"]["instruction"] == "Write the question that the text answers."
    assert smollm.continual_orders == {}
    assert any("generation" in path for path in smollm.paper_b_targets())
    assert not any("A-F13" in path for path in smollm.paper_a_targets())  # no BitFit


def test_part_one_by_family(smollm):
    """B-T1/B-T2 run each task family through one rule: its tasks and its training
    sections."""
    paper_b = smollm.config["paper_b"]
    assert smollm.family_of("syn_tweetqa") == "generation"
    assert smollm.family_of("syn_sst2") == "classification"
    assert smollm.family_tasks("generation") == ["syn_sciq", "syn_tweetqa"]
    assert smollm.family_tasks("classification") == smollm.paper_b_tasks
    # configs/smollm.yaml: generation.multitask 40 steps, generation.training 20 steps
    assert smollm.part_one_training("generation", "multitask")["max_steps"] == 40
    assert smollm.part_one_training("generation", "neuron_training")["max_steps"] == 20
    assert smollm.part_one_training("classification", "multitask") == paper_b["multitask"]
    assert smollm.part_one_training("classification", "multitask")["learning_rate"] == 5e-5
    assert smollm.part_one_training("classification", "neuron_training")["learning_rate"] == 1e-3
    with pytest.raises(ValueError, match="part-1 stage 'training'"):
        smollm.part_one_training("generation", "training")
    # the zero-shot scores of a family: part 1's tasks and its §5 group's
    assert smollm.zero_shot_tasks("generation") == ["syn_sciq", "syn_tweetqa"]


def test_families_are_one_mapping_of_names_and_abbreviations(smollm):
    """A family is named in full (part 1's paths, the plan's methods) and abbreviated
    (§5's paths, the groups, the controlled pairs); FAMILIES relates the two."""
    assert FAMILIES == {"classification": "cls", "generation": "gen"}
    assert set(smollm.groups("smollm2-135m")) == set(FAMILIES.values())
    assert {smollm.family_of(task) for task in smollm.generation_tasks} == {"generation"}
    # the config's pairs of groups (paper_b.generalization.controlled_pairs) abbreviate
    generalization = load_schema()["properties"]["paper_b"]["properties"]["generalization"]
    pairs = generalization["properties"]["controlled_pairs"]["items"]["enum"]
    assert set(pairs) == {f"{a}-{b}" for a in FAMILIES.values() for b in FAMILIES.values()}


def test_paper_b_runs_seeds_and_files(default):
    """paper_b.runs: run r trains with seed + r, draws its random neurons from seed + r x
    random_draws on (config.yaml: seed 42, 3 runs; here 3 draws), and writes to run{r}/."""
    assert plan_of(paper_b={"runs": 1}).paper_b_runs == [0]
    assert [default.draw_seed(r) for r in (0, 1, 2)] == [42, 43, 44]  # config.yaml: 1 draw
    three = plan_of(paper_b={"random_draws": 3})
    assert three.paper_b_runs == [0, 1, 2]
    assert [three.run_seed(r) for r in ("0", "1", "2")] == [42, 43, 44]
    # draws 42-44, 45-47, 48-50: no two runs share a random set
    assert [three.draw_seed(r) for r in (0, 1, 2)] == [42, 45, 48]
    # what a job computing every run is given, run by run
    assert three.run_seeds == [42, 43, 44] and three.draw_seeds == [42, 45, 48]
    assert plan_of("configs/paper.yaml").paper_b_runs == [0, 1, 2]
    assert plan_of("configs/llm.yaml").paper_b_runs == [0, 1, 2]
    with pytest.raises(ConfigError, match="runs"):
        plan_of(paper_b={"runs": 0})


def test_part_one_off_for_classification_only_models(default):
    assert default.family_tasks("generation") == []
    assert default.family_of("syn_sst2") == "classification"
    assert not default.generation_on


def test_comparison_settings_read_noise_only_for_gaussian(default):
    # config.yaml: paper_b.comparison.kind zero, so no noise key reaches AB-F1's jobs
    assert default.comparison_settings() == {"kind": "zero", "positions": "all"}
    gaussian = plan_of(paper_b={"comparison": {"kind": "gaussian"}}, perturbation={"sigma": 0.5})
    assert gaussian.comparison_settings() == {
        "kind": "gaussian",
        "positions": "all",
        "sigma": 0.5,
        **{key: default.config["perturbation"][key] for key in ("mean", "unit", "draw")},
    }
    assert list(gaussian.comparison_settings()) == [
        "kind", "positions", "sigma", "mean", "unit", "draw"
    ]  # fmt: skip


def test_no_values_is_one_regex():
    assert names_regex([]) == NO_VALUES == "(?!x)x"
    assert names_regex({"b": 1, "a": 2}) == "a|b"


def test_figure_and_example_tasks_must_be_configured():
    with pytest.raises(ConfigError, match=r"'perturbation.figure_tasks': \['syn_imdb'\]"):
        plan_of(perturbation={"figure_tasks": ["syn_imdb"]})
    with pytest.raises(ConfigError, match="'tuning_methods.example_task': 'syn_dbpedia' is"):
        plan_of(tuning_methods={"example_task": "syn_dbpedia"})
    chosen = plan_of(perturbation={"figure_tasks": ["syn_dbpedia", "syn_sst2"]})
    assert chosen.figure_tasks["A-F4"] == ["syn_dbpedia", "syn_sst2"]


def test_stand_ins_and_no_figure_task_when_none_fits():
    # Two binary topic tasks: a binary task stands in for A-F1's sentiment task, and no
    # task has subtasks, so A-F2 shows none; A-F4 and A-F7 take the first task.
    plan = plan_of(
        tasks=["syn_agnews", "syn_dbpedia"],
        paper_b={"tasks": [], "generalization": {"test_tasks": None}},
    )
    assert plan.figure_tasks == {
        "A-F1": ["syn_agnews"],
        "A-F2": [],
        "A-F4": ["syn_agnews"],
        "A-F7": ["syn_agnews"],
    }
    assert plan.figure_task("A-F2") is None
    assert not any("A-F2" in path for path in plan.paper_a_targets())
    assert plan.paper_b_targets() == []


def test_prompt_tuning_passes():
    # k = 2 over 5 trials: passes 0-1, 2-3, 4-4; the random-word trials (1) in one pass.
    plan = plan_of("configs/smoke.yaml", prompt_tuning={"trials": 5, "trials_per_pass": 2})
    assert [plan.prompt_pass(trial) for trial in plan.trials] == [
        "0-1",
        "0-1",
        "2-3",
        "2-3",
        "4-4",
    ]
    assert plan.random_words_trials == [0] and plan.random_words_pass(0) == "0-0"
    # the default trains its 3 trials in one pass; the cluster configs one trial a job
    assert plan_of().trials_per_pass == 3 and plan_of().prompt_pass(2) == "0-2"
    assert plan_of("configs/llm.yaml").trials_per_pass == 1
    assert plan_of("configs/paper.yaml").trials_per_pass == 1
