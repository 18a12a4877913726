"""Tokenized splits: unpadded token ids per example, batched with dynamic padding.

Every model input in the project goes through :class:`EncodedSplit`: a split file's
frame (:mod:`skillneurons.data.splits`) is tokenized once by :func:`encode_frame`
(truncated to ``max_length`` tokens, special tokens included), and training,
evaluation, activation dumps and perturbation draw padded batches from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    import pandas as pd

    from skillneurons.models.loading import LoadedModel


@dataclass
class EncodedSplit:
    """A tokenized split: unpadded token ids per example and the labels."""

    input_ids: list[list[int]]
    token_type_ids: list[list[int]] | None
    labels: torch.Tensor

    def __len__(self) -> int:
        return len(self.input_ids)

    def batch(
        self, rows: Sequence[int], pad_id: int, device: torch.device | str = "cpu"
    ) -> dict[str, torch.Tensor]:
        """Dynamically padded batch of ``rows`` on ``device``: input_ids, attention_mask,
        token_type_ids (when the tokenizer makes them) and labels."""
        width = max(len(self.input_ids[i]) for i in rows)
        ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        types = torch.zeros((len(rows), width), dtype=torch.long)
        for row, i in enumerate(rows):
            n = len(self.input_ids[i])
            ids[row, :n] = torch.tensor(self.input_ids[i])
            mask[row, :n] = 1
            if self.token_type_ids is not None:
                types[row, :n] = torch.tensor(self.token_type_ids[i])
        batch = {"input_ids": ids, "attention_mask": mask, "labels": self.labels[list(rows)]}
        if self.token_type_ids is not None:
            batch["token_type_ids"] = types
        return {name: tensor.to(device) for name, tensor in batch.items()}


def repeated_batch(batch: dict[str, torch.Tensor], groups: int) -> dict[str, torch.Tensor]:
    """``batch``'s rows ``groups`` times over, one copy after the other (one row group
    per prompt-tuning trial or perturbation condition)."""
    return {
        name: tensor.repeat(groups, *[1] * (tensor.dim() - 1)) for name, tensor in batch.items()
    }


def encode_split(
    tokenizer, text_a: Sequence[str], text_b: Sequence[str | None], labels, max_length: int
) -> EncodedSplit:
    """Tokenize a split (truncated to ``max_length`` tokens, specials included)."""
    pairs = any(b is not None for b in text_b)
    encoded = tokenizer(
        list(text_a),
        list(text_b) if pairs else None,
        truncation=True,
        max_length=max_length,
    )
    return EncodedSplit(
        input_ids=encoded["input_ids"],
        token_type_ids=encoded.get("token_type_ids"),
        labels=torch.as_tensor(list(labels), dtype=torch.long),
    )


def encode_frame(loaded: LoadedModel, frame: pd.DataFrame, max_length: int) -> EncodedSplit:
    """Tokenize a split file's frame (columns ``text_a``, ``text_b``, ``label``; see
    :mod:`skillneurons.data.splits`)."""
    text_b = [b if isinstance(b, str) else None for b in frame["text_b"].tolist()]
    return encode_split(
        loaded.tokenizer, frame["text_a"].tolist(), text_b, frame["label"], max_length
    )
