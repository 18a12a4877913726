"""Paper B, §5 (generalization): overlap rates, the controlled-overlap sampler, per-batch
neuron masks, the similarity definitions on hand-made parameters, the correlation
table, the task groups, the tables and the §5 claims on constructed results."""

import numpy as np
import pandas as pd
import pytest
import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook

from skillneurons.models.encoding import encode_split
from skillneurons.models.neuron_deltas import MaskedAdam
from skillneurons.models.sites import ffn_sites, neuron_parameters
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b.classifiers import task_classifier
from skillneurons.paper_b.controlled_overlap_report import (
    CONTROLLED_RISES,
    controlled_claim,
    controlled_table,
)
from skillneurons.paper_b.generalization import (
    KEYS,
    controlled_overlap,
    controlled_set,
    results_frame,
    train_neurons_of_tasks,
    training_for_share,
    with_single_task_groups,
)
from skillneurons.paper_b.generalization_report import (
    CLS_GEN_FLAT,
    GENERALIZATION_RISES,
    SPECIALIZATION_PEAK,
    generalization_claim,
    proportion_claims,
    proportion_table,
    share_contrast,
)
from skillneurons.paper_b.groups import task_groups
from skillneurons.paper_b.overlap_report import (
    OVERLAP_ABOVE_RANDOM,
    overlap_claims,
    overlap_table,
)
from skillneurons.paper_b.relevance import relevance_table
from skillneurons.paper_b.runs import run_means, with_run
from skillneurons.paper_b.scorers import TaskScorer
from skillneurons.paper_b.similarity import ranked_sets, similarity, vectors
from skillneurons.paper_b.similarity_report import (
    correlation_table,
    layer_similarity_table,
    similarity_claim,
)
from skillneurons.paper_b.task_neuron_sets import (
    flat_ids,
    from_flat,
    overlap_rate,
    random_overlap,
    union,
)
from skillneurons.reporting.findings import BootstrapSettings
from tiny_models import FAMILIES, tiny, word_tokenizer

# min_runs=1: these claims are checked for their effects on one constructed run each.
SETTINGS = BootstrapSettings(resamples=200, alpha=0.05, seed=5, min_runs=1)
SAMPLES = 200


def test_overlap_rate_is_eq_13_and_random_sets_share_by_their_sizes():
    assert overlap_rate(np.array([1, 2, 3, 4]), np.array([3, 4, 5])) == pytest.approx(2 / 5)
    assert np.isnan(overlap_rate(np.array([]), np.array([])))
    # 10 and 10 of 100: one shared neuron expected, 19 in the union
    assert random_overlap(10, 10, 100) == pytest.approx(1 / 19)
    assert random_overlap(100, 100, 100) == pytest.approx(1.0)


def test_flat_ids_union_and_back():
    neurons = {0: np.array([3, 1]), 1: np.array([0])}
    ids = flat_ids(neurons, width=4)
    assert ids.tolist() == [1, 3, 4]
    assert {k: v.tolist() for k, v in from_flat(ids, 2, 4).items()} == {0: [1, 3], 1: [0]}
    joined = union([neurons, {1: np.array([2, 0])}])
    assert {k: v.tolist() for k, v in joined.items()} == {0: [1, 3], 1: [0, 2]}


def test_controlled_sampler_hits_the_share_exactly_and_is_seeded():
    test_ids = np.arange(0, 100, 2)  # 50 test-task neurons of 200
    drawn = controlled_set(test_ids, size=40, share=0.3, total=200, seed=1)
    assert len(drawn) == 40 and len(np.unique(drawn)) == 40
    assert len(np.intersect1d(drawn, test_ids)) == 12  # round(0.3 * 40)
    assert (controlled_set(test_ids, 40, 0.3, 200, seed=1) == drawn).all()
    assert not (controlled_set(test_ids, 40, 0.3, 200, seed=2) == drawn).all()
    # more asked for than the test tasks have: all of them, the rest from the others
    capped = controlled_set(test_ids, size=80, share=1.0, total=200, seed=1)
    assert len(np.intersect1d(capped, test_ids)) == 50 and len(capped) == 80


def tasks_on_one_backbone(*tasks: str) -> dict[str, TaskScorer]:
    """Classification tasks on one tiny BERT (2 layers of 32 neurons), four training
    rows each (the labels flipped from one task to the next); their evaluations score
    a constant (the kept state is the last step's)."""
    loaded = tiny("masked_lm", word_tokenizer())
    texts = ["very good", "not good bad", "bad", "very very good"]

    def constant(_: str):
        return np.array([0.5]), 2

    scorers = {}
    for index, task in enumerate(tasks):
        labels = [1, 0, 0, 1] if index % 2 == 0 else [0, 1, 1, 0]
        rows = encode_split(loaded.tokenizer, texts, [None] * 4, labels, 16)
        head = task_classifier(loaded, ["Negative", "Positive"])
        scorers[task] = TaskScorer(head, rows, "classification", constant, lambda _: 0.5)
    return scorers


def adam_by_hand(grads, rate, beta1=0.9, beta2=0.999, eps=1e-8):
    """Adam's moments and the total change it makes, in float64, over ``grads``."""
    first = second = change = 0.0
    for step, grad in enumerate(grads, start=1):
        grad = grad.double()
        first = beta1 * first + (1 - beta1) * grad
        second = beta2 * second + (1 - beta2) * grad**2
        corrected = (second / (1 - beta2**step)).sqrt()
        change = change - rate * first / (1 - beta1**step) / (corrected + eps)
    return first, second, change


def test_tasks_trained_together_keep_adam_moments_of_their_own_batches():
    """B-F2 (paper B, §3.2): after six alternating batches (a, b, a, b, a, b), a neuron
    of task a alone holds in Adam's moments a's three gradients only, and has moved as
    Adam run on a's batches; b's neuron likewise; the shared neuron's moments hold all
    six."""
    scorers = tasks_on_one_backbone("a", "b")
    # Layer 1 of the union: neuron 0 (a only), 3 (shared), 5 (b only): columns 0, 1, 2.
    neurons = {"a": {1: np.array([0, 3])}, "b": {1: np.array([3, 5])}}
    settings = TrainingSettings(learning_rate=0.01, batch_size=2, max_steps=6, eval_every=6)
    grads, optimizers = [], []

    def before_step(optimizer, args, kwargs):
        optimizers.append(optimizer)
        grads.append({id(p): p.grad.clone() for p in optimizer.param_groups[0]["params"]})

    handle = register_optimizer_step_pre_hook(before_step)
    try:
        deltas, _ = train_neurons_of_tasks(scorers, neurons, settings, progress=False)
    finally:
        handle.remove()
    assert len(grads) == 6 and len({id(o) for o in optimizers}) == 1
    state = optimizers[0].state
    layer = deltas.layers["1"]
    # (parameter, the slice of one neuron's entries) for its output column, input row
    # and bias entry.
    places = [(layer.output, lambda t, n: t[:, n]), (layer.inputs[0], lambda t, n: t[n]),
              (layer.input_biases[0], lambda t, n: t[n])]  # fmt: skip
    for column, steps in ((0, [0, 2, 4]), (2, [1, 3, 5]), (1, range(6))):
        for parameter, entries in places:
            own = [entries(grads[step][id(parameter)], column) for step in steps]
            first, second, change = adam_by_hand(own, 0.01)
            moments = state[parameter]
            torch.testing.assert_close(
                entries(moments["exp_avg"], column).double(), first, rtol=1e-5, atol=1e-9
            )
            torch.testing.assert_close(
                entries(moments["exp_avg_sq"], column).double(), second, rtol=1e-5, atol=1e-12
            )
            if column != 1:  # the shared neuron's steps have their own bias corrections
                torch.testing.assert_close(
                    entries(parameter.detach(), column).double(), change, rtol=1e-4, atol=1e-7
                )
    deltas.remove()


def top_of(task: str, *neurons: int) -> pd.DataFrame:
    """A task-neuron table of the tiny BERT (2 x 32 neurons) ranking ``neurons`` (layer
    0) first, in that order."""
    values = np.zeros((2, 32))
    values[0, list(neurons)] = np.arange(len(neurons), 0, -1)
    return relevance_table(values, task, 0)


def test_the_natural_controlled_row_trains_each_task_its_own_neurons():
    """A.7's natural row is B-F2's training at q: a trains its top {0, 1}, b its {1, 2}
    (N_x = {0, 1, 2}); the drawn set (all of N_y = {2, 3} and one other) is trained by
    both. Shares and Jaccard values counted by hand."""
    scorers = tasks_on_one_backbone("a", "b", "c")
    tables = {"a": top_of("a", 0, 1), "b": top_of("b", 1, 2), "c": top_of("c", 2, 3)}
    settings = TrainingSettings(learning_rate=0.01, batch_size=2, max_steps=2, eval_every=2)
    results, metrics = controlled_overlap(
        scorers, tables, ("cls", "cls"), ["a", "b"], ["c"], 2 / 64, [1.0], settings, seed=0
    )
    assert [m["neurons"] for m in metrics] == [{"a": 2, "b": 2}, {"a": 3, "b": 3}]
    rows = results.drop_duplicates("trained")
    assert rows["trained"].tolist() == ["natural", "drawn"]
    # natural: {0, 1, 2} against {2, 3}; drawn: {2, 3, x}, x outside N_y
    assert rows["overlap"].tolist() == pytest.approx([1 / 3, 2 / 3])
    assert rows["jaccard"].tolist() == pytest.approx([1 / 4, 2 / 3])


def test_masked_adam_is_adam_on_the_entries_of_each_step():
    torch.manual_seed(0)
    values = torch.randn(3, 4)
    grads = [torch.randn(3, 4) for _ in range(4)]
    masks = [torch.tensor([True, False, True])[:, None].expand(3, 4)] * 2 + [
        torch.ones(3, 4, dtype=torch.bool)
    ] * 2
    masked, plain = torch.nn.Parameter(values.clone()), torch.nn.Parameter(values.clone())
    optimizer = MaskedAdam([masked], lr=0.1)
    for grad, mask in zip(grads, masks, strict=True):
        masked.grad = grad.clone()
        optimizer.entries = {masked: mask}
        optimizer.step()
    # rows 0 and 2 took four steps, row 1 the last two: Adam on exactly those
    for row, taken in ((0, grads), (1, grads[2:]), (2, grads)):
        plain.data, plain.grad = values.clone(), None
        reference = torch.optim.Adam([plain], lr=0.1)
        for grad in taken:
            plain.grad = grad.clone()
            reference.step()
        torch.testing.assert_close(masked[row], plain[row], rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="entries is not set"):
        optimizer.step()


def places_by_hand():
    """One layer of 3 neurons: output columns (hidden 2) and input rows (in 2)."""
    output = torch.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, 0.0]])  # [hidden, width]
    inputs = torch.tensor([[1.0, 1.0], [0.0, 2.0], [1.0, 0.0]])  # [width, in]
    return [(output, 1), (inputs, 0)]


def test_neuron_vectors_follow_the_seam_layout():
    torch.manual_seed(0)
    model = FAMILIES["bert-base"][0]()
    site = ffn_sites(model)[0]
    places = neuron_parameters(site, torch.arange(site.width))
    theta = vectors(places, np.array([2]))
    hidden = site.output_projection.weight.shape[0]
    inputs = site.input_projections[0]
    expected = torch.cat(
        [site.output_projection.weight[:, 2], inputs.weight[2], inputs.bias[2:3]]
    ).double()
    assert theta.shape == (1, 2 * hidden + 1)
    np.testing.assert_allclose(theta[0], expected.detach().numpy())


def test_similarity_definitions_on_hand_made_parameters():
    places = places_by_hand()
    # θ_0 = (1, 0, 1, 1), θ_1 = (0, 1, 0, 2), θ_2 = (2, 0, 1, 0); |θ|^2 = 3, 5, 5
    same, disjoint = np.array([0, 1]), (np.array([0]), np.array([1, 2]))
    assert similarity("norm_weighted_overlap", places, same, same) == pytest.approx(1.0)
    assert similarity("centroid", places, same, same[::-1]) == pytest.approx(1.0)
    assert similarity("norm_weighted_overlap", places, *disjoint) == pytest.approx(0.0)
    # partial overlap {0, 1} vs {1, 2}: shared |θ_1|^2 = 5 over sqrt(8 * 10)
    partial = similarity("norm_weighted_overlap", places, np.array([0, 1]), np.array([1, 2]))
    assert partial == pytest.approx(5 / np.sqrt(80))
    theta = np.array([[1, 0, 1, 1], [0, 1, 0, 2], [2, 0, 1, 0]], float)
    centroid = similarity("centroid", places, np.array([0]), np.array([1, 2]))
    mean = theta[1:].mean(axis=0)
    assert centroid == pytest.approx(
        theta[0] @ mean / np.linalg.norm(theta[0]) / np.linalg.norm(mean)
    )
    # rank_paired: (θ_2) against (θ_0), cut to one neuron each
    paired = similarity("rank_paired", places, np.array([2, 1]), np.array([0]))
    assert paired == pytest.approx(theta[2] @ theta[0] / np.sqrt(5 * 3))
    # delta_centroid: the mean change from a base where every entry is 0 except θ_1's
    base = [(torch.zeros(2, 3), 1), (torch.tensor([[0.0, 0.0], [0.0, 2.0], [0.0, 0.0]]), 0)]
    base[0][0][1, 1] = 1.0
    assert np.isnan(similarity("delta_centroid", places, np.array([1]), np.array([1]), base))
    changed = similarity("delta_centroid", places, np.array([0, 1]), np.array([0]), base)
    assert changed == pytest.approx(1.0)
    assert np.isnan(similarity("norm_weighted_overlap", places, np.array([], int), same))
    with pytest.raises(ValueError, match="unknown"):
        similarity("mean", places, same, same)


def test_ranked_sets_keep_relevance_order_per_layer():
    values = np.array([[0.1, 0.9, 0.5, 0.0], [0.8, 0.2, 0.3, 0.05]])
    sets = ranked_sets(relevance_table(values, "t", 0), 0.5)  # top 4 of 8
    assert sets[0].tolist() == [1, 2] and sets[1].tolist() == [0, 2]


def test_layer_similarity_panels_average_the_models_each_panel_names():
    """B-F3 (a, b): a test group against every model; (c): against its own group's."""
    rows = [
        # trained, test_task, similarity at layers 0 and 1
        ("cls_a", "cls_t", (0.2, 0.4)),
        ("gen_a", "cls_t", (0.6, 0.0)),
        ("cls_a", "gen_t", (0.1, 0.1)),
        ("gen_a", "gen_t", (0.5, 0.9)),
    ]
    similarities = pd.DataFrame(
        [
            {
                "layer": layer,
                "test_task": test,
                "definition": "centroid",
                "similarity": value,
                "chance": 0.0,
                "trained": trained,
            }  # fmt: skip
            for trained, test, values in rows
            for layer, value in enumerate(values)
        ]
    )
    groups = {"cls": (["cls_a"], ["cls_t"]), "gen": (["gen_a"], ["gen_t"])}
    layers = layer_similarity_table(similarities, groups)
    panels = {
        view: frame["similarity"].tolist()
        for view, frame in layers.groupby(["test_group", "models"], sort=False)
    }
    assert list(panels) == [("cls", "all"), ("gen", "all"), ("cls", "cls"), ("gen", "gen")]
    assert panels[("cls", "all")] == pytest.approx([0.4, 0.2])
    assert panels[("gen", "all")] == pytest.approx([0.3, 0.5])
    assert panels[("cls", "cls")] == pytest.approx([0.2, 0.4])
    assert panels[("gen", "gen")] == pytest.approx([0.5, 0.9])
    alone = layer_similarity_table(similarities[similarities["trained"] == "cls_a"],
                                   {"cls": groups["cls"]})  # fmt: skip
    assert alone[["test_group", "models"]].drop_duplicates().values.tolist() == [["cls", "all"]]
    assert alone["similarity"].tolist() == pytest.approx([0.2, 0.4])


def test_correlation_table_needs_four_points_and_pools_within_tasks():
    rows = []
    for task, level in (("x", 10.0), ("y", 50.0)):
        for model, value in enumerate([1.0, 2.0, 3.0]):  # exact after centring
            rows.append({"trained": f"m{model}", "test_task": task, "similarity": value + level,
                         "score": 2 * value + level})  # fmt: skip
    table = correlation_table(pd.DataFrame(rows))
    assert table["test_task"].tolist() == ["x", "y", "pooled"]
    assert table.loc[:1, "pearson"].isna().all()  # 3 models per task
    pooled = table.iloc[-1]
    assert pooled["points"] == 6 and pooled["pearson"] == pytest.approx(1.0)
    assert pooled["spearman"] == pytest.approx(1.0)


def test_task_groups_follow_the_types_unless_given():
    types = {"a": "sentiment", "b": "sentiment", "c": "topic", "d": "inference"}
    assert task_groups(list(types), types) == (["a", "c", "d"], ["b"])
    assert task_groups(list(types), types, ["a"], None) == (["a"], ["b", "c", "d"])
    with pytest.raises(ValueError, match="not among paper_b.tasks"):
        task_groups(list(types), types, ["z"])
    with pytest.raises(ValueError, match="both training and test"):
        task_groups(list(types), types, ["a"], ["a", "b"])
    # the generation group's keys are named in its errors
    with pytest.raises(ValueError, match=r"paper_b.generation.test_tasks \['z'\] are not among"):
        task_groups(list(types), types, None, ["z"], "paper_b.generation", "its tasks")


def test_auto_test_tasks_take_an_other_task_of_each_trained_type():
    types = {"s1": "sentiment", "s2": "sentiment", "t1": "topic", "i1": "inference",
             "t2": "topic", "t3": "topic"}  # fmt: skip
    # part 1 on s1, s2, t1: they train s1 and t1; the tests reach t2 beyond part 1, and
    # the inference task, whose type does not train, tests nothing
    part_one = ["s1", "s2", "t1"]
    assert task_groups(part_one, types, None, "auto", configured=list(types)) == (
        ["s1", "t1"],
        ["s2", "t2"],
    )
    assert task_groups(["s1", "t1"], types, None, "auto", configured=["s1", "t1"]) == (
        ["s1", "t1"],
        [],
    )


def correct_at(accuracy: float, seed: int) -> np.ndarray:
    values = np.arange(SAMPLES) < round(accuracy * SAMPLES)
    return np.random.default_rng(seed).permutation(values).astype(np.float64)


def sweep(accuracies: dict[float, tuple[float, float]], experiment="multitask", trained="group",
          collapsed=(), group="cls"):  # fmt: skip
    """A B-F2 results frame: per share, (in-domain, out-of-domain) accuracy; the
    (share, task) pairs in ``collapsed`` predicted one class."""
    rows = []
    for index, (proportion, (id_accuracy, ood_accuracy)) in enumerate(accuracies.items()):
        for task, role, value in (("a", "id", id_accuracy), ("b", "ood", ood_accuracy)):
            classes = 1 if (proportion, task) in collapsed else 2
            rows.append({"experiment": experiment, "group": group, "trained": trained,
                         "proportion": proportion, "overlap": np.nan, "eval_task": task,
                         "eval_group": group, "role": role, "metric": "accuracy",
                         "score": value, "predicted_classes": classes,
                         "sample_scores": correct_at(value, index)})  # fmt: skip
    return results_frame(rows)


def test_proportion_table_starts_from_zero_shot():
    results = sweep({0.1: (0.6, 0.55), 1.0: (0.8, 0.7)}, collapsed={(1.0, "b")})
    table = proportion_table(results, {"a": 0.5, "b": 0.5})
    assert table["proportion"].tolist() == [0.0, 0.1, 1.0]
    assert np.isnan(table["single_class_tasks"].iloc[0])  # zero-shot: not recorded
    assert table["single_class_tasks"].tolist()[1:] == [0.0, 1.0]
    assert table["id_mean"].tolist() == pytest.approx([50.0, 60.0, 80.0])
    assert table["ood_mean"].tolist() == pytest.approx([50.0, 55.0, 70.0])


def test_a_group_of_one_training_task_takes_its_b_f6_sweep_from_b_f2():
    alone = sweep({0.1: (0.6, 0.5), 1.0: (0.8, 0.7)}, group="gen")  # trains task a only
    pair = sweep({0.1: (0.7, 0.5), 1.0: (0.9, 0.6)})
    pair = pd.concat([pair, pair[pair["role"] == "id"].assign(eval_task="c")], ignore_index=True)
    per_task = sweep({0.1: (0.65, 0.5), 1.0: (0.85, 0.6)}, experiment="single", trained="a")
    single = with_single_task_groups(pd.concat([pair, alone]), [per_task])
    filled = single[single["group"] == "gen"]
    assert filled["experiment"].unique().tolist() == ["single"]
    assert filled["trained"].unique().tolist() == ["a"]
    assert filled["score"].tolist() == alone["score"].tolist() == [0.6, 0.5, 0.8, 0.7]
    assert single[single["group"] == "cls"]["score"].tolist() == per_task["score"].tolist()
    assert len(single) == len(per_task) + len(alone)  # the two-task group is not filled in
    assert with_single_task_groups(pair, []).empty


def test_share_claims_read_fixed_contrasts():
    peaked = sweep({0.1: (0.6, 0.5), 0.5: (0.9, 0.6), 1.0: (0.7, 0.8)})
    row = share_contrast(SPECIALIZATION_PEAK, peaked, "id", 0.5, 1.0, SETTINGS)
    assert row["estimate"] == pytest.approx(0.2) and row["verdict"] == "holds"
    flat = sweep({0.1: (0.7, 0.5), 0.5: (0.7, 0.5), 1.0: (0.7, 0.5)})
    row = share_contrast(SPECIALIZATION_PEAK, flat, "id", 0.5, 1.0, SETTINGS)
    assert row["estimate"] == pytest.approx(0.0) and row["verdict"] == "inconclusive"
    rising = share_contrast(SPECIALIZATION_PEAK, peaked, "ood", 1.0, 0.1, SETTINGS)
    assert rising["estimate"] == pytest.approx(0.3) and rising["verdict"] == "holds"
    # A compared model that predicted one class keeps its numbers but no verdict; a
    # collapse at a share the contrast does not read changes nothing.
    collapsed = sweep({0.1: (0.6, 0.5), 0.5: (0.9, 0.6), 1.0: (0.7, 0.8)}, collapsed={(1.0, "a")})
    row = share_contrast(SPECIALIZATION_PEAK, collapsed, "id", 0.5, 1.0, SETTINGS)
    assert row["estimate"] == pytest.approx(0.2) and row["verdict"] == "not measured"
    assert row["note"].startswith("collapsed to one class: group at 1 on a")
    row = share_contrast(SPECIALIZATION_PEAK, collapsed, "id", 0.5, 0.1, SETTINGS)
    assert row["verdict"] == "holds"


def test_share_claims_and_tables_take_the_training_runs():
    # paper_b.runs 3: run r peaks at 0.8 + 0.05 r (B-F2's in-domain peak at 50%)
    runs = pd.concat(
        [
            with_run(sweep({0.1: (0.6, 0.5), 0.5: (0.8 + 0.05 * r, 0.6), 1.0: (0.7, 0.8)}), r)
            for r in range(3)
        ],
        ignore_index=True,
    )
    row = share_contrast(SPECIALIZATION_PEAK, runs, "id", 0.5, 1.0, SETTINGS)
    # the peak's excess 0.1, 0.15, 0.2: their mean, the runs resampled above the samples
    assert row["estimate"] == pytest.approx(0.15) and row["runs"] == 3
    assert row["resampled"].endswith(": training runs 3 > a: test samples 200")
    one = share_contrast(SPECIALIZATION_PEAK, runs[runs["run"] == 1], "id", 0.5, 1.0, SETTINGS)
    assert one["estimate"] == pytest.approx(0.15)
    assert one["ci_high"] - one["ci_low"] < row["ci_high"] - row["ci_low"]
    # B-F2's table shows the mean over the runs (rows without overlap: NaN keys kept)
    mean = run_means(runs, KEYS)
    assert len(mean) == len(runs) // 3 and "run" not in mean
    table = proportion_table(mean, {"a": 0.5, "b": 0.5})
    assert table["id_mean"].tolist() == pytest.approx([50.0, 60.0, 85.0, 70.0])


def test_share_claims_are_decided_at_one_learning_rate():
    peaked = sweep({0.1: (0.6, 0.5), 0.5: (0.9, 0.6), 1.0: (0.7, 0.8)})
    one = peaked.assign(learning_rate=0.001)
    row = share_contrast(SPECIALIZATION_PEAK, one, "id", 0.5, 1.0, SETTINGS)
    assert row["verdict"] == "holds"
    assert row["effect"].endswith("; every share at learning rate 0.001")
    # 0.1 / p above 10% (learning_rate_share 0.1): the share and the rate confounded
    scaled = peaked.assign(learning_rate=0.001 * np.minimum(1.0, 0.1 / peaked["proportion"]))
    row = share_contrast(SPECIALIZATION_PEAK, scaled, "id", 0.5, 1.0, SETTINGS)
    assert row["estimate"] == pytest.approx(0.2) and row["verdict"] == "not measured"
    assert "learning rate changes with the share (0.0002 at 0.5, 0.0001 at 1)" in row["note"]


def test_controlled_claim_and_table():
    rows = []
    for q in (0.1, 0.3):
        for trained, share, value in (("natural", 0.2, 0.6), ("drawn", 0.1, 0.5),
                                      ("drawn", 1.0, 0.7)):  # fmt: skip
            rows.append({"experiment": "controlled", "group": "cls", "trained": trained,
                         "proportion": q, "overlap": share, "jaccard": share / 2,
                         "eval_task": "b",
                         "eval_group": "cls", "role": "ood", "metric": "accuracy",
                         "score": value, "predicted_classes": 2,
                         "sample_scores": correct_at(value, int(10 * share))})  # fmt: skip
    frame = results_frame(rows)
    row = controlled_claim(frame, SETTINGS)
    assert row["claim"] == CONTROLLED_RISES.claim
    assert row["estimate"] == pytest.approx(0.2) and row["verdict"] == "holds"
    # The natural set is not compared: its collapse leaves the verdict.
    natural = frame["trained"] == "natural"
    assert controlled_claim(frame.assign(predicted_classes=np.where(natural, 1, 2)),
                            SETTINGS)["verdict"] == "holds"  # fmt: skip
    drawn_high = (frame["trained"] == "drawn") & (frame["overlap"] == 1.0)
    refused = controlled_claim(frame.assign(predicted_classes=np.where(drawn_high, 1, 2)),
                               SETTINGS)  # fmt: skip
    assert refused["verdict"] == "not measured" and "drawn at 0.1 on b" in refused["note"]
    table = controlled_table({"cls-cls": frame})
    assert table["trained"].tolist() == ["natural", "drawn", "drawn"] * 2
    assert set(table["pair"]) == {"cls-cls"}
    assert table["overlap"].tolist() == pytest.approx([20.0, 10.0, 100.0] * 2)
    assert table["jaccard"].tolist() == pytest.approx([10.0, 5.0, 50.0] * 2)
    assert table["ood_mean"].tolist() == pytest.approx([60.0, 50.0, 70.0] * 2)
    # Two pairs of one training group draw sets of the same shares: kept apart.
    other = frame.assign(score=frame["score"] - 0.1)
    both = controlled_table({"gen-gen": frame, "gen-cls": other})
    assert both["pair"].tolist() == ["gen-cls"] * 6 + ["gen-gen"] * 6
    assert both["ood_mean"].tolist() == pytest.approx(
        [50.0, 40.0, 60.0] * 2 + [60.0, 50.0, 70.0] * 2
    )


def test_overlap_table_and_claims_on_shared_and_random_neurons():
    rng = np.random.default_rng(0)
    shared = rng.random((2, 500))
    noise = lambda: rng.random((2, 500))  # noqa: E731
    train = {"a": relevance_table(shared + 0.1 * noise(), "a", 0)}
    related = {"b": relevance_table(shared + 0.1 * noise(), "b", 0)}
    table = overlap_table({"cls": (train, related)}, [0.1, 0.5, 1.0])
    assert table["pair"].tolist() == ["cls-cls"] * 3
    assert table["train_neurons"].tolist() == [100, 500, 1000]
    assert table["overlap"].iloc[-1] == pytest.approx(100.0)
    assert table["random_overlap"].iloc[0] == pytest.approx(100 * random_overlap(100, 100, 1000))
    # one training and one test task: the tasks, B-T8's only units that replicate,
    # have one level each: not decidable here, no Holm slot
    single = overlap_claims(train, related, [0.1, 0.5, 1.0], SETTINGS)
    assert {row["verdict"] for row in single} == {"not decidable here"}
    assert "1 training and 1 test task(s)" in single[0]["note"]
    assert all(row["_test"] is None for row in single)


def test_overlap_claims_test_the_excess_over_random_sets_at_each_share():
    rng = np.random.default_rng(0)
    shared = rng.random((2, 500))

    def tasks(names, values):
        return {n: relevance_table(values + 0.02 * rng.random((2, 500)), n, 0) for n in names}

    # The test tasks' top 10% sinks to the bottom: their top 10% sets miss the training
    # tasks' (below random), their top 50% sets share most (above it).
    sunk = np.where(shared > np.quantile(shared, 0.9), -shared, shared)
    train, test = tasks("abe", shared), tasks("cd", sunk)
    shares = [0.1, 0.5, 1.0]
    above, rises = overlap_claims(train, test, shares, SETTINGS)
    # every share below 100% must be above random: 10% is below it, so it cannot hold;
    # the row shows the weakest share (10%) and each share in its note
    assert above["estimate"] < -0.02 and above["verdict"] != "holds"
    assert "share 0.1 -0." in above["note"] and "share 0.5 +0." in above["note"]
    assert rises["verdict"] == "holds"
    assert rises["estimate"] > 0.3
    assert rises["resampled"].endswith("training tasks 3, test tasks 2, neurons 1000")
    # two training tasks leave a t interval with one degree of freedom: not decidable
    two = overlap_claims(tasks("ab", shared), test, shares, SETTINGS)
    assert {row["verdict"] for row in two} == {"not decidable here"}
    # No training stands behind B-T8 (the base model's neurons): runs 0, and min_runs,
    # which keeps one-run training claims inconclusive, does not hold it back.
    strict = BootstrapSettings(resamples=200, alpha=0.05, seed=5, min_runs=3)
    _, decided = overlap_claims(train, test, shares, strict)
    assert (decided["runs"], decided["verdict"]) == (0, "holds")
    assert "training run" not in decided["note"]
    # Unrelated tasks: the raw overlap rate rises with the share by arithmetic alone,
    # the excess over random sets does not.
    unrelated = tasks("cd", rng.random((2, 500)))
    raw = overlap_table({"cls": (train, unrelated)}, shares)["overlap"]
    assert raw.iloc[1] > raw.iloc[0] + 20
    chance, flat = overlap_claims(train, unrelated, shares, SETTINGS)
    assert abs(flat["estimate"]) < 0.03 and flat["verdict"] in ("negligible", "inconclusive")
    assert chance["verdict"] in ("negligible", "inconclusive", "fails")


def top_two(task: str, first: int) -> pd.DataFrame:
    """A task-neuron table over one layer of 10 neurons whose top 20% are ``first`` and
    ``first + 1``."""
    values = np.zeros((1, 10))
    values[0, [first, first + 1]] = [2.0, 1.0]
    return relevance_table(values, task, 0)


def test_overlap_table_pairs_every_training_group_with_every_test_group():
    # top 20%: cls trains {0, 1}, tests {1, 2}; gen trains {5, 6}, tests {6, 7}.
    groups = {
        "cls": ({"a": top_two("a", 0)}, {"b": top_two("b", 1)}),
        "gen": ({"c": top_two("c", 5)}, {"d": top_two("d", 6)}),
    }
    table = overlap_table(groups, [0.2])
    assert table["pair"].tolist() == ["cls-cls", "cls-gen", "gen-cls", "gen-gen"]
    # one shared neuron of three (cls-cls, gen-gen); none across the groups
    assert table["overlap"].tolist() == pytest.approx([100 / 3, 0.0, 0.0, 100 / 3])
    # random sets of 2 and 2 of 10 neurons: 0.4 shared of 3.6
    assert table["random_overlap"].tolist() == pytest.approx([100 * 0.4 / 3.6] * 4)
    wider = {"a": relevance_table(np.zeros((1, 12)), "a", 0)}
    with pytest.raises(ValueError, match="one model"):
        overlap_table({"cls": groups["cls"], "gen": (wider, wider)}, [0.2])


def test_overlap_table_records_eq_13_and_the_share_of_training_neurons():
    """Hand-counted: training tasks a {0, 1} and c {2, 3}, test task b {3, 4}, of 10
    neurons (top 20% each). Eq. 13 (Jaccard): |{3}| / |{0..4}| = 1/5; the share of
    N_x in N_y: 1/4. Random sets of 4 and 2: 0.8 shared of 5.2 (Jaccard), 2/10 of N_x
    (share)."""
    train = {"a": top_two("a", 0), "c": top_two("c", 2)}
    table = overlap_table({"cls": (train, {"b": top_two("b", 3)})}, [0.2])
    row = table.iloc[0]
    assert (row["train_neurons"], row["test_neurons"]) == (4, 2)
    assert row["overlap"] == pytest.approx(20.0)
    assert row["test_share"] == pytest.approx(25.0)
    assert row["random_overlap"] == pytest.approx(100 * 0.8 / 5.2)
    assert row["random_test_share"] == pytest.approx(20.0)


def test_overlap_claims_name_their_pair_of_groups():
    train, test = {"a": top_two("a", 0)}, {"b": top_two("b", 1)}
    above, rises = overlap_claims(train, test, [0.2, 0.5], SETTINGS, "gen-cls")
    assert above["claim"].endswith("(gen-cls)")
    assert above["paper_value"] == "11.8% at 10% (gen-cls)"
    assert rises["paper_value"] == "11.8 -> 81.8% from 10% to 70% (gen-cls)"
    plain, _ = overlap_claims(train, test, [0.2, 0.5], SETTINGS)
    assert plain["claim"] == OVERLAP_ABOVE_RANDOM.claim


def test_similarity_claim_pools_within_tasks():
    rows = [
        {
            "trained": f"m{m}",
            "test_task": task,
            "similarity": s + level,
            "chance": 0.1,
            "score": a + level,
        }  # fmt: skip
        for task, level in (("x", 0.0), ("y", 5.0))
        for m, (s, a) in enumerate([(0.1, 50), (0.2, 60), (0.3, 70), (0.4, 75)])
    ]
    row = similarity_claim(pd.DataFrame(rows), SETTINGS)
    assert row["estimate"] > 0.95 and row["verdict"] == "holds"
    assert similarity_claim(pd.DataFrame(rows[:3]), SETTINGS)["verdict"] == "not measured"


def test_the_learning_rate_shrinks_in_proportion_above_its_share():
    base = TrainingSettings(learning_rate=0.001, batch_size=8, max_steps=30, seed=3)
    assert training_for_share(base, 0.5, 0.1).learning_rate == pytest.approx(0.0002)
    assert training_for_share(base, 1.0, 0.1).learning_rate == pytest.approx(0.0001)
    assert training_for_share(base, 0.1, 0.1) == base  # the share the rate was set for
    assert training_for_share(base, 0.05, 0.1) == base  # never raised below it
    assert training_for_share(base, 1.0, None) == base  # one rate for every share
    scaled = training_for_share(base, 0.5, 0.1)
    assert (scaled.batch_size, scaled.max_steps, scaled.seed) == (8, 30, 3)


def test_both_groups_tables_and_claims_tell_the_pairs_apart():
    # cls trains: id a (cls), ood b (cls), ood g (gen, flat); gen trains: id h, ood g rising
    rows = []
    for group, scores in (("cls", {"a": (0.6, 0.8), "b": (0.5, 0.7), "g": (0.2, 0.2)}),
                          ("gen", {"h": (0.3, 0.6), "g": (0.2, 0.5)})):  # fmt: skip
        for index, proportion in enumerate((0.1, 0.5, 1.0)):
            for task, (low, high) in scores.items():
                value = low if proportion == 0.1 else high
                rows.append({"experiment": "multitask", "group": group, "trained": "group",
                             "proportion": proportion, "overlap": np.nan, "eval_task": task,
                             "eval_group": "gen" if task in "gh" else "cls",
                             "role": "id" if task in "ah" else "ood", "metric": "accuracy",
                             "score": value, "predicted_classes": 0,
                             "sample_scores": correct_at(value, index)})  # fmt: skip
    results = results_frame(rows)
    table = proportion_table(results, {"a": 0.5, "b": 0.5, "g": 0.1, "h": 0.1})
    cls = table[table["group"] == "cls"]
    assert cls["ood_mean"].tolist() == pytest.approx([50.0, 50.0, 70.0, 70.0])
    assert cls["ood_cross_mean"].tolist() == pytest.approx([10.0, 20.0, 20.0, 20.0])
    gen = table[table["group"] == "gen"]
    assert gen["ood_mean"].tolist() == pytest.approx([10.0, 20.0, 50.0, 50.0])
    claims = {row["claim"]: row for row in proportion_claims(results, SETTINGS)}
    flat = claims[CLS_GEN_FLAT.claim]
    assert flat["estimate"] == pytest.approx(0.3) and flat["verdict"] == "holds"
    rises = claims[generalization_claim("gen-gen").claim]
    assert rises["estimate"] == pytest.approx(0.3) and rises["claim"].endswith("(gen-gen)")
    assert claims[GENERALIZATION_RISES.claim]["estimate"] == pytest.approx(0.2)  # cls -> cls
    assert generalization_claim("cls-gen").claim not in claims  # decided as CLS_GEN_FLAT
