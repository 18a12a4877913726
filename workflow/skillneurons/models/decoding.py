"""Causal-LM generation: the language-model loss on target tokens and greedy decoding.

Paper B trains its generation tasks (§5, Table 3) with the usual causal-LM
objective on the target only: the model reads ``source`` and is trained to write
``target``, so the prompt's tokens carry no loss (their labels are -100, which the
Hugging Face loss ignores) and the loss is the mean cross-entropy over target
tokens (the end-of-text token included, so the model learns to stop). Evaluation
decodes greedily up to a per-task ``max_new_tokens`` with the model's own
``generate``; hooks on the model (deactivation, neuron edits) act at every
position, generated tokens included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

IGNORED = -100  # the label the Hugging Face losses skip


@dataclass(frozen=True)
class GenerationExample:
    """Token ids of one example: the prompt the model reads, the target it writes."""

    prompt: list[int]
    target: list[int]


def encode_examples(
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[str],
    targets: Sequence[str],
    *,
    max_prompt_tokens: int,
    max_target_tokens: int,
) -> list[GenerationExample]:
    """Tokenize prompt/target pairs; the target ends with the tokenizer's EOS token.

    A prompt longer than ``max_prompt_tokens`` keeps its last tokens (where the
    instruction to write sits); a target keeps its first ``max_target_tokens``.
    """
    if tokenizer.eos_token_id is None:
        raise ValueError("the tokenizer has no end-of-text token; generation needs one")
    if len(prompts) != len(targets):
        raise ValueError(f"{len(prompts)} prompts but {len(targets)} targets")
    examples = []
    for prompt, target in zip(prompts, targets, strict=True):
        prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"][-max_prompt_tokens:]
        target_ids = tokenizer(" " + target, add_special_tokens=False)["input_ids"]
        target_ids = target_ids[:max_target_tokens] + [tokenizer.eos_token_id]
        examples.append(GenerationExample(prompt_ids, target_ids))
    return examples


def lm_batch(examples: Sequence[GenerationExample], pad_id: int) -> dict[str, torch.Tensor]:
    """Right-padded ``input_ids``, ``attention_mask`` and ``labels`` for the LM loss.

    ``labels`` repeats the target's ids and holds :data:`IGNORED` on prompt and
    padding positions, so only target tokens are predicted.
    """
    width = max(len(example.prompt) + len(example.target) for example in examples)
    input_ids = torch.full((len(examples), width), pad_id, dtype=torch.long)
    labels = torch.full((len(examples), width), IGNORED, dtype=torch.long)
    attention = torch.zeros((len(examples), width), dtype=torch.long)
    for row, example in enumerate(examples):
        ids = example.prompt + example.target
        input_ids[row, : len(ids)] = torch.tensor(ids)
        attention[row, : len(ids)] = 1
        labels[row, len(example.prompt) : len(ids)] = torch.tensor(example.target)
    return {"input_ids": input_ids, "attention_mask": attention, "labels": labels}


@torch.no_grad()
def greedy_continuations(
    model: PreTrainedModel,
    prompts: Sequence[Sequence[int]],
    *,
    max_new_tokens: int,
    pad_id: int,
    eos_id: int,
    batch_size: int = 16,
) -> list[list[int]]:
    """The greedy continuation of each prompt, without the prompt and the EOS token.

    Prompts are left-padded in batches of similar length; decoding stops at EOS or
    after ``max_new_tokens`` tokens.
    """
    device = next(model.parameters()).device
    order = sorted(range(len(prompts)), key=lambda row: len(prompts[row]))
    out: list[list[int]] = [[] for _ in prompts]
    for start in range(0, len(order), batch_size):
        rows = order[start : start + batch_size]
        width = max(len(prompts[row]) for row in rows)
        input_ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
        attention = torch.zeros((len(rows), width), dtype=torch.long)
        for slot, row in enumerate(rows):
            ids = list(prompts[row])
            input_ids[slot, width - len(ids) :] = torch.tensor(ids)
            attention[slot, width - len(ids) :] = 1
        generated = model.generate(
            input_ids=input_ids.to(device),
            attention_mask=attention.to(device),
            max_new_tokens=max_new_tokens,
            do_sample=False,
            num_beams=1,
            pad_token_id=pad_id,
            eos_token_id=eos_id,
        )[:, width:]
        for slot, row in enumerate(rows):
            tokens = generated[slot].tolist()
            out[row] = tokens[: tokens.index(eos_id)] if eos_id in tokens else tokens
    return out


@dataclass
class GenerationSplit:
    """Tokenized prompt/target pairs, batched like a classification split so that the
    training loop and the relevance pass of paper B take either
    (:class:`CausalLMObjective`)."""

    examples: list[GenerationExample]

    def __len__(self) -> int:
        return len(self.examples)

    @property
    def input_ids(self) -> list[list[int]]:
        """Each example's prompt and target ids (what the model reads)."""
        return [example.prompt + example.target for example in self.examples]

    def batch(self, rows: Sequence[int], pad_id: int, device: torch.device) -> dict:
        """:func:`lm_batch` of ``rows``, with ``labels`` shifted and flattened: label
        ``t`` is the token that position ``t`` predicts (:data:`IGNORED` on prompt and
        padding), matching the logits of :class:`CausalLMObjective`."""
        batch = lm_batch([self.examples[row] for row in rows], pad_id)
        batch["labels"] = batch["labels"][:, 1:].reshape(-1)
        return {name: tensor.to(device) for name, tensor in batch.items()}


def sample_losses(logits: torch.Tensor, labels: torch.Tensor, samples: int) -> torch.Tensor:
    """Each sample's loss, float ``[samples]``: the cross-entropy of its labelled rows,
    **averaged over them** (paper B spec, ambiguity 2: the mean over a sample's target
    tokens, so a long target weighs as much as a short one).

    ``logits`` ``[samples x rows, classes]`` and ``labels`` ``[samples x rows]`` hold
    ``rows`` consecutive rows per sample: one label per sample (classification: the
    plain cross-entropy) or :class:`CausalLMObjective`'s next-token logits against
    :meth:`GenerationSplit.batch`'s labels, whose :data:`IGNORED` rows (prompt,
    padding) do not count. A sample without a labelled row gets 0.
    """
    per_row = torch.nn.functional.cross_entropy(
        logits, labels, reduction="none", ignore_index=IGNORED
    ).view(samples, -1)
    counted = (labels.view(samples, -1) != IGNORED).sum(dim=1).clamp(min=1)
    return per_row.sum(dim=1) / counted


class CausalLMObjective(torch.nn.Module):
    """A causal LM seen as a classifier of next tokens: ``forward`` returns the logits
    of every position but the last, flattened to ``[batch x (length - 1), vocab]``, so
    the cross-entropy against :meth:`GenerationSplit.batch`'s labels (which skips
    :data:`IGNORED`) is the target-only LM loss; averaged over a sample's target tokens
    it is that sample's mean negative log-likelihood of its target, what paper B's
    relevance differentiates (:func:`sample_losses`).

    ``backbone`` is the wrapped model (neuron deltas attach to it), ``pad_id`` the id
    batches are padded with.
    """

    def __init__(self, model: PreTrainedModel, pad_id: int):
        super().__init__()
        self.backbone = model
        self.pad_id = pad_id

    def forward(self, input_ids, attention_mask, labels=None) -> torch.Tensor:
        logits = self.backbone(input_ids=input_ids, attention_mask=attention_mask).logits
        return logits[:, :-1].reshape(-1, logits.shape[-1])
