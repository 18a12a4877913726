"""Multi-task training (paper B): a mixture of tasks, one task per batch.

Paper B fine-tunes one model on a mixture of tasks (Table 1: its twelve; here the
configured ones) without saying how batches are drawn. :class:`TaskMixture` draws them
**one task per batch, the tasks in turn** (round robin, in the configured order), each
task's rows shuffled anew every epoch of that task with the training generator: every
task gets the same number of steps whatever its size, and a batch never mixes label
words. :class:`MultiTaskClassifier` shares one backbone between the tasks' verbalizers
and routes each batch to its task's label words.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import torch

from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.prompted import PromptedClassifier


class TaskMixture:
    """Several tasks' encoded splits as one training set for
    :func:`skillneurons.models.training.train`.

    A row id is ``offset[task] + row``; :meth:`batches` yields batches of one task each,
    the tasks in turn; :meth:`batch` adds ``task`` (the task's index) to the batch.
    """

    def __init__(self, splits: Mapping[str, EncodedSplit]):
        if not splits:
            raise ValueError("a task mixture needs at least one task")
        self.tasks = list(splits)
        self.splits = [splits[task] for task in self.tasks]
        self.offsets = [0]
        for split in self.splits:
            self.offsets.append(self.offsets[-1] + len(split))

    def __len__(self) -> int:
        return self.offsets[-1]

    def batches(self, batch_size: int, generator: torch.Generator) -> Iterator[list[int]]:
        """Endless batches: task 0, task 1, ..., task 0, ...; within each task, the rows
        of a fresh permutation per epoch (as a single task's training draws them)."""
        from skillneurons.models.training import shuffled_batches

        streams = [shuffled_batches(len(split), batch_size, generator) for split in self.splits]
        while True:
            for task, stream in enumerate(streams):
                yield [self.offsets[task] + row for row in next(stream)]

    def locate(self, rows: Sequence[int]) -> tuple[int, list[int]]:
        """The task of a batch's rows (all one task) and their rows within its split."""
        task = max(i for i, offset in enumerate(self.offsets[:-1]) if offset <= rows[0])
        local = [row - self.offsets[task] for row in rows]
        if not all(0 <= row < len(self.splits[task]) for row in local):
            raise ValueError("a mixture batch must hold rows of one task")
        return task, local

    def batch(self, rows: Sequence[int], pad_id: int, device="cpu") -> dict[str, torch.Tensor]:
        task, local = self.locate(rows)
        batch = self.splits[task].batch(local, pad_id, device)
        batch["task"] = torch.tensor(task, device=device)
        return batch


class MultiTaskClassifier(torch.nn.Module):
    """One backbone, one verbalizer per task: ``forward(..., task)`` scores the batch's
    task's label words. ``heads[i]`` is task ``i``'s classifier on the shared backbone
    (a :class:`~skillneurons.models.prompted.PromptedClassifier`, no soft prompts), the
    model to evaluate that task with."""

    def __init__(self, heads: Sequence[PromptedClassifier]):
        super().__init__()
        backbones = {id(head.backbone) for head in heads}
        if len(backbones) != 1:
            raise ValueError("the tasks' classifiers must share one backbone")
        self.heads = torch.nn.ModuleList(heads)
        self.backbone = heads[0].backbone
        self.pad_id = heads[0].pad_id

    def forward(self, task: torch.Tensor | None = None, **batch: torch.Tensor) -> torch.Tensor:
        """Label logits of ``batch`` (a :class:`PromptedClassifier`'s inputs) under the
        head of ``task``."""
        if task is None:
            raise ValueError("a multi-task batch names its task (TaskMixture.batch)")
        return self.heads[int(task)](**batch)
