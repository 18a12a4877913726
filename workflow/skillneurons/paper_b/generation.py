"""Paper B's generation tasks on a causal LM: prompts, one training step, ROUGE-L scores.

A generation input is ``<instruction>\\n<source>\\nAnswer:`` (the instruction names
the task type's skill, as the classification instructions of
:mod:`skillneurons.paper_b.instructions` do; paper B gives its prompts only by
example, these are ours); the model is trained to continue it with the target
(:func:`skillneurons.models.generation.target_loss`) and scored by ROUGE-L F1 of its
greedy continuation (:func:`generation_scores`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import torch

from skillneurons.models.generation import (
    encode_examples,
    greedy_continuations,
    lm_batch,
    target_loss,
)
from skillneurons.models.loading import LoadedModel
from skillneurons.paper_b.rouge import rouge_l_f1

#: Default instruction per generation type.
GENERATION_INSTRUCTIONS = {
    "summarization": "Summarize the text in one sentence.",
    "question_generation": "Write the question that the text answers.",
    "data_to_text": "Write one sentence that states all of the following.",
}


def generation_prompts(sources: Sequence[str], instruction: str) -> list[str]:
    """The model's inputs: instruction, source and an answer cue, one per line."""
    return [f"{instruction}\n{source}\nAnswer:" for source in sources]


def _pad_id(loaded: LoadedModel) -> int:
    """The tokenizer's padding id; causal LMs without one pad with end-of-text."""
    pad = loaded.tokenizer.pad_token_id
    return loaded.tokenizer.eos_token_id if pad is None else pad


def generation_step(
    loaded: LoadedModel,
    optimizer: torch.optim.Optimizer,
    prompts: Sequence[str],
    targets: Sequence[str],
    *,
    max_prompt_tokens: int,
    max_target_tokens: int,
) -> float:
    """One optimizer step on the target-only LM loss of a batch; returns the loss."""
    examples = encode_examples(
        loaded.tokenizer,
        prompts,
        targets,
        max_prompt_tokens=max_prompt_tokens,
        max_target_tokens=max_target_tokens,
    )
    loss = target_loss(loaded.model, lm_batch(examples, _pad_id(loaded)))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return float(loss.detach())


def generation_scores(
    loaded: LoadedModel,
    prompts: Sequence[str],
    references: Sequence[str],
    *,
    max_prompt_tokens: int,
    max_new_tokens: int,
    batch_size: int = 16,
) -> pd.DataFrame:
    """Greedy continuations of ``prompts`` and their ROUGE-L F1 against ``references``.

    Returns one row per sample: ``prediction`` (decoded, special tokens dropped,
    stripped) and ``rouge_l`` (float64).
    """
    tokenizer = loaded.tokenizer
    if tokenizer.eos_token_id is None:
        raise ValueError("the tokenizer has no end-of-text token; generation needs one")
    ids = [
        tokenizer(prompt, add_special_tokens=False)["input_ids"][-max_prompt_tokens:]
        for prompt in prompts
    ]
    loaded.model.eval()
    continuations = greedy_continuations(
        loaded.model,
        ids,
        max_new_tokens=max_new_tokens,
        pad_id=_pad_id(loaded),
        eos_id=tokenizer.eos_token_id,
        batch_size=batch_size,
    )
    predictions = [
        tokenizer.decode(tokens, skip_special_tokens=True).strip() for tokens in continuations
    ]
    return pd.DataFrame(
        {"prediction": predictions, "rouge_l": rouge_l_f1(predictions, references)}
    )
