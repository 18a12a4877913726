"""Paper B's classifiers: one backbone, a verbalizer per task, an instruction per task type.

Paper B fine-tunes LLMs on a mixture of tasks and scores classification by the label
words. On the default encoder (MiniLM, no MLM head) each task reads
``[MASK] <instruction> <text>`` and is scored at the ``[MASK]`` with its label words, as
the adapter and BitFit models of paper A are (no soft prompts); a causal LM reads
``<instruction> <text>`` and is scored on the next token. The instruction names the
task type (:mod:`skillneurons.paper_b.instructions`), so that one model trained on
several tasks knows which skill a batch asks for.

Fine-tuning variants (what :func:`skillneurons.models.training.train` optimises):
full fine-tuning trains every backbone weight except, by default, the word embeddings
(the encoder's verbalizer scores label words against them); neuron-only fine-tuning
trains :class:`skillneurons.models.neuron_deltas.NeuronDeltas` of the chosen neurons.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from skillneurons.models.encoding import EncodedSplit, encode_frame
from skillneurons.models.loading import LoadedModel
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.paper_b.instructions import instructed


def encode_task(
    loaded: LoadedModel, frame: pd.DataFrame, instruction: str, max_length: int
) -> EncodedSplit:
    """Tokenize a split of a task with its instruction in front of each text."""
    return encode_frame(loaded, instructed(frame, instruction), max_length)


def task_classifier(loaded: LoadedModel, label_words: Sequence[str]) -> PromptedClassifier:
    """A task's verbalizer classifier on the backbone, no soft prompts, every weight
    frozen (the fine-tuning variants unfreeze what they train)."""
    classifier = PromptedClassifier(loaded, label_words, prompt_length=0)
    classifier.prompts.requires_grad_(False)
    return classifier


def task_classifiers(
    loaded: LoadedModel, label_words: Mapping[str, Sequence[str]]
) -> dict[str, PromptedClassifier]:
    """One :func:`task_classifier` per task, all on the same backbone."""
    return {task: task_classifier(loaded, words) for task, words in label_words.items()}


def unfreeze_backbone(loaded: LoadedModel, freeze_embeddings: bool = True) -> int:
    """Full fine-tuning: every backbone weight trains, the word embeddings too unless
    ``freeze_embeddings``. Returns the number of trained entries."""
    embeddings = loaded.model.get_input_embeddings().weight
    count = 0
    for parameter in loaded.model.parameters():
        train = not (freeze_embeddings and parameter is embeddings)
        parameter.requires_grad_(train)
        count += parameter.numel() if train else 0
    return count


def encode_tasks(
    loaded: LoadedModel,
    paths: Sequence[str],
    tasks: Sequence[str],
    instructions: Mapping[str, str],
    max_length: int,
    splits: Sequence[str] = ("train", "dev", "test"),
) -> dict[str, dict[str, EncodedSplit]]:
    """Every task's split files (``paths`` task-major: each task's ``splits`` in turn),
    read and encoded with the task's instruction: ``{task: {split: EncodedSplit}}``."""
    from skillneurons.data.splits import read_split

    if len(paths) != len(tasks) * len(splits):
        raise ValueError(f"{len(paths)} split files for {len(tasks)} tasks x {len(splits)} splits")
    encoded = {}
    for index, task in enumerate(tasks):
        files = paths[index * len(splits) : (index + 1) * len(splits)]
        encoded[task] = {
            split: encode_task(loaded, read_split(path)[0], instructions[task], max_length)
            for split, path in zip(splits, files, strict=True)
        }
    return encoded
