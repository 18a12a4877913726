"""Deactivating the generation tasks' neurons in a multi-task causal LM (paper B, §4.1,
Table 1's generation rows, Figure 5 b): B-T1 and B-F5b for the generation tasks.

As :mod:`skillneurons.paper_b.multitask` does for classification: the causal LM is
fully fine-tuned on the mixture of the generation tasks (their training prompt/target
pairs shuffled together, the target-only LM loss,
:class:`skillneurons.models.generation.CausalLMObjective`; the state with the best mean
dev ROUGE-L over tasks kept). Each task's relevance is then computed on that model
(paper B's choice; config ``paper_b.identify_on.deactivation: base`` takes the base
model's, those of B-T2's generation rows) and its top ``k``% taken. Every task's test
split is decoded greedily and scored by ROUGE-L F1: as trained (``original``), with
each task's neurons deactivated (``task``, source = that task: the diagonal is B-T1's
"Deactivate-Task", the matrix B-F5b) and with as many layer-matched random neurons as
its own task's (``random``, seeded draws).

A neuron is deactivated by zeroing its output-projection column for the evaluation
(:func:`skillneurons.paper_b.evaluation.zeroed_columns`): its activation then adds
nothing at any position, generated tokens included, exactly as zeroing the activation
would (the two give the same logits, tested on classification).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from skillneurons.models.generation import CausalLMObjective, GenerationSplit
from skillneurons.models.loading import LoadedModel
from skillneurons.models.training import TrainingSettings, train
from skillneurons.paper_b.classifiers import unfreeze_backbone
from skillneurons.paper_b.evaluation import zeroed_columns
from skillneurons.paper_b.generation import ScoredSplit, generation_pad_id, rouge_l_on
from skillneurons.paper_b.multitask import deactivation_conditions


def train_generation_multitask(
    loaded: LoadedModel,
    splits: Mapping[str, GenerationSplit],
    devs: Mapping[str, ScoredSplit],
    training: TrainingSettings,
    *,
    batch_size: int,
    freeze_embeddings: bool = True,
    rouge_stemmer: bool = False,
    progress: bool = True,
) -> dict:
    """Fully fine-tune ``loaded``'s causal LM on the mixture of ``splits`` (task ->
    encoded training split), keeping the state with the best mean ROUGE-L over the
    tasks' ``devs``; the model's parameters are frozen again afterwards. Returns the
    training's metrics."""
    trained = unfreeze_backbone(loaded, freeze_embeddings)
    pad_id = generation_pad_id(loaded)
    objective = CausalLMObjective(loaded.model, pad_id)
    mixture = GenerationSplit([example for split in splits.values() for example in split.examples])

    def mean_dev_rouge_l(_: CausalLMObjective) -> float:
        return float(
            np.mean(
                [rouge_l_on(loaded, dev, batch_size, rouge_stemmer)[0] for dev in devs.values()]
            )
        )

    result = train(
        objective, mixture, None, training, pad_id, progress=progress, evaluate=mean_dev_rouge_l
    )
    for parameter in loaded.model.parameters():
        parameter.requires_grad_(False)
    return {
        "dev_curve": [
            {
                "step": p["step"],
                "mean_dev_rouge_l": p["dev_accuracy"],
                "train_loss": p["train_loss"],
            }
            for p in result.dev_curve
        ],
        "best_step": result.best_step,
        "steps": result.steps,
        "mean_dev_rouge_l": result.best_dev_accuracy,
        "trained_parameters": trained,
        "tasks": list(splits),
    }


def generation_deactivation_results(
    loaded: LoadedModel,
    tests: Mapping[str, ScoredSplit],
    neurons: Mapping[str, Mapping[int, np.ndarray]],
    *,
    width: int,
    random_draws: int,
    seed: int,
    batch_size: int,
    rouge_stemmer: bool = False,
) -> pd.DataFrame:
    """B-T1 / B-F5b's generation rows (the module docstring): every task of ``tests``
    decoded as trained, with each task's ``neurons`` deactivated and with
    ``random_draws`` layer-matched random draws of its own task's count (``width``
    neurons per layer). Columns ``condition``, ``source``, ``draw``, ``eval_task``,
    ``rouge_l`` (mean) and ``sample_rouge_l`` (per test sample), as B-T2's generation
    rows."""
    rows = []
    for condition, source, draw, eval_task, off in deactivation_conditions(
        tests, neurons, width, random_draws, seed
    ):
        with zeroed_columns(loaded.model, off):
            mean, scores = rouge_l_on(loaded, tests[eval_task], batch_size, rouge_stemmer)
        rows.append(
            {"condition": condition, "source": source, "draw": draw, "eval_task": eval_task,
             "rouge_l": mean, "sample_rouge_l": scores}
        )  # fmt: skip
    return pd.DataFrame(rows).astype({"draw": "int64", "rouge_l": "float64"})
