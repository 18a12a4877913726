"""Config validation: defaults, unknown keys, wrong values, unknown tasks; the generated
docs (docs/configuration.md, the README's figure table)."""

from pathlib import Path

import pytest
import yaml

from skillneurons.code_map import MARKERS, code_map, first_line, modules
from skillneurons.config import (
    FIGURE_TABLE,
    ConfigError,
    configuration_page,
    figure_table,
    load_schema,
    markdown_table,
    rule_files,
    update_docs,
    validate_config,
)
from skillneurons.paper_a.registry import PAPER_A
from skillneurons.paper_b.registry import PAPER_B

ROOT = Path(__file__).resolve().parents[1]


def test_defaults_are_filled_from_the_schema():
    config = validate_config({})
    assert config["seed"] == 42
    assert config["data"]["dev_fraction"] == 0.2
    assert config["synthetic"]["label_noise"] == 0.03
    assert len(config["tasks"]) == 7


def test_misspelled_key_is_named_with_the_allowed_ones():
    with pytest.raises(ConfigError, match=r"unknown config key\(s\) 'dev_fractoin' under 'data'"):
        validate_config({"data": {"dev_fractoin": 0.3}})
    with pytest.raises(ConfigError, match="'taks' at the top level; allowed keys: .*tasks"):
        validate_config({"taks": ["syn_sst2"]})


def test_wrong_value_names_its_key():
    with pytest.raises(ConfigError, match="config key 'synthetic.train_size'"):
        validate_config({"synthetic": {"train_size": "many"}})
    with pytest.raises(ConfigError, match="config key 'data.dev_fraction'"):
        validate_config({"data": {"dev_fraction": 1.5}})


@pytest.mark.parametrize("section", [("perturbation",), ("paper_b", "comparison")])
def test_a_renamed_key_is_refused_with_its_new_name(section):
    def config_with(key):
        config = {key: 5}
        for name in reversed(section):
            config = {name: config}
        return config

    prefix = ".".join(section)
    message = f"'{prefix}.random_orders' is now '{prefix}.layer_matched_orders'"
    with pytest.raises(ConfigError, match=message):
        validate_config(config_with("random_orders"))
    checked = validate_config(config_with("layer_matched_orders"))
    for name in section:
        checked = checked[name]
    assert checked["layer_matched_orders"] == 5


def test_unknown_task_lists_known_tasks():
    with pytest.raises(
        ConfigError, match="task 'syn_sst3' is not defined; known tasks: .*syn_sst2"
    ):
        validate_config({"tasks": ["syn_sst3"]})


def test_unknown_model_lists_known_models():
    with pytest.raises(
        ConfigError, match="model 'minilm6' is not defined; known models: .*minilm"
    ):
        validate_config({"models": ["minilm6"]})


def test_label_words_must_match_the_label_count():
    with pytest.raises(ConfigError, match="'label_words.syn_tweet': 2 words for 3 labels"):
        validate_config({"label_words": {"syn_tweet": ["bad", "good"]}})


def test_tasks_of_more_classes_need_label_words():
    four = {"path": "x.csv", "text_columns": ["t"], "label_names": ["a", "b", "c", "d"]}
    with pytest.raises(ConfigError, match=r"task 'mine' has 4 labels.*'label_words.mine'"):
        validate_config({"tasks": ["mine"], "task_definitions": {"mine": four}})
    words = {"mine": ["A", "B", "C", "D"]}
    config = validate_config(
        {"tasks": ["mine"], "task_definitions": {"mine": four}, "label_words": words}
    )
    assert config["label_words"] == words
    # Built-in tasks of more classes carry their own words.
    assert validate_config({"tasks": ["dbpedia14", "yahoo10"]})["tasks"] == [
        "dbpedia14",
        "yahoo10",
    ]


def test_user_task_definition_is_accepted(tmp_path):
    config = validate_config(
        {
            "tasks": ["mine"],
            "task_definitions": {
                "mine": {"path": "x.csv", "text_columns": ["t"], "label_names": ["a", "b"]}
            },
        }
    )
    assert config["tasks"] == ["mine"]


def leaves(schema, prefix=""):
    for key, sub in schema.get("properties", {}).items():
        if "properties" in sub:
            yield from leaves(sub, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", sub


def test_every_key_has_a_description_and_a_default():
    missing = [
        key
        for key, sub in leaves(load_schema())
        if "description" not in sub or "default" not in sub
    ]
    assert missing == []


@pytest.mark.parametrize(
    "path", ["config.yaml", *sorted(p.name for p in (ROOT / "configs").glob("*.yaml"))]
)
def test_shipped_configs_validate(path):
    file = ROOT / path if path == "config.yaml" else ROOT / "configs" / path
    validate_config(yaml.safe_load(file.read_text()))


def readme_table(markers: tuple[str, str]) -> str:
    begin, end = markers
    return (ROOT / "README.md").read_text().split(begin, 1)[1].split(end, 1)[0]


def test_configuration_page_is_what_the_schema_generates():
    page = (ROOT / "docs" / "configuration.md").read_text()
    assert page == configuration_page(), "regenerate with: make docs"
    # Every key of the schema has its row.
    for key, _ in leaves(load_schema()):
        assert f"\n| `{key}` | " in page, key


def test_config_table_shows_the_embedded_value_only_where_it_differs():
    schema = {
        "properties": {
            "seed": {"default": 42, "description": "The seed."},
            "stage": {
                "description": "A | stage.",
                "properties": {
                    "steps": {"default": 100, "description": "Steps."},
                    "rates": {"default": [0.1], "description": "Rates."},
                },
            },
        }
    }
    table = markdown_table(schema, {"seed": 42, "stage": {"steps": 30}})
    assert table.splitlines()[2:] == [
        "| `seed` | `42` |  | The seed. |",
        "| `stage` |  |  | A / stage. |",
        "| `stage.steps` | `100` | `30` | Steps. |",
        "| `stage.rates` | `[0.1]` |  | Rates. |",
    ]


def test_readme_figure_table_matches_the_registries():
    table = readme_table(FIGURE_TABLE)
    assert table == figure_table(), "regenerate with: python -m skillneurons.config"
    # Every paper ID of both registries, with its rule and the rule's file.
    for folder, paper in (("paper_a", PAPER_A), ("paper_b", PAPER_B)):
        for output in paper:
            line = next(row for row in table.splitlines() if row.startswith(f"| {output.id} |"))
            for made in output.products:
                assert f"`{made.rule}` ({folder}/" in line, (output.id, made.rule)


def test_the_code_map_of_the_development_docs_is_the_package():
    """Every module of the library, with the first sentence of its docstring: the map in
    docs/development.md is what the package is (regenerate with: make docs)."""
    text = (ROOT / "docs" / "development.md").read_text()
    begin, end = MARKERS
    assert text.split(begin, 1)[1].split(end, 1)[0] == code_map(), "regenerate: make docs"
    listed = {module for module, _ in modules()}
    on_disk = {
        path.relative_to(ROOT / "workflow").as_posix()
        for path in (ROOT / "workflow" / "skillneurons").rglob("*.py")
    }
    assert listed == on_disk and "skillneurons/paper_b/continual.py" in listed


def test_first_line_is_a_docstrings_first_sentence(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('"""Soft prompts (paper A, Eq. 1): they\nwrap. More text.\n\nBody."""\n')
    assert first_line(module) == "Soft prompts (paper A, Eq. 1): they wrap."
    module.write_text("x = 1\n")
    assert first_line(module) == "-"


def test_every_registered_rule_is_defined_in_a_rule_file():
    defined = rule_files()
    for output in PAPER_A + PAPER_B:
        for made in output.products:
            assert made.rule in defined, f"{output.id}: rule {made.rule!r} is not defined"


def test_update_docs_writes_the_configuration_page_and_only_the_readmes_figure_table(
    tmp_path,
):
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- figure-table:begin -->\nold\n<!-- figure-table:end -->\nend\n")
    (tmp_path / "docs").mkdir()
    development = tmp_path / "docs" / "development.md"
    development.write_text("map:\n<!-- code-map:begin -->\nold\n<!-- code-map:end -->\nend\n")
    update_docs(tmp_path)
    assert development.read_text() == (
        "map:\n<!-- code-map:begin -->\n" + code_map() + "<!-- code-map:end -->\nend\n"
    )
    assert readme.read_text() == (
        "intro\n<!-- figure-table:begin -->\n"
        + figure_table()
        + "<!-- figure-table:end -->\nend\n"
    )
    page = (tmp_path / "docs" / "configuration.md").read_text()
    assert page.startswith("# Configuration\n") and page.endswith(markdown_table())


def test_every_task_type_has_its_default_prompts():
    from skillneurons.data.generation_splits import GENERATION_TYPES
    from skillneurons.data.tasks import TASK_TYPES
    from skillneurons.paper_a.controls import DEFAULT_HARD_PROMPTS
    from skillneurons.paper_b.instructions import INSTRUCTIONS

    schema_types = load_schema()["properties"]["task_definitions"]["additionalProperties"]
    assert schema_types["properties"]["type"]["enum"] == list(TASK_TYPES)
    assert set(DEFAULT_HARD_PROMPTS) == set(TASK_TYPES)
    # Paper B instructs generation tasks too (skillneurons.paper_b.generation).
    assert set(INSTRUCTIONS) == set(TASK_TYPES) | set(GENERATION_TYPES)


def test_paper_b_identify_on_takes_every_combination():
    # Rule task_neurons finds the base model's neurons and rule deactivation the
    # multi-task model's, so neither experiment waits for the other.
    both = {"deactivation": "base", "training": "multitask"}
    assert validate_config({"paper_b": {"identify_on": both}})["paper_b"]["identify_on"] == both
    checked = validate_config({"paper_b": {"identify_on": {"deactivation": "base"}}})
    assert checked["paper_b"]["identify_on"] == {"deactivation": "base", "training": "base"}


def test_task_subsets_follow_the_configured_tasks():
    from skillneurons.plan import task_subset

    types = {"q": "inference", "r": "sentiment", "t": "topic", "s": "sentiment"}
    assert task_subset("random_label_words", "auto", types) == ["r"]
    assert task_subset("tuning_methods", "auto", types) == ["r"]
    assert task_subset("tuning_methods", "auto", {"q": "inference"}) == ["q"]
    assert task_subset("ablation", "auto", types) == ["r", "t"]
    assert task_subset("ablation", [], types) == []  # the default: off
    assert task_subset("tuning_methods", None, types) == ["q", "r", "t", "s"]
    assert task_subset("tuning_methods", ["t"], types) == ["t"]
    with pytest.raises(ValueError, match=r"tuning_methods.tasks \['z'\] are not among"):
        task_subset("tuning_methods", ["t", "z"], types)


def test_generation_tasks_and_models_must_be_known_and_configured():
    with pytest.raises(ConfigError, match="'paper_b.generation.tasks': \\['syn_poem'\\] are not"):
        validate_config({"paper_b": {"generation": {"tasks": ["syn_poem"]}}})
    with pytest.raises(ConfigError, match="'paper_b.generation.models': \\['smollm2-135m'\\]"):
        validate_config({"paper_b": {"generation": {"models": ["smollm2-135m"]}}})
    checked = validate_config(
        {
            "models": ["minilm"],
            "paper_b": {"generation": {"tasks": ["syn_e2e"], "models": ["minilm"]}},
        }
    )
    assert checked["paper_b"]["generation"]["sizes"] == {"train": 200, "dev": 30, "test": 50}
