"""Prompt-tuning trials of one task trained together, one forward pass per step
(paper A, §2.1 and appendix B).

:func:`train_trials` runs :func:`skillneurons.models.training.train`'s loop for ``k``
trials of a :class:`skillneurons.models.stacked_prompts.StackedPrompts` at once. Each
trial keeps what a run of its own would have: its data order (a generator seeded by its
seed), its share of the optimiser (one Adam over ``[k, l, hidden]`` is ``k`` Adams, the
loss being the sum of the trials' mean losses), its dev curve, best state and patience.
A trial whose patience runs out leaves the batch; its later values are never read (its
best state is kept). The results equal ``k`` sequential runs up to floating-point
summation order: rows padded to the longest of all trials' rows and larger matrix
products can round differently (tests/test_trial_training.py states the tolerance); a
single trial is the sequential run.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import torch

from skillneurons.models.distributed import launched_processes
from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.stacked_prompts import StackedPrompts, predict_trials
from skillneurons.models.training import TrainingResult, TrainingSettings, shuffled_batches

LOG = logging.getLogger(__name__)


def _check_settings(settings: Sequence[TrainingSettings]) -> TrainingSettings:
    """The settings the trials share (all fields but the seed must agree)."""
    first = settings[0]
    for other in settings[1:]:
        if {**vars(other), "seed": first.seed} != vars(first):
            raise ValueError("trials trained together must differ only in their seeds")
    return first


def _group_losses(logits: torch.Tensor, labels: torch.Tensor, groups: int) -> list[torch.Tensor]:
    """Each row group's mean cross-entropy (the loss of :func:`train`, per trial)."""
    return [
        torch.nn.functional.cross_entropy(rows, targets)
        for rows, targets in zip(logits.chunk(groups), labels.chunk(groups), strict=True)
    ]


def train_trials(
    stacked: StackedPrompts,
    train_split: EncodedSplit,
    dev_split: EncodedSplit,
    settings: Sequence[TrainingSettings],
    pad_id: int,
) -> list[TrainingResult]:
    """Train the stacked trials, trial ``i`` with ``settings[i]`` (the same but for the
    seed); return each trial's :class:`TrainingResult`, and leave each trial's best
    prompts in ``stacked`` and its classifier (:meth:`StackedPrompts.load_states`).

    Every step draws each running trial's batch from its own generator
    (:func:`skillneurons.models.training.shuffled_batches`, seeded by its seed), sends
    the trials' batches through the model as one, and steps Adam on the sum of the
    trials' mean cross-entropies. Every ``eval_every`` steps the running trials are
    scored on dev in one pass per dev batch (:func:`predict_trials`); a trial stops
    after ``patience`` evaluations without a gain. As in :func:`train`, trials whose only
    evaluation would fall on their last step (``eval_every >= max_steps``) are not
    evaluated: each keeps its last prompts, its dev accuracy not measured (NaN). One
    process only.
    """
    if launched_processes() > 1:
        raise ValueError("trials trained together run in one process; launch one")
    shared = _check_settings(settings)
    trials = stacked.trials
    if len(settings) != trials:
        raise ValueError(f"{len(settings)} settings for {trials} stacked trials")
    device = stacked.prompts.device
    draws = [
        shuffled_batches(
            len(train_split), shared.batch_size, torch.Generator().manual_seed(s.seed)
        )
        for s in settings
    ]
    optimizer = torch.optim.Adam([stacked.prompts], lr=shared.learning_rate)
    results = [TrainingResult() for _ in range(trials)]
    without_gain = [0] * trials
    running = list(range(trials))
    stacked.eval()
    for step in range(1, shared.max_steps + 1):
        rows = [row for trial in running for row in next(draws[trial])]
        batch = train_split.batch(rows, pad_id, device)
        losses = _group_losses(stacked(**batch, trials=running), batch["labels"], len(running))
        optimizer.zero_grad(set_to_none=True)
        torch.stack(losses).sum().backward()
        optimizer.step()
        for trial in running:
            results[trial].steps = step
        if not shared.evaluates_at(step):
            continue
        dev = predict_trials(stacked, dev_split, shared.eval_batch_size, pad_id, running)
        accuracies = (dev == dev_split.labels).float().mean(dim=1).tolist()
        stopped = []
        for trial, dev_accuracy, loss in zip(running, accuracies, losses, strict=True):
            result = results[trial]
            point = {"step": step, "dev_accuracy": dev_accuracy, "train_loss": loss.item()}
            result.dev_curve.append(point)
            LOG.info(
                "trial %d, step %d: dev accuracy %.4f, loss %.4f",
                trial,
                step,
                dev_accuracy,
                point["train_loss"],
            )
            if dev_accuracy > result.best_dev_accuracy:
                result.best_dev_accuracy, result.best_step = dev_accuracy, step
                result.best_state = {"prompts": stacked.prompts[trial].detach().clone()}
                without_gain[trial] = 0
                continue
            without_gain[trial] += 1
            if without_gain[trial] >= shared.patience:
                LOG.info(
                    "trial %d: early stop at step %d (best step %d)", trial, step, result.best_step
                )
                result.converged = True
                stopped.append(trial)
        running = [trial for trial in running if trial not in stopped]
        if not running:
            break
    if not shared.selects:
        for trial, result in enumerate(results):
            result.best_step, result.best_dev_accuracy = result.steps, float("nan")
            result.best_state = {"prompts": stacked.prompts[trial].detach().clone()}
        LOG.info("kept step %d without a dev evaluation (eval_every >= max_steps)", step)
        running = []
    for trial in running:
        LOG.warning(
            "trial %d stopped at max_steps=%d before %d evaluations without a dev gain "
            "(best step %d): raise max_steps to let the dev curve level off",
            trial,
            shared.max_steps,
            shared.patience,
            results[trial].best_step,
        )
    stacked.load_states([result.best_state for result in results])
    return results
