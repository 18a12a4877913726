"""The verbalizer: label words and how a model scores them (paper A, §2.1 and appendix B).

Paper A uses the label words Negative, Positive for binary tasks and Negative,
Neutral, Positive for three-way tasks (:mod:`skillneurons.models.label_words`); label ``i``
is predicted when its word scores highest. How a word is scored depends on the checkpoint
(:data:`skillneurons.models.loading.KINDS`):

``masked_lm``
    the MLM head's logit of the word at the ``[MASK]`` position (paper A, Eq. 1);
    the head runs at that position only.
``encoder``
    checkpoints without an MLM head (the default MiniLM): the dot product of the
    last hidden state at ``[MASK]`` with the word's input embedding, i.e. an MLM
    decoder tied to the input embeddings, without the head's transform.
``causal_lm``
    the next-token logit of the word after the last input token.

The scoring mode is written into every prompt file and metrics file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch

from skillneurons.models.sites import masked_lm_head

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

SCORING = {
    "masked_lm": "mlm_head_at_mask",
    "encoder": "tied_input_embeddings_at_mask",
    "causal_lm": "next_token_logits",
}


def label_token_ids(tokenizer: PreTrainedTokenizerBase, words: Sequence[str]) -> list[int]:
    """One vocabulary id per label word: the first sub-token of ``" " + word``.

    The leading space gives the word-initial token of byte-level BPE vocabularies
    (RoBERTa, GPT-2); WordPiece tokenizers drop it. Whitespace-only pieces
    (SentencePiece's lone "▁") are skipped. Two words mapping to the same id is an
    error, since their labels could not be told apart.
    """
    ids = []
    for word in words:
        pieces = tokenizer(" " + word, add_special_tokens=False)["input_ids"]
        tokens = tokenizer.convert_ids_to_tokens(pieces)
        kept = [i for i, t in zip(pieces, tokens, strict=True) if t.strip("▁Ġ ")]
        if not kept:
            raise ValueError(f"label word {word!r} has no token in the vocabulary")
        ids.append(kept[0])
    if len(set(ids)) != len(ids):
        raise ValueError(f"label words {list(words)} share a first token; choose other words")
    return ids


class LabelScorer(torch.nn.Module):
    """Map the backbone's hidden state at the answer position to label logits.

    Parameters
    ----------
    model : the loaded checkpoint (its head, or its input embeddings, are used).
    kind : one of :data:`skillneurons.models.loading.KINDS`.
    label_ids : one vocabulary id per label.
    """

    def __init__(self, model: torch.nn.Module, kind: str, label_ids: Sequence[int]):
        super().__init__()
        self.kind = kind
        self.scoring = SCORING[kind]
        self.register_buffer("label_ids", torch.tensor(list(label_ids)), persistent=False)
        if kind == "masked_lm":
            self.head = masked_lm_head(model)
        elif kind == "encoder":
            self.embeddings = model.get_input_embeddings()
        else:
            self.output_embeddings = model.get_output_embeddings()

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        """``hidden`` [batch, hidden] at the answer position -> logits [batch, labels]."""
        if self.kind == "masked_lm":
            return self.head(hidden[:, None, :])[:, 0, self.label_ids]
        if self.kind == "encoder":
            return hidden @ self.embeddings.weight[self.label_ids].T
        logits = hidden @ self.output_embeddings.weight[self.label_ids].T
        if getattr(self.output_embeddings, "bias", None) is not None:
            logits = logits + self.output_embeddings.bias[self.label_ids]
        return logits
