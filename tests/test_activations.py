"""Activations on soft prompts: capture, Eq. 3 baselines and the Parquet dump contract."""

import math

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch

from skillneurons.data.subsets import SubsetError, subset_rows
from skillneurons.infra.io import read_metadata
from skillneurons.models.encoding import EncodedSplit, encode_split
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.neurons.activation_dump import (
    ActivationWriter,
    activation_shape,
    iter_activations,
    read_activations,
)
from skillneurons.neurons.activations import (
    activation_moments,
    baseline_activation,
    dump_activations,
    input_token_activations,
    position_std,
    prompt_activations,
)
from skillneurons.neurons.hooks import capture_activations
from tiny_models import tiny, word_tokenizer

PROMPT_LENGTH = 3
TEXTS = [
    "very good",
    "not bad very bad",
    "good",
    "bad bad not good very good",
    "not good",
    "very very bad",
    "good not bad",
]
LABELS = [1, 0, 1, 1, 0, 0, 1]


def tiny_classifier(kind: str) -> PromptedClassifier:
    """2 layers; 32 neurons per layer (BERT) or 64 (GPT-2)."""
    kind = "causal_lm" if kind == "causal_lm" else "masked_lm"
    return PromptedClassifier(
        tiny(kind, word_tokenizer()), ["Negative", "Positive"], PROMPT_LENGTH, seed=1
    )


@pytest.fixture(scope="module", params=["masked_lm", "causal_lm"])
def classifier(request):
    return tiny_classifier(request.param)


@pytest.fixture(scope="module")
def split(classifier):
    tokenizer = word_tokenizer()
    return encode_split(tokenizer, TEXTS, [None] * len(TEXTS), LABELS, max_length=16)


def neurons_of(classifier) -> int:
    return 64 if classifier.kind == "causal_lm" else 32


def all_positions(classifier, batch) -> torch.Tensor:
    """``[batch, layers, sequence, neurons]`` captured by hand, in eval mode."""
    classifier.eval()
    with torch.no_grad(), capture_activations(classifier) as capture:
        classifier(**batch)
    return capture.stacked()


def consecutive(count: int, size: int) -> list[list[int]]:
    return [list(range(i, min(i + size, count))) for i in range(0, count, size)]


# --------------------------------------------------------------------------- capture


def test_prompt_activations_equal_the_hand_capture_at_prompt_positions(classifier, split):
    batch = split.batch([0, 1, 3], classifier.pad_id)
    classifier.train()  # dropout on: the capture must still run in eval mode
    classifier.backbone.get_input_embeddings().eval()  # mixed modes must survive
    modes = [module.training for module in classifier.modules()]
    got = prompt_activations(classifier, batch)
    assert [module.training for module in classifier.modules()] == modes  # restored
    expected = all_positions(classifier, batch)[:, :, classifier.prompt_positions]
    assert got.dtype == torch.float32
    assert got.shape == (3, 2, PROMPT_LENGTH, neurons_of(classifier))
    assert torch.equal(got, expected)
    got += 1.0  # an ordinary tensor, not an inference tensor: callers may edit it


def test_input_token_mean_and_max_exclude_prefix_and_padding(classifier, split):
    rows = [2, 3, 0]  # 1, 6 and 2 input tokens: heavy padding on two samples
    batch = split.batch(rows, classifier.pad_id)
    got = input_token_activations(classifier, batch)
    assert got.shape == (3, 2, 2, neurons_of(classifier))
    full = all_positions(classifier, batch)
    width, lengths = batch["input_ids"].shape[1], batch["attention_mask"].sum(dim=1).tolist()
    # Where row b's input tokens sit: after [MASK] and the prompts (masked models), or
    # right-aligned in front of the prompts (causal LMs, padded on the left).
    starts = [classifier.added_length if classifier.masked else width - n for n in lengths]
    for b, (start, length) in enumerate(zip(starts, lengths, strict=True)):
        inputs = full[b, :, start : start + length]  # [layers, length, neurons]
        torch.testing.assert_close(got[b, :, 0], inputs.mean(dim=1), rtol=0, atol=1e-6)
        assert torch.equal(got[b, :, 1], inputs.amax(dim=1))
    # The test has power: including prompts or padding would change the short sample.
    start, length = starts[0], lengths[0]
    with_padding = full[0, :, start:] if classifier.masked else full[0, :, :width]
    with_prompts = full[0, :, 1 : start + length] if classifier.masked else full[0, :, start:]
    for wrong in (with_padding, with_prompts):
        assert not torch.allclose(got[0, :, 0], wrong.mean(dim=1), atol=1e-4)


def test_baseline_is_the_mean_over_the_split_eq3(classifier, split):
    everything = split.batch(range(len(split)), classifier.pad_id)
    at_once = prompt_activations(classifier, everything).double()
    baseline = baseline_activation(classifier, split, batch_size=3)  # 7 = 3 + 3 + 1
    assert baseline.dtype == torch.float32
    assert baseline.shape == (2, PROMPT_LENGTH, neurons_of(classifier))
    torch.testing.assert_close(baseline, at_once.mean(dim=0).float(), rtol=0, atol=1e-6)
    # 4 of the 7 samples (labels 1 0 1 1 0 0 1): a seeded, label-stratified draw.
    drawn = baseline_activation(classifier, split, batch_size=3, max_samples=4, seed=0)
    rows = subset_rows(LABELS, 4, 0)
    assert sorted(np.asarray(LABELS)[rows]) == [0, 0, 1, 1]
    torch.testing.assert_close(drawn, at_once[rows].mean(dim=0).float(), rtol=0, atol=1e-6)
    inputs = input_token_activations(classifier, everything).double().mean(dim=0).float()
    reduced = baseline_activation(classifier, split, 2, reduce=input_token_activations)
    torch.testing.assert_close(reduced, inputs, rtol=0, atol=1e-6)


# --------------------------------------------------------------------------- dumps


def test_dump_round_trip_streams_one_row_group_per_batch(classifier, split, tmp_path):
    path = tmp_path / "dev.parquet"
    idx = list(range(10, 10 + len(split)))
    meta = {"task": "toy", "trial": 2, "label_names": ["negative", "positive"]}
    written = dump_activations(classifier, split, idx, str(path), batch_size=3, metadata=meta)
    assert written == len(split) == 7

    batches = consecutive(len(split), 3)
    expected = torch.cat(
        [prompt_activations(classifier, split.batch(rows, classifier.pad_id)) for rows in batches]
    ).half()
    whole = read_activations(path)
    assert whole.idx.dtype == np.int64 and whole.idx.tolist() == idx
    assert whole.labels.dtype == np.int64 and whole.labels.tolist() == LABELS
    assert whole.activations.dtype == np.float16
    assert torch.equal(torch.from_numpy(whole.activations), expected)

    streamed = list(iter_activations(path))
    assert [len(batch) for batch in streamed] == [3, 3, 1]
    assert pq.ParquetFile(path).num_row_groups == math.ceil(7 / 3)
    assert not streamed[0].activations.flags.owndata  # a view of the Arrow buffer
    assert np.array_equal(np.concatenate([b.activations for b in streamed]), whole.activations)
    assert np.concatenate([b.idx for b in streamed]).tolist() == idx

    shape = (2, PROMPT_LENGTH, neurons_of(classifier))
    assert activation_shape(path) == shape
    assert read_metadata(path) == {
        **meta,
        "shape": list(shape),
        "dtype": "float16",
        "layout": "[layers, tokens, neurons]",
        "positions": "prompt",
    }
    assert pq.read_schema(path).field("activations").type == pa.binary(math.prod(shape) * 2)

    labels_only = next(iter_activations(path, columns=["label"]))
    assert labels_only.activations is None and labels_only.labels.tolist() == LABELS[:3]


def test_dump_honours_max_samples_reduce_and_order(classifier, split, tmp_path):
    idx = list(range(len(split)))
    path = tmp_path / "first.parquet"
    written = dump_activations(
        classifier,
        split,
        idx,
        path,
        batch_size=2,
        metadata={},
        reduce=input_token_activations,
        max_samples=5,
    )
    assert written == 5
    assert pq.ParquetFile(path).num_row_groups == math.ceil(5 / 2)
    whole = read_activations(path)
    assert whole.idx.tolist() == subset_rows(LABELS, 5, 0).tolist()  # drawn, in split order
    assert activation_shape(path) == (2, 2, neurons_of(classifier))
    assert read_metadata(path)["positions"] == "input_mean_max"

    by_length = tmp_path / "sorted.parquet"
    dump_activations(classifier, split, idx, by_length, batch_size=3, metadata={}, by_length=True)
    sorted_rows = read_activations(by_length)
    lengths = [len(split.input_ids[i]) for i in sorted_rows.idx]
    assert lengths == sorted(lengths) and sorted(sorted_rows.idx.tolist()) == idx
    assert sorted_rows.labels.tolist() == [LABELS[i] for i in sorted_rows.idx]


def test_empty_split_gives_an_empty_dump_with_its_shape(classifier, split, tmp_path):
    path = tmp_path / "empty.parquet"
    empty = EncodedSplit(
        input_ids=[], token_type_ids=None, labels=torch.zeros(0, dtype=torch.long)
    )
    assert dump_activations(classifier, empty, [], path, batch_size=4, metadata={}) == 0
    shape = (2, PROMPT_LENGTH, neurons_of(classifier))
    assert activation_shape(path) == shape
    assert read_activations(path).activations.shape == (0, *shape)


# --------------------------------------------------------------------------- writer


def test_failed_write_leaves_no_file_and_no_temp_file(tmp_path):
    path = tmp_path / "out.parquet"
    block = np.ones((2, 2, 3, 4), dtype=np.float16)
    with pytest.raises(RuntimeError, match="boom"):
        with ActivationWriter(path, (2, 3, 4), {"task": "toy"}) as writer:
            writer.write([0, 1], [1, 0], block)
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []

    with pytest.raises(ValueError, match=r"must be \[rows, 2, 3, 4\].*got \[2, 2, 3, 5\]"):
        with ActivationWriter(path, (2, 3, 4), {}) as writer:
            writer.write([0, 1], [1, 0], np.ones((2, 2, 3, 5), dtype=np.float16))
    assert list(tmp_path.iterdir()) == []

    with pytest.raises(ValueError, match=r"metadata \['shape'\] contradict"):
        ActivationWriter(path, (2, 3, 4), {"shape": [1, 1, 1]})


def test_writer_stores_float16_little_endian_blocks(tmp_path):
    path = tmp_path / "out.parquet"
    block = torch.randn(5, 2, 3, 4, generator=torch.Generator().manual_seed(0))
    with ActivationWriter(path, (2, 3, 4), {}) as writer:
        writer.write(torch.arange(2), torch.tensor([1, 0]), block[:2])
        writer.write(np.arange(2, 5), np.array([0, 0, 1]), block[2:])
    assert writer.rows == 5
    raw = pq.read_table(path)["activations"].combine_chunks()
    first = np.frombuffer(raw[0].as_py(), dtype="<f2").reshape(2, 3, 4)
    assert np.array_equal(first, block[0].half().numpy())
    assert torch.equal(torch.from_numpy(read_activations(path).activations), block.half())


def test_subsets_of_a_label_sorted_split_cover_every_class(classifier, tmp_path):
    """Hub copies of IMDB and DBpedia are sorted by label: the first 3 of these 8 rows
    are all negative. Eq. 3's baseline, each neuron's stds and the dumps read a seeded,
    label-stratified draw instead: 3 rows = 1 negative + 2 positives (proportional to
    3:5), the same rows for every stage, in split order."""
    texts = ["bad", "not good", "very bad", "good", "very good", "not bad", "good good", "good"]
    labels = [0, 0, 0, 1, 1, 1, 1, 1]
    split = encode_split(word_tokenizer(), texts, [None] * 8, labels, max_length=16)
    rows = subset_rows(labels, 3, seed=11)
    assert [labels[row] for row in rows] == [0, 1, 1]
    everything = prompt_activations(classifier, split.batch(range(8), classifier.pad_id))
    mean, std = activation_moments(classifier, split, 2, max_samples=3, seed=11)
    chosen = everything[rows].double()
    torch.testing.assert_close(mean, chosen.mean(dim=0).float(), rtol=0, atol=1e-6)
    torch.testing.assert_close(std, chosen.std(dim=0, unbiased=False).float(), rtol=0, atol=1e-5)
    assert position_std(classifier, split, 2, max_samples=3, seed=11).shape == mean[:, 0].shape
    path = tmp_path / "test.parquet"
    written = dump_activations(
        classifier, split, list(range(100, 108)), path, batch_size=2, metadata={},
        max_samples=3, seed=11,
    )  # fmt: skip
    assert written == 3
    dumped = read_activations(path)
    assert dumped.idx.tolist() == [100 + row for row in rows]
    assert dumped.labels.tolist() == [0, 1, 1]
    message = r"syn_imdb/train: .*leaves out class\(es\) \[0\].*raise the sample count"
    with pytest.raises(SubsetError, match=message):
        baseline_activation(classifier, split, 2, max_samples=1, seed=11, name="syn_imdb/train")
