"""One training loop for every tuning method (paper A, appendix B).

Prompt tuning, adapters, BitFit, full and neuron-only fine-tuning differ only in
which parameters have ``requires_grad=True``; :func:`train` optimises exactly those
with Adam, evaluates on dev every ``eval_every`` steps, keeps the best state, and
stops after ``patience`` evaluations without improvement (paper: 6). A run whose only
evaluation would fall on its last step (``eval_every >= max_steps``) is not evaluated:
that evaluation could neither select a state nor stop the run (evaluation only as
often as the stopping rule needs), so the last state is kept and its dev accuracy is
not measured (NaN).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import torch
from tqdm.auto import tqdm

from skillneurons.models.distributed import DataParallel
from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.neuron_deltas import MaskedAdam

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainingSettings:
    """Hyper-parameters of :func:`train` (config ``prompt_tuning``)."""

    learning_rate: float = 1e-3
    batch_size: int = 8
    eval_batch_size: int = 64
    max_steps: int = 1000
    eval_every: int = 100
    patience: int = 6
    seed: int = 0

    @classmethod
    def from_config(
        cls, settings: Mapping[str, object], seed: int, **overrides: object
    ) -> TrainingSettings:
        """The fields found in a config block (``prompt_tuning``, ``tuning_methods``,
        ``pruning``, ...), then ``overrides``; other keys of the block are ignored."""
        fields = {name: settings[name] for name in cls.__dataclass_fields__ if name in settings}
        return cls(**{**fields, **overrides, "seed": seed})

    @property
    def selects(self) -> bool:
        """Whether dev evaluations can select a state or stop the run: not where the only
        one would fall on the last step (``eval_every >= max_steps``; then none runs)."""
        return self.eval_every < self.max_steps

    def evaluates_at(self, step: int) -> bool:
        """Whether step ``step`` (from 1) ends with a dev evaluation: every ``eval_every``
        steps and at the last one, where evaluations can select (:attr:`selects`)."""
        return self.selects and (step % self.eval_every == 0 or step == self.max_steps)


@dataclass
class TrainingResult:
    """What :func:`train` found: the dev curve and the best trainable state."""

    dev_curve: list[dict] = field(default_factory=list)
    best_step: int = 0
    best_dev_accuracy: float = float("-inf")
    best_state: dict[str, torch.Tensor] = field(default_factory=dict)
    steps: int = 0
    #: True when ``patience`` evaluations without a dev gain stopped the run (the dev
    #: curve levelled off); False when it ran out of ``max_steps`` first.
    converged: bool = False


def trainable_state(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """Copies of the parameters that are being trained."""
    return {
        name: parameter.detach().clone()
        for name, parameter in model.named_parameters()
        if parameter.requires_grad
    }


def batches_by_length(split: EncodedSplit, batch_size: int) -> list[list[int]]:
    """Row indices in batches of similar length (less padding), in a fixed order."""
    order = sorted(range(len(split)), key=lambda i: len(split.input_ids[i]))
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


@torch.inference_mode()
def predict(
    model: torch.nn.Module, split: EncodedSplit, batch_size: int, pad_id: int
) -> torch.Tensor:
    """Predicted labels ``[samples]`` (argmax of the model's label logits), in split order."""
    was_training = model.training
    model.eval()
    predictions = torch.empty(len(split), dtype=torch.long)
    device = next(model.parameters()).device
    for rows in batches_by_length(split, batch_size):
        batch = split.batch(rows, pad_id, device)
        predictions[rows] = model(**batch).argmax(dim=-1).cpu()
    model.train(was_training)
    return predictions


def accuracy(model: torch.nn.Module, split: EncodedSplit, batch_size: int, pad_id: int) -> float:
    return (predict(model, split, batch_size, pad_id) == split.labels).float().mean().item()


def shuffled_batches(
    size: int, batch_size: int, generator: torch.Generator
) -> Iterator[list[int]]:
    """Row indices ``batch_size`` at a time, endlessly: each epoch a fresh permutation of
    ``range(size)`` drawn from ``generator``, a batch never split across epochs' ends
    (the rest of an epoch opens the next)."""
    order: list[int] = []
    while True:
        if len(order) < batch_size:
            order += torch.randperm(size, generator=generator).tolist()
        rows, order = order[:batch_size], order[batch_size:]
        yield rows


def train(
    model: torch.nn.Module,
    train_split: EncodedSplit,
    dev_split: EncodedSplit,
    settings: TrainingSettings,
    pad_id: int,
    *,
    progress: bool = True,
    evaluate: Callable[[torch.nn.Module], float] | None = None,
    confine: Callable[[torch.nn.Module, dict], Mapping[torch.Tensor, torch.Tensor]] | None = None,
) -> TrainingResult:
    """Train the parameters of ``model`` that require gradients; keep the best on dev.

    ``model(**batch)`` must return label logits ``[batch, labels]``; the loss is their
    cross-entropy with the batch's labels. Batches come from
    ``train_split.batches(batch_size, generator)`` when the split has that method (a
    mixture of tasks, :class:`skillneurons.models.mixture.TaskMixture`), else
    :func:`shuffled_batches`; the generator is seeded by ``settings.seed``, so a run is
    reproducible. ``evaluate(model)`` scores a dev evaluation (default: accuracy on
    ``dev_split``). The backbone stays in eval mode (no dropout): a frozen backbone is
    a fixed function of its inputs, the same one whose activations are analysed
    afterwards. Adam without weight decay moves only what has a gradient.
    ``confine(trained, batch)``, called before each optimizer step with the module whose
    parameters the step changes, returns the entries that batch may change (``{parameter:
    bool mask}``: :meth:`skillneurons.models.neuron_deltas.NeuronDeltas.entries_of`);
    the optimizer is then :class:`skillneurons.models.neuron_deltas.MaskedAdam`, whose
    step leaves every other entry's value, moments and step count as they were (tasks
    trained together: no moment carries another task's gradient).
    The best trainable state is loaded back into ``model`` before returning.
    The job's processes (:class:`skillneurons.models.distributed.DataParallel`: one,
    or several launched together) share the steps: each process trains on its share of
    every batch and the gradients are averaged; the batches drawn, evaluations and best
    state are the same in every process.
    """
    if not any(p.requires_grad for p in model.parameters()):
        raise ValueError("the model has no trainable parameters")
    generator = torch.Generator().manual_seed(settings.seed)
    parallel = DataParallel.from_environment(model)
    parallel.check_batch_size(settings.batch_size)
    adam = torch.optim.Adam if confine is None else MaskedAdam
    stepped, trained, optimizer, device = parallel.prepare(model, settings.learning_rate, adam)
    # accelerate wraps the optimizer; the entries of a step go to the one that steps.
    stepping = getattr(optimizer, "optimizer", optimizer)
    if evaluate is None:

        def evaluate(model: torch.nn.Module) -> float:
            return accuracy(model, dev_split, settings.eval_batch_size, pad_id)

    sample = getattr(train_split, "batches", None)
    batches = (
        sample(settings.batch_size, generator)
        if sample is not None
        else shuffled_batches(len(train_split), settings.batch_size, generator)
    )
    result = TrainingResult()
    stepped.eval()
    model.eval()
    evaluations_without_gain = 0
    quiet = not progress or not parallel.is_main
    bar = tqdm(total=settings.max_steps, desc="training", disable=quiet, mininterval=5)
    for step in range(1, settings.max_steps + 1):
        batch = train_split.batch(parallel.share(next(batches)), pad_id, device)
        loss = torch.nn.functional.cross_entropy(stepped(**batch), batch["labels"])
        optimizer.zero_grad(set_to_none=True)
        parallel.backward(loss)
        if confine is not None:
            stepping.entries = confine(trained, batch)
        optimizer.step()
        bar.update(1)
        bar.set_postfix(loss=f"{loss.item():.3f}")
        result.steps = step
        if not settings.evaluates_at(step):
            continue
        parallel.gather(trained, model)
        dev_accuracy = evaluate(model)
        train_loss = parallel.reduce(loss).item()
        point = {"step": step, "dev_accuracy": dev_accuracy, "train_loss": train_loss}
        result.dev_curve.append(point)
        LOG.info("step %d: dev accuracy %.4f, loss %.4f", step, dev_accuracy, train_loss)
        if dev_accuracy > result.best_dev_accuracy:
            result.best_dev_accuracy, result.best_step = dev_accuracy, step
            result.best_state = trainable_state(model)
            evaluations_without_gain = 0
        else:
            evaluations_without_gain += 1
            if evaluations_without_gain >= settings.patience:
                LOG.info("early stop at step %d (best step %d)", step, result.best_step)
                result.converged = True
                break
    bar.close()
    if not settings.selects:
        parallel.gather(trained, model)
        result.best_step, result.best_state = result.steps, trainable_state(model)
        result.best_dev_accuracy = float("nan")
        LOG.info("kept step %d without a dev evaluation (eval_every >= max_steps)", result.steps)
    elif not result.converged:
        LOG.warning(
            "stopped at max_steps=%d before %d evaluations without a dev gain (best step "
            "%d): the dev curve may still be rising; raise max_steps to let it level off",
            settings.max_steps,
            settings.patience,
            result.best_step,
        )
    parallel.release()
    load_trainable_state(model, result.best_state)
    return result


def run_metrics(result: TrainingResult, test_accuracy: float) -> dict:
    """What every tuning method reports of a :func:`train` run: the dev curve, best step,
    steps taken, whether the dev curve levelled off before ``max_steps``
    (:attr:`TrainingResult.converged`), best dev accuracy (None where it was not measured)
    and the test accuracy of the (best) model."""
    measured = result.best_dev_accuracy == result.best_dev_accuracy  # not NaN
    return {
        "dev_curve": result.dev_curve,
        "best_step": result.best_step,
        "steps": result.steps,
        "converged": result.converged,
        "dev_accuracy": result.best_dev_accuracy if measured else None,
        "test_accuracy": test_accuracy,
    }


def result_metrics(
    model: torch.nn.Module,
    result: TrainingResult,
    test: EncodedSplit,
    batch_size: int,
    pad_id: int,
) -> dict:
    """:func:`run_metrics` with the test accuracy of ``model`` (the best state) on
    ``test``."""
    return run_metrics(result, accuracy(model, test, batch_size, pad_id))


def majority_rate(labels: torch.Tensor) -> float:
    """Share of the most frequent label: the accuracy of always guessing it."""
    return labels.bincount().max().item() / len(labels)


def load_trainable_state(model: torch.nn.Module, state: dict[str, torch.Tensor]) -> None:
    """Copy ``state`` (from :func:`trainable_state`) into the model's parameters."""
    parameters = dict(model.named_parameters())
    with torch.no_grad():
        for name, value in state.items():
            parameters[name].copy_(value)
