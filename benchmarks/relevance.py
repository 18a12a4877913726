"""The ``relevance`` row: paper B's attribution pass (Eqs. 2-3: one forward capturing the
seam's activations with their gradients, one backward, the products g·a accumulated)
against a plain forward + backward of the same loss on the same batch with every
backbone weight trainable (a fine-tuning step without the optimizer). The attribution
needs the activations' gradients only, never a weight's, so it can at most match the
plain pass; the target allows 10% for the hooks and the accumulation."""

from __future__ import annotations

from torch.nn import functional

from benchmarks.common import MINILM, Ratio, Row, median_times
from skillneurons.models.encoding import encode_split
from skillneurons.models.loading import LoadedModel, load_model
from skillneurons.paper_b.classifiers import task_classifier, unfreeze_backbone
from skillneurons.paper_b.relevance import relevance

#: Attribution pass / plain forward + backward at the same shapes.
TARGET = 1.1


def review_split(loaded, count: int, max_length: int = 64):
    """``count`` review-like texts of about ``max_length`` tokens, labels alternating."""
    texts = [f"review {i}: " + "the plot was gripping and long " * 10 for i in range(count)]
    labels = [i % 2 for i in range(count)]
    return encode_split(loaded.tokenizer, texts, [None] * count, labels, max_length)


def run(repeats: int, batch_size: int = 32, loaded: LoadedModel | None = None) -> Row:
    """The row on MiniLM-L6, or on ``loaded`` (on its device; benchmarks/gpu.py)."""
    loaded = loaded or load_model(MINILM)
    name = "MiniLM-L6" if loaded.source == MINILM else loaded.source
    classifier = task_classifier(loaded, ["Negative", "Positive"])
    split = review_split(loaded, batch_size)
    batch = split.batch(range(batch_size), classifier.pad_id, loaded.model.device)

    def attribution():
        for parameter in loaded.model.parameters():
            parameter.requires_grad_(False)
        relevance(classifier, split, batch_size)

    def plain():
        unfreeze_backbone(loaded, freeze_embeddings=False)
        classifier.zero_grad(set_to_none=True)
        logits = classifier(**batch)
        functional.cross_entropy(logits, batch["labels"], reduction="sum").backward()

    classifier.eval()
    times = median_times({"plain": plain, "relevance": attribution}, repeats)
    positions = batch["input_ids"].shape[1]
    return Row(
        "relevance",
        [
            f"relevance: {name}, one batch of {batch_size} x {positions} tokens",
            f"  plain forward + backward {1000 * times['plain']['median_s']:7.1f} ms, "
            f"attribution pass {1000 * times['relevance']['median_s']:7.1f} ms",
        ],
        [
            Ratio.paired(
                "attribution / plain forward + backward",
                times["relevance"]["wall"],
                times["plain"]["wall"],
                TARGET,
            )
        ],
        {name: value["median_s"] for name, value in times.items()},
    )
