"""Paper B's generation tasks on a causal LM: prompts, encoding and ROUGE-L scoring.

A generation input is ``<instruction>\\n<source>\\nAnswer:`` (the instruction names
the task type's skill, :data:`skillneurons.paper_b.instructions.INSTRUCTIONS`, as for
classification; paper B gives its prompts only by example, these are ours); the model
is trained to continue it with the target (the target-only LM loss,
:class:`skillneurons.models.decoding.CausalLMObjective`) and scored by ROUGE-L F1 of
its greedy continuation (:func:`generation_scores`). A generation task enters paper B's
experiments through its :class:`skillneurons.paper_b.scorers.TaskScorer`
(:func:`skillneurons.paper_b.scorers.generation_scorer`), as a classification task does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from skillneurons.models.decoding import (
    CausalLMObjective,
    GenerationSplit,
    encode_examples,
    greedy_continuations,
)
from skillneurons.models.loading import LoadedModel
from skillneurons.paper_b.rouge import rouge_l_f1


def generation_prompts(sources: Sequence[str], instruction: str) -> list[str]:
    """The model's inputs: instruction, source and an answer cue, one per line."""
    return [f"{instruction}\n{source}\nAnswer:" for source in sources]


def generation_pad_id(loaded: LoadedModel) -> int:
    """The tokenizer's padding id; causal LMs without one pad with end-of-text."""
    pad = loaded.tokenizer.pad_token_id
    return loaded.tokenizer.eos_token_id if pad is None else pad


def generation_scores(
    loaded: LoadedModel,
    prompts: Sequence[str],
    references: Sequence[str],
    *,
    max_prompt_tokens: int,
    max_new_tokens: int,
    batch_size: int = 16,
    stemmer: bool = False,
) -> pd.DataFrame:
    """Greedy continuations of ``prompts`` and their ROUGE-L F1 against ``references``
    (:func:`skillneurons.paper_b.rouge.rouge_l_f1`, Porter-stemmed when ``stemmer``).

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
        pad_id=generation_pad_id(loaded),
        eos_id=tokenizer.eos_token_id,
        batch_size=batch_size,
    )
    predictions = [
        tokenizer.decode(tokens, skip_special_tokens=True).strip() for tokens in continuations
    ]
    return pd.DataFrame(
        {
            "prediction": predictions,
            "rouge_l": rouge_l_f1(predictions, references, stemmer=stemmer),
        }
    )


@dataclass(frozen=True)
class GenerationBudget:
    """Token budgets of a generation task: prompt and target kept in training, and the
    greedy-decoding budget
    (:attr:`skillneurons.data.generation_splits.GenerationSpec.max_new_tokens`)."""

    max_prompt_tokens: int
    max_target_tokens: int
    max_new_tokens: int


@dataclass(frozen=True)
class ScoredSplit:
    """A generation task's dev or test split as it is scored: the split frame
    (``source``, ``target``), the task's instruction and its token budgets."""

    frame: pd.DataFrame
    instruction: str
    budget: GenerationBudget

    @classmethod
    def from_params(cls, frame: pd.DataFrame, scoring: Mapping[str, object]) -> ScoredSplit:
        """``frame`` scored as a rule's params give a task's scoring: ``{"instruction":
        ..., "budget": {GenerationBudget's fields}}``."""
        return cls(frame, str(scoring["instruction"]), GenerationBudget(**scoring["budget"]))


def generation_objective(loaded: LoadedModel) -> CausalLMObjective:
    """The causal LM of ``loaded`` as the training loop's and relevance's classifier,
    its own parameters frozen (only neuron deltas attached to it train; relevance
    needs gradients of activations only)."""
    if loaded.kind != "causal_lm":
        raise ValueError(
            f"generation tasks need a causal LM; {loaded.source} is a {loaded.kind} model: "
            "list only causal LMs in paper_b.generation.models"
        )
    for parameter in loaded.model.parameters():
        parameter.requires_grad_(False)
    return CausalLMObjective(loaded.model, generation_pad_id(loaded))


def encode_generation(
    loaded: LoadedModel, frame: pd.DataFrame, instruction: str, budget: GenerationBudget
) -> GenerationSplit:
    """A split frame (``source``, ``target``) as prompt/target token ids."""
    return GenerationSplit(
        encode_examples(
            loaded.tokenizer,
            generation_prompts(frame["source"].tolist(), instruction),
            frame["target"].tolist(),
            max_prompt_tokens=budget.max_prompt_tokens,
            max_target_tokens=budget.max_target_tokens,
        )
    )


def rouge_l_on(
    loaded: LoadedModel, test: ScoredSplit, batch_size: int, rouge_stemmer: bool = False
) -> tuple[float, np.ndarray]:
    """Mean and per-sample ROUGE-L F1 of the greedy continuations of a
    :class:`ScoredSplit`'s frame, with its instruction and budgets (Porter-stemmed
    when ``rouge_stemmer``)."""
    scores = generation_scores(
        loaded, generation_prompts(test.frame["source"].tolist(), test.instruction),
        test.frame["target"].tolist(), max_prompt_tokens=test.budget.max_prompt_tokens,
        max_new_tokens=test.budget.max_new_tokens, batch_size=batch_size,
        stemmer=rouge_stemmer,
    )["rouge_l"].to_numpy(dtype=np.float64)  # fmt: skip
    return float(scores.mean()), scores
