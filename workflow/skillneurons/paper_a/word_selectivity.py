"""Words related to a skill neuron (paper A, §4.4, Table 2 and appendix F, Table 6).

Paper A checks that skill neurons are not mere keyword detectors by listing, for each
task's top skill neuron, the vocabulary tokens

- with the highest and lowest **cosine similarity** between their input embedding and
  the neuron's input weight vector ``K_i`` (Dai et al., 2021), and
- with the highest and lowest **average activation** of the neuron over a corpus
  (Suau et al., 2020),

and observing that they carry no sentiment, inference or topic meaning.

Choices made here (the paper leaves them open):

- ``K_i`` is :func:`skillneurons.models.sites.input_weight` row ``i``; for gated MLPs
  (Llama ...) that is the *up* projection's row, the one multiplied by the gate.
- The corpus is the task's training texts, run through the prompt-tuned model of one
  trial (the model in which the neuron was ranked). Each input position contributes
  the neuron's activation to the token at that position, so a token's score is the
  mean activation over its occurrences. The ``[MASK]``, soft prompts and padding are
  not input tokens and are never counted.
- Special tokens (``[CLS]``, ``[SEP]``, ``[PAD]``, ``<s>`` ... : the tokenizer's
  ``all_special_ids``) and placeholder tokens written in brackets (``[unused12]``,
  ``<extra_id_0>``, ``<|endoftext|>``) are skipped in both rankings
  (:func:`skillneurons.models.vocabulary.candidate_ids`); subword pieces (``##ing``,
  ``Ġgood``) are kept, as in the paper's tables.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch

from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.sites import ffn_sites, input_weight
from skillneurons.models.training import batches_by_length
from skillneurons.models.vocabulary import candidate_ids
from skillneurons.neurons.hooks import capture_activations

#: Columns of the word-selectivity file (one row per listed token).
COLUMNS = (
    "task",
    "layer",
    "neuron",
    "measure",
    "direction",
    "rank",
    "token_id",
    "token",
    "score",
    "count",
)
MEASURES = ("cosine", "activation")


def cosine_similarity(embeddings: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """``cos(e_v, K_i)`` for every row ``e_v`` of ``embeddings`` ``[vocab, hidden]`` and the
    neuron's input weight ``weight`` ``[hidden]``; float64 ``[vocab]`` (0 for zero rows)."""
    e = embeddings.detach().to(torch.float64)
    w = weight.detach().to(torch.float64)
    norms = e.norm(dim=1) * w.norm()
    return torch.where(norms > 0, (e @ w) / norms.clamp_min(1e-300), torch.zeros_like(norms))


def extremes(scores: np.ndarray, ids: np.ndarray, k: int) -> dict[str, np.ndarray]:
    """The ``k`` ids of ``ids`` with the highest and the lowest ``scores[id]``.

    Returns ``{"top": ids best first, "bottom": ids lowest first}``; ties keep id order.
    """
    values = np.asarray(scores, dtype=np.float64)[ids]
    order = np.argsort(-values, kind="stable")
    lowest = np.argsort(values, kind="stable")
    return {"top": ids[order[:k]], "bottom": ids[lowest[:k]]}


def average_by_token(
    token_ids: torch.Tensor, values: torch.Tensor, vocab_size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sum and count of ``values`` grouped by token id.

    ``token_ids`` and ``values`` are ``[n]`` (one entry per input position); returns
    float64 sums ``[vocab_size]`` and int64 counts ``[vocab_size]``.
    """
    ids = token_ids.reshape(-1).to("cpu", torch.long)
    sums = torch.zeros(vocab_size, dtype=torch.float64)
    sums.index_add_(0, ids, values.reshape(-1).to("cpu", torch.float64))
    return sums, torch.bincount(ids, minlength=vocab_size)


@torch.inference_mode()
def token_activation_sums(
    classifier: PromptedClassifier,
    split: EncodedSplit,
    layer: int,
    neuron: int,
    batch_size: int,
    vocab_size: int,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sum and count of one neuron's activation per input token over a corpus.

    Every input token (an input slot with attention mask 1, at its sequence position
    :meth:`~skillneurons.models.prompted.PromptedClassifier.input_positions`) adds the
    activation ``a`` of neuron ``neuron`` of layer ``layer`` (Eq. 2 of paper A) at that
    position to the token found there. Returns float64 sums and int64
    counts, both ``[vocab_size]``; their ratio is the token's average activation.
    """
    classifier.eval()
    device = next(classifier.parameters()).device
    sums = torch.zeros(vocab_size, dtype=torch.float64)
    counts = torch.zeros(vocab_size, dtype=torch.long)
    for rows in batches_by_length(split, batch_size):
        batch = split.batch(rows, classifier.pad_id, device)
        with capture_activations(classifier, layers=[layer]) as capture:
            classifier(**batch)
        positions = classifier.input_positions(batch["attention_mask"])  # [batch, inputs]
        values = capture.activations[layer][..., neuron].gather(1, positions)
        mask = batch["attention_mask"].bool()
        part_sums, part_counts = average_by_token(
            batch["input_ids"][mask], values[mask], vocab_size
        )
        sums += part_sums
        counts += part_counts
    return sums, counts


def _rows(
    measure: str,
    chosen: dict[str, np.ndarray],
    scores: np.ndarray,
    counts: np.ndarray,
    tokenizer,
) -> list[dict]:
    rows = []
    for direction, ids in chosen.items():
        for rank, token_id in enumerate(ids.tolist(), start=1):
            token = tokenizer.convert_ids_to_tokens(token_id)
            rows.append(
                {
                    "measure": measure,
                    "direction": direction,
                    "rank": rank,
                    "token_id": token_id,
                    "token": tokenizer.convert_tokens_to_string([token]).strip() or token,
                    "score": float(scores[token_id]),
                    "count": int(counts[token_id]),
                }
            )
    return rows


def neuron_words(
    classifier: PromptedClassifier,
    tokenizer,
    corpus: EncodedSplit,
    layer: int,
    neuron: int,
    *,
    words: int,
    min_count: int,
    batch_size: int,
) -> pd.DataFrame:
    """Table 2 / Table 6 of paper A for one neuron: related tokens by both measures.

    Parameters
    ----------
    classifier : the prompt-tuned model the neuron was ranked in.
    tokenizer : its tokenizer (token strings, special tokens).
    corpus : the texts over which activations are averaged (the task's training split).
    layer, neuron : the neuron (layer index, index within the layer).
    words : how many tokens to list per measure and direction (paper: 10).
    min_count : tokens seen fewer times in ``corpus`` are left out of the activation
        lists (1 keeps every token seen, as the paper's lists suggest).
    batch_size : samples per forward pass.

    Returns
    -------
    A frame with columns ``layer, neuron, measure, direction, rank, token_id, token,
    score, count``: ``measure`` is ``cosine`` or ``activation``, ``direction`` ``top``
    or ``bottom``, ``rank`` 1..``words``, ``score`` the cosine or the mean activation,
    ``count`` the token's occurrences in the corpus.
    """
    embeddings = classifier.backbone.get_input_embeddings().weight
    vocab = min(len(tokenizer), embeddings.shape[0])
    ids = candidate_ids(tokenizer, vocab)
    site = ffn_sites(classifier.backbone)[layer]
    cosine = cosine_similarity(embeddings[:vocab], input_weight(site)[neuron]).numpy()
    sums, counts = token_activation_sums(classifier, corpus, layer, neuron, batch_size, vocab)
    counts = counts.numpy()
    mean = sums.numpy() / np.maximum(counts, 1)
    seen = ids[counts[ids] >= max(1, min_count)]
    rows = _rows("cosine", extremes(cosine, ids, words), cosine, counts, tokenizer)
    rows += _rows("activation", extremes(mean, seen, words), mean, counts, tokenizer)
    frame = pd.DataFrame(rows)
    frame.insert(0, "neuron", neuron)
    frame.insert(0, "layer", layer)
    return frame


def word_table(frame: pd.DataFrame, measure: str, tasks: Sequence[str]) -> pd.DataFrame:
    """Paper layout of Table 2 / Table 6: one row per task, the top and bottom tokens
    of ``measure`` joined by commas (best first / lowest first)."""
    rows = []
    for task in tasks:
        chosen = frame[(frame["task"] == task) & (frame["measure"] == measure)]
        row = {
            "task": task,
            "layer": int(chosen["layer"].iloc[0]),
            "neuron": int(chosen["neuron"].iloc[0]),
        }
        for direction in ("top", "bottom"):
            tokens = chosen[chosen["direction"] == direction].sort_values("rank")["token"]
            row[direction] = ", ".join(tokens)
        rows.append(row)
    return pd.DataFrame(rows)
