"""Paper B's generation tasks on a causal LM: prompts, neuron-only training, ROUGE-L scores.

A generation input is ``<instruction>\\n<source>\\nAnswer:`` (the instruction names
the task type's skill, :data:`skillneurons.paper_b.instructions.INSTRUCTIONS`, as for
classification; paper B gives its prompts only by example, these are ours); the model
is trained to continue it with the target (the target-only LM loss,
:class:`skillneurons.models.generation.CausalLMObjective`) and scored by ROUGE-L F1 of
its greedy continuation (:func:`generation_scores`).

B-T2's generation rows (§4.2, Table 2; :func:`generation_training_results`): the base
model's zero-shot ROUGE-L, then only the task's top-k% neurons trained on the task
(``task``), then the same count of layer-matched random neurons (``random``, seeded
draws); the neurons are found by relevance on the base model, the sample's loss being
its target's negative log-likelihood (:class:`~skillneurons.models.generation.CausalLMObjective`).
The model with the task's neurons trained is also scored on the other generation tasks'
test splits (each with its own instruction and budgets): against their zero-shot scores,
the generation panel of Figure 5 (B-F5d, appendix A.4). Random trainings are scored on
every one of those tasks too, as for classification: their matrix is B-F5d's control.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from skillneurons.models.generation import (
    CausalLMObjective,
    GenerationSplit,
    encode_examples,
    greedy_continuations,
)
from skillneurons.models.loading import LoadedModel
from skillneurons.models.neuron_deltas import NeuronDeltas
from skillneurons.models.training import TrainingSettings, train
from skillneurons.paper_b.relevance import trained_sets
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
    greedy-decoding budget (:attr:`skillneurons.data.generation.GenerationSpec.max_new_tokens`)."""

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


def generation_training_results(
    loaded: LoadedModel,
    task: str,
    train_split: GenerationSplit,
    frames: Mapping[str, pd.DataFrame],
    neurons: Mapping[int, np.ndarray],
    *,
    instruction: str,
    budget: GenerationBudget,
    width: int,
    training: TrainingSettings,
    random_draws: int,
    seed: int,
    batch_size: int,
    output_only: bool = False,
    rouge_stemmer: bool = False,
    other_tests: Mapping[str, ScoredSplit] | None = None,
    progress: bool = True,
) -> tuple[pd.DataFrame, dict]:
    """B-T2's generation rows for one task (the module docstring): zero-shot, then
    ``neurons`` trained (``task``), then ``random_draws`` layer-matched random sets of
    ``width``-wide layers; each training keeps the state of best dev ROUGE-L and is
    scored on the test split and on ``other_tests`` (task -> :class:`ScoredSplit`:
    B-F5d, and its control with the random sets). ``train_split`` is the task's encoded
    training split (:func:`encode_generation`, as its relevance read it), ``frames``
    holds its ``dev`` and ``test`` frames. Returns one row per condition, draw and
    evaluated task (``condition``, ``source``, ``draw``, ``eval_task``, ``rouge_l``: the
    mean, ``sample_rouge_l``: per test sample; ROUGE-L Porter-stemmed when
    ``rouge_stemmer``), the task's own rows first, and each training's metrics."""
    objective = generation_objective(loaded)
    tests = {task: ScoredSplit(frames["test"], instruction, budget), **(other_tests or {})}
    dev = ScoredSplit(frames["dev"], instruction, budget)

    def row(condition: str, draw: int, eval_task: str) -> dict:
        mean, scores = rouge_l_on(loaded, tests[eval_task], batch_size, rouge_stemmer)
        source = "" if condition == "zero_shot" else task
        return {"condition": condition, "source": source, "draw": draw,
                "eval_task": eval_task, "rouge_l": mean, "sample_rouge_l": scores}  # fmt: skip

    rows, metrics = [row("zero_shot", 0, task)], []
    for condition, draw, chosen in trained_sets(neurons, width, random_draws, seed):
        objective.deltas = NeuronDeltas(loaded.model, chosen, output_only)
        result = train(
            objective, train_split, None, training, objective.pad_id, progress=progress,
            evaluate=lambda _: rouge_l_on(loaded, dev, batch_size, rouge_stemmer)[0],
        )  # fmt: skip
        with objective.deltas.folded():
            rows.extend(row(condition, draw, eval_task) for eval_task in tests)
        metrics.append(
            {
                "condition": condition,
                "draw": draw,
                "neurons": int(sum(len(v) for v in chosen.values())),
                "trained_entries": objective.deltas.entries(),
                "best_step": result.best_step,
                "dev_rouge_l": result.best_dev_accuracy,
                "dev_curve": [
                    {
                        "step": p["step"],
                        "dev_rouge_l": p["dev_accuracy"],
                        "train_loss": p["train_loss"],
                    }
                    for p in result.dev_curve
                ],  # fmt: skip
            }
        )
        objective.deltas.remove()
        del objective.deltas
    frame = pd.DataFrame(rows).astype({"draw": "int64", "rouge_l": "float64"})
    return frame, {"task": task, "trainings": metrics}
