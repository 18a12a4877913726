"""Paper B §5.2 (B-F3, B-T4): the parameter similarity is a cosine of the neurons'
parameters (their directions count), per layer; the old set-overlap name is refused;
B-F3's per-layer table and figure; the profile and correlation claims on constructed
similarities."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
import yaml

from skillneurons.config import ConfigError, load_schema, validate_config
from skillneurons.paper_b.relevance import relevance_table
from skillneurons.paper_b.runs import with_run
from skillneurons.paper_b.similarity import (
    CHANCE_DRAWS,
    chance_similarity,
    similarity,
    similarity_frame,
    vectors,
)
from skillneurons.paper_b.similarity_definitions import DEFINITIONS, PAPER_DEFINITION
from skillneurons.paper_b.similarity_report import (
    depth_halves,
    layer_similarity_table,
    profile_claim,
    profile_claim_for,
    profile_claims,
    similarity_claim,
    similarity_points,
)
from skillneurons.reporting.figures import similarity_layers_figure
from skillneurons.reporting.findings import BootstrapSettings

# min_runs=1: these claims are checked for their effects on one constructed run each.
SETTINGS = BootstrapSettings(resamples=400, alpha=0.05, seed=3, min_runs=1)


def four_neurons():
    """One layer of 4 neurons, θ_n = (output column, input row):
    θ_0 = (1, 0, 1, 0), θ_1 = θ_0, θ_2 = -θ_0, θ_3 = (0, 1, 0, 1); |θ_n|^2 = 2 each."""
    output = torch.tensor([[1.0, 1.0, -1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])  # [hidden, width]
    inputs = torch.tensor([[1.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])  # [width, in]
    return [(output, 1), (inputs, 0)]


def test_the_default_similarity_tells_opposite_directions_apart():
    """Two pairs of sets with the same overlap (one shared neuron, θ_3) whose other
    neurons are parallel (θ_0, θ_1) or opposite (θ_0, θ_2): paper B's cosine gives 1
    and 0; the norm-weighted overlap 2 / sqrt(4 * 4) = 0.5 for both."""
    default = validate_config({})["paper_b"]["generalization"]["similarity"]
    places = four_neurons()
    first = np.array([0, 3])
    parallel, opposite = np.array([3, 1]), np.array([3, 2])
    assert similarity(default, places, first, parallel) == pytest.approx(1.0)
    assert similarity(default, places, first, opposite) == pytest.approx(0.0, abs=1e-12)
    # disjoint sets: parallel 1, opposite -1
    assert similarity(default, places, np.array([0]), np.array([1])) == pytest.approx(1.0)
    assert similarity(default, places, np.array([0]), np.array([2])) == pytest.approx(-1.0)
    overlap = [similarity("norm_weighted_overlap", places, first, s) for s in (parallel, opposite)]
    assert overlap == pytest.approx([0.5, 0.5])


def test_the_set_overlap_keeps_only_its_true_name():
    schema = load_schema()["properties"]["paper_b"]["properties"]["generalization"]
    entry = schema["properties"]["similarity"]
    assert tuple(entry["enum"]) == tuple(DEFINITIONS) and entry["default"] == PAPER_DEFINITION
    for old, new in (("masked", "norm_weighted_overlap"), ("delta", "delta_centroid")):
        with pytest.raises(ConfigError) as error:
            validate_config({"paper_b": {"generalization": {"similarity": old}}})
        message = str(error.value)
        assert "'paper_b.generalization.similarity'" in message and f"{old!r}" in message
        assert f"named '{new}'" in message
        assert "centroid, rank_paired, delta_centroid, norm_weighted_overlap" in message
    for name in DEFINITIONS:
        checked = validate_config({"paper_b": {"generalization": {"similarity": name}}})
        assert checked["paper_b"]["generalization"]["similarity"] == name


def test_the_shipped_configs_name_no_refused_similarity():
    root = Path(__file__).resolve().parents[1]
    for path in [root / "config.yaml", *sorted((root / "configs").glob("*.yaml"))]:
        config = yaml.safe_load(path.read_text()) or {}
        value = config.get("paper_b", {}).get("generalization", {}).get("similarity")
        assert value in (None, *DEFINITIONS), path


def hand_made_similarities() -> pd.DataFrame:
    """Two models (m1, m2), one test task, five layers, two definitions; m2 has no
    value at layer 1 (the test task has no neuron there)."""
    values = {
        "m1": [0.0, 0.2, 0.4, 0.6, 0.8],
        "m2": [0.2, np.nan, 0.6, 0.8, 1.0],
    }
    return pd.DataFrame(
        [
            {
                "layer": layer,
                "test_task": "t",
                "definition": definition,
                "similarity": value * scale,
                "chance": 0.1 * layer,
                "trained": model,
            }
            for definition, scale in (("centroid", 1.0), ("norm_weighted_overlap", 0.5))
            for model, profile in values.items()
            for layer, value in enumerate(profile)
        ]
    )


def test_the_per_layer_table_marks_the_halves_and_counts_the_models():
    assert [h.tolist() for h in depth_halves(5)] == [[0, 1], [3, 4]]
    assert [h.tolist() for h in depth_halves(4)] == [[0, 1], [2, 3]]
    layers = layer_similarity_table(hand_made_similarities(), {"cls": (["m1", "m2"], ["t"])})
    assert layers.columns.tolist() == [
        "test_group", "models", "test_task", "definition", "layer", "half", "similarity",
        "chance", "model_count",
    ]  # fmt: skip
    cosine = layers[layers["definition"] == "centroid"]
    assert cosine["similarity"].tolist() == pytest.approx([0.1, 0.2, 0.5, 0.7, 0.9])
    assert cosine["model_count"].tolist() == [2, 1, 2, 2, 2]
    assert cosine["chance"].tolist() == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    assert cosine["half"].tolist() == ["shallow", "shallow", "middle", "deep", "deep"]
    overlap = layers[layers["definition"] == "norm_weighted_overlap"]
    assert overlap["similarity"].tolist() == pytest.approx([0.05, 0.1, 0.25, 0.35, 0.45])
    shown = {name: DEFINITIONS[name] for name in ("centroid", "norm_weighted_overlap")}
    figure = similarity_layers_figure(layers, shown, "B-F3")
    first = figure.axes[0]
    assert first.get_ylabel() == "cosine of mean parameters (paper)"
    lines = [line.get_xdata() for line in first.get_lines() if line.get_linestyle() == ":"]
    assert len(lines) == 1 and list(lines[0]) == [2.0, 2.0]  # between layers 1 and 3


def profiles(
    rise: float, models, tasks, layers: int = 6, seed: int = 0, chance: float = 0.0
) -> pd.DataFrame:
    """Similarity 0.1 + noise (sd 0.02) per model, test task and layer, plus ``rise``
    from the middle layer up; the chance level ``chance`` times the layer."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        [
            {
                "trained": model,
                "test_task": task,
                "layer": layer,
                "definition": "centroid",
                "similarity": 0.1 + rise * (layer >= layers // 2) + rng.normal(0, 0.02),
                "chance": chance * layer,
            }
            for model in models
            for task in tasks
            for layer in range(layers)
        ]
    )


MODELS, TASKS = ["m1", "m2", "m3", "m4"], ["t1", "t2", "t3"]


def test_the_profile_claim_holds_for_a_rising_profile_and_not_for_a_flat_one():
    claim = profile_claim_for("cls", "centroid")
    rising = profile_claim(claim, profiles(0.3, MODELS, TASKS), 6, SETTINGS)
    assert rising["estimate"] == pytest.approx(0.3, abs=0.02)
    assert rising["verdict"] == "holds" and rising["ci_low"] > 0.25
    assert rising["resampled"].endswith("models M_i 4, test tasks 3")
    assert "(centroid)" in rising["effect"]
    flat = profile_claim(claim, profiles(0.0, MODELS, TASKS, seed=1), 6, SETTINGS)
    assert abs(flat["estimate"]) < 0.02
    # well inside the margin of 0.05: the flat profile is ruled out as a rise
    assert flat["verdict"] == "negligible" and flat["ci_low"] < 0 < flat["ci_high"]
    # the estimate is the deep half's mean minus the shallow half's, exactly
    exact = profiles(0.0, ["m1", "m2"], ["t1", "t2"])
    exact["similarity"] = exact["layer"] * 0.1  # halves {0, 1, 2} and {3, 4, 5}: 0.3
    assert profile_claim(claim, exact, 6, SETTINGS)["estimate"] == pytest.approx(0.3)
    # one model, or fewer than four profiles: not measured
    one_model = profile_claim(claim, profiles(0.3, ["m1"], TASKS + ["t4"]), 6, SETTINGS)
    assert one_model["verdict"] == "not measured" and "over 1 model" in one_model["note"]
    few = profile_claim(claim, profiles(0.3, ["m1", "m2"], ["t1"]), 6, SETTINGS)
    assert few["verdict"] == "not measured" and few["note"].startswith("2 (model, test task)")
    assert profile_claim(claim, profiles(0.3, MODELS, TASKS, 1), 1, SETTINGS)["verdict"] == (
        "not measured"
    )


def test_a_profile_that_random_sets_of_the_same_sizes_give_too_is_no_rise():
    """Raw similarity rising by 0.3 from the shallow half to the deep one, but random
    sets of the same sizes rise by 0.3 too (chance 0.1 x layer: halves' means 0.1 and
    0.4): the excess is flat, the claim does not hold."""
    claim = profile_claim_for("cls", "centroid")
    sized = profiles(0.3, MODELS, TASKS, seed=5, chance=0.1)
    row = profile_claim(claim, sized, 6, SETTINGS)
    assert abs(row["estimate"]) < 0.02 and row["verdict"] == "negligible"
    assert "minus its chance level" in row["effect"]
    with pytest.raises(ValueError, match="no 'chance' column.*rerun rule similarity_model"):
        profile_claim(claim, sized.drop(columns="chance"), 6, SETTINGS)


def test_the_chance_level_is_the_definition_on_random_sets_of_the_same_sizes():
    """Neurons sharing one direction: any two sets' centroids are parallel (chance 1);
    the frame holds, per layer and test task, the sets' cosine and that level."""
    shared = np.tile([[1.0, 2.0, 0.0, 1.0]], (6, 1))
    generator = np.random.default_rng(0)
    assert chance_similarity(
        "centroid", shared.__getitem__, 6, (2, 3), 5, generator
    ) == pytest.approx(1.0)
    assert np.isnan(chance_similarity("centroid", shared.__getitem__, 6, (0, 3), 5, generator))
    # whole-layer sets: the overlap of random sets of every neuron is 1
    assert chance_similarity(
        "norm_weighted_overlap", shared.__getitem__, 6, (6, 6), 3, generator
    ) == pytest.approx(1.0)
    places = [four_neurons(), four_neurons()]
    tables = {
        "train": relevance_table(np.array([[8, 0.1, 0.2, 7], [0.3, 6, 0.4, 0.5]]), "train", 0),
        "test": relevance_table(np.array([[0.1, 8, 0.2, 7], [0.3, 0.4, 6, 0.5]]), "test", 0),
    }  # the top 3 of 8: train {0, 3} and {1}, test {1, 3} and {2}
    frame = similarity_frame(places, tables, "train", ["test"], 0.375, ["centroid"], seed=7)
    assert frame.columns.tolist() == ["layer", "test_task", "definition", "similarity",
                                      "chance"]  # fmt: skip
    # layer 0: {0, 3} vs {1, 3} (θ_1 = θ_0): 1; layer 1: {1} vs {2} (θ_2 = -θ_1): -1
    assert frame["similarity"].tolist() == pytest.approx([1.0, -1.0])
    assert frame["chance"].between(-1, 1).all()
    theta = vectors(four_neurons(), np.arange(4))
    for layer, sizes in ((0, (2, 2)), (1, (1, 1))):
        expected = chance_similarity(
            "centroid", theta.__getitem__, 4, sizes, CHANCE_DRAWS,
            np.random.default_rng([7, layer, 0]),
        )  # fmt: skip
        assert frame["chance"].iloc[layer] == pytest.approx(expected)


def test_the_generation_profile_reads_the_generation_trained_models():
    """Paper B, Figure 3: the classification tests against every model (a), the
    generation tests against the generation-trained models (c). Here the
    classification-trained models fall on the generation tests, as in panel b."""
    groups = {"cls": (["c1", "c2"], ["ct1", "ct2"]), "gen": (["g1", "g2"], ["gt1", "gt2"])}
    frame = pd.concat(
        [
            profiles(0.3, ["c1", "c2", "g1", "g2"], ["ct1", "ct2"], seed=2),
            profiles(0.3, ["g1", "g2"], ["gt1", "gt2"], seed=3),
            profiles(-0.6, ["c1", "c2"], ["gt1", "gt2"], seed=4),
        ],
        ignore_index=True,
    )
    other = frame.assign(definition="norm_weighted_overlap", similarity=-frame["similarity"])
    rows = profile_claims(pd.concat([frame, other]), groups, "centroid", SETTINGS)
    assert [row["claim"].endswith("(gen)") for row in rows] == [False, True]
    assert [row["verdict"] for row in rows] == ["holds", "holds"]
    assert rows[0]["resampled"].endswith("models M_i 4, test tasks 2")
    assert rows[1]["resampled"].endswith("models M_i 2, test tasks 2")
    assert "Figure 3c" in rows[1]["paper_value"]
    # the set overlap, decided instead, falls
    falls = profile_claims(pd.concat([frame, other]), groups, "norm_weighted_overlap", SETTINGS)
    assert [row["verdict"] for row in falls] == ["fails", "fails"]


def test_the_correlation_claim_reads_the_configured_definition():
    """B-T4's points carry the definition; the claim decides it and names it. Here the
    cosine rises with the score and the set overlap falls with it."""
    rows, scores = [], []
    for task, level in (("x", 0.0), ("y", 0.5)):
        for model, (value, score) in enumerate([(0.1, 0.5), (0.2, 0.6), (0.3, 0.7), (0.4, 0.75)]):
            for layer in range(2):
                rows += [
                    {"layer": layer, "test_task": task, "definition": "centroid",
                     "similarity": value + level, "chance": 0.05, "trained": f"m{model}"},
                    {"layer": layer, "test_task": task, "definition": "norm_weighted_overlap",
                     "similarity": 1 - value, "chance": 0.0, "trained": f"m{model}"},
                ]  # fmt: skip
            scores.append({"trained": f"m{model}", "eval_task": task, "score": score})
    similarities, scores = pd.DataFrame(rows), pd.DataFrame(scores)
    default = validate_config({})["paper_b"]["generalization"]["similarity"]
    points = similarity_points(similarities, scores, default)
    assert set(points["definition"]) == {"centroid"} and len(points) == 8
    assert points["chance"].tolist() == pytest.approx([0.05] * 8)
    row = similarity_claim(points, SETTINGS)
    assert row["verdict"] == "holds" and row["estimate"] > 0.95
    assert "similarity (centroid, mean over layers) minus its chance level" in row["effect"]
    overlap = similarity_claim(
        similarity_points(similarities, scores, "norm_weighted_overlap"), SETTINGS
    )
    assert overlap["verdict"] == "fails" and "(norm_weighted_overlap," in overlap["effect"]


def test_the_similarity_claims_take_the_training_runs():
    """Each run's models M_i (paper_b.runs): the profile's rise is the mean over the runs
    (0.2, 0.3, 0.4), whose spread widens the interval over one run's; B-T4's
    correlation is the mean of each run's (run 0's similarity rises with the score, run
    1's falls: 0)."""
    claim = profile_claim_for("cls", "centroid")
    runs = pd.concat(
        [with_run(profiles(0.2 + 0.1 * r, MODELS, TASKS, seed=r), r) for r in range(3)],
        ignore_index=True,
    )
    row = profile_claim(claim, runs, 6, SETTINGS)
    assert row["estimate"] == pytest.approx(0.3, abs=0.02) and row["runs"] == 3
    assert row["resampled"].endswith("training runs 3 > models M_i 4, test tasks 3")
    one = profile_claim(claim, runs[runs["run"] == 1], 6, SETTINGS)
    assert one["ci_high"] - one["ci_low"] < (row["ci_high"] - row["ci_low"]) / 3
    rows, scores = [], []
    for run, sign in ((0, 1.0), (1, -1.0)):
        for task in ("x", "y"):
            for model, value in enumerate([0.1, 0.2, 0.3, 0.4]):
                named = {"run": run, "trained": f"m{model}"}
                rows.append({**named, "layer": 0, "test_task": task, "definition": "centroid",
                             "similarity": value, "chance": 0.0})  # fmt: skip
                scores.append({**named, "eval_task": task, "score": 0.5 + sign * value})
    points = similarity_points(pd.DataFrame(rows), pd.DataFrame(scores), "centroid")
    assert points.columns.tolist()[:3] == ["run", "trained", "test_task"] and len(points) == 16
    both = similarity_claim(points, SETTINGS)
    assert both["estimate"] == pytest.approx(0.0, abs=1e-9) and both["runs"] == 2
    assert similarity_claim(points[points["run"] == 0], SETTINGS)["estimate"] == pytest.approx(1)
