"""Data-parallel training across processes, through accelerate (paper B's 7B training).

:meth:`DataParallel.from_environment` says how a job's trainings share their steps. A
job started as one process (``python``, Snakemake's ``script:``) gets
:class:`OneProcess`: the model is trained as it is, on whole batches. A job started by
``accelerate launch`` (or ``torchrun``) with a world size above one gets
:class:`Processes`: :meth:`accelerate.Accelerator.prepare` wraps the model and optimizer
(DDP, or FSDP when the launch config asks for it: ``accelerate launch --use_fsdp``),
and every process takes its share of each batch's rows. Each process's loss is the mean
over its share, and the all-reduce averages the shares' gradients, so with equal shares
every step moves the parameters as one process training on the whole batch would (up
to floating-point summation order). On a CPU-only machine the processes talk over gloo.

With FSDP (``ACCELERATE_USE_FSDP``, set by skillneurons.infra.launch for ``fsdp: 1``)
each training shards a **replica** of the model instead of the model itself: the
replica's Transformer blocks (:attr:`skillneurons.models.sites.FFNSite.block`) are
FSDP2 units, the rest one root unit, and its parameters, gradients and Adam state are
split over the processes. Before every evaluation and at the end the trained values are
gathered whole into the model (:meth:`DataParallel.gather`), which stays a plain module
that every process holds complete, so that everything outside the training loop
(evaluations through any task's head, deactivation hooks, reading or folding neuron
parameters, the next training) runs as in one process. The price is one full copy of
the model per GPU beside the shards.
"""

from __future__ import annotations

import copy
import logging
import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch.distributed.tensor import DTensor

from skillneurons.models.sites import UnsupportedModelError, ffn_sites

LOG = logging.getLogger(__name__)


def transformer_blocks(model: torch.nn.Module | None) -> list[str]:
    """The class names of ``model``'s Transformer blocks (FSDP's units); none for a
    model without known neuron sites, which is then sharded as one unit."""
    try:
        return sorted({type(site.block).__name__ for site in ffn_sites(model)})
    except UnsupportedModelError:
        return []


def launched_processes() -> int:
    """The world size the launcher set (``WORLD_SIZE``), 1 for a plain process."""
    return int(os.environ.get("WORLD_SIZE", "1"))


class DataParallel(ABC):
    """How the processes of one job share a training's steps
    (:func:`skillneurons.models.training.train`): :class:`OneProcess` or
    :class:`Processes`, whichever :meth:`from_environment` finds."""

    processes: int
    sharded: bool
    is_main: bool

    @staticmethod
    def from_environment(model: torch.nn.Module | None = None) -> DataParallel:
        """The job's processes: :class:`Processes` when launched with more than one,
        else :class:`OneProcess`. With FSDP asked for, ``model``'s Transformer blocks
        are its units."""
        if launched_processes() <= 1:
            return OneProcess()
        from accelerate import Accelerator
        from accelerate.utils import DistributedDataParallelKwargs, FullyShardedDataParallelPlugin

        fsdp = None
        if os.environ.get("ACCELERATE_USE_FSDP", "false").lower() == "true":
            blocks = transformer_blocks(model)
            fsdp = FullyShardedDataParallelPlugin(
                fsdp_version=2,
                auto_wrap_policy="transformer_based_wrap" if blocks else "no_wrap",
                transformer_cls_names_to_wrap=blocks or None,
            )
        # Some trainable parameters take no part in a step's loss (a pooler, another
        # task's label words): DDP must not wait for their gradients.
        unused = DistributedDataParallelKwargs(find_unused_parameters=True)
        return Processes(
            Accelerator(
                cpu=not torch.cuda.is_available(), kwargs_handlers=[unused], fsdp_plugin=fsdp
            )
        )

    def check_batch_size(self, batch_size: int) -> None:
        """Refuse a batch that cannot be shared equally (unequal shares would weight
        the rows of the smaller one more)."""
        if batch_size % self.processes:
            raise ValueError(
                f"batch size {batch_size} does not split evenly over {self.processes} "
                f"processes; set the training batch_size to a multiple of {self.processes}"
            )

    @abstractmethod
    def prepare(
        self, model: torch.nn.Module, learning_rate: float, adam=torch.optim.Adam
    ) -> tuple[torch.nn.Module, torch.nn.Module, torch.optim.Optimizer, torch.device]:
        """``(stepped, trained, optimizer, device)``: the module the steps call, the
        module whose parameters the optimizer changes, ``adam`` (the optimizer class:
        Adam, or :class:`skillneurons.models.neuron_deltas.MaskedAdam` for tasks
        trained together) over those parameters, and the device of the batches."""

    @abstractmethod
    def share(self, rows: Sequence[int]) -> Sequence[int]:
        """This process's rows of a batch."""

    @abstractmethod
    def backward(self, loss: torch.Tensor) -> None:
        """Back-propagate this process's loss into the trained parameters' gradients."""

    @abstractmethod
    def reduce(self, loss: torch.Tensor) -> torch.Tensor:
        """The whole batch's loss from this process's."""

    @abstractmethod
    def gather(self, trained: torch.nn.Module, model: torch.nn.Module) -> None:
        """Bring the trained values into ``model`` (before each evaluation)."""

    @abstractmethod
    def release(self) -> None:
        """Free what :meth:`prepare` made for a training, at its end."""


class OneProcess(DataParallel):
    """A job of one process: it trains ``model`` itself, on whole batches."""

    processes = 1
    sharded = False
    is_main = True

    def prepare(
        self, model: torch.nn.Module, learning_rate: float, adam=torch.optim.Adam
    ) -> tuple[torch.nn.Module, torch.nn.Module, torch.optim.Optimizer, torch.device]:
        """``model`` stepped and trained in place; batches on the device of its first
        trainable parameter."""
        parameters = [p for p in model.parameters() if p.requires_grad]
        return model, model, adam(parameters, lr=learning_rate), parameters[0].device

    def share(self, rows: Sequence[int]) -> Sequence[int]:
        """The whole batch."""
        return rows

    def backward(self, loss: torch.Tensor) -> None:
        loss.backward()

    def reduce(self, loss: torch.Tensor) -> torch.Tensor:
        """The batch's loss: this process's."""
        return loss

    def gather(self, trained: torch.nn.Module, model: torch.nn.Module) -> None:
        """Nothing: ``model`` is the trained module."""

    def release(self) -> None:
        """Nothing: no process holds a replica."""


@dataclass
class Processes(DataParallel):
    """The processes of one launched job (an :class:`accelerate.Accelerator`)."""

    accelerator: object

    @property
    def processes(self) -> int:
        return self.accelerator.num_processes

    @property
    def sharded(self) -> bool:
        """Whether the processes shard the model (FSDP) rather than replicate it (DDP)."""
        return str(self.accelerator.distributed_type).endswith("FSDP")

    @property
    def is_main(self) -> bool:
        """Whether this process writes the job's outputs (the others compute the same)."""
        return self.accelerator.is_main_process

    def prepare(
        self, model: torch.nn.Module, learning_rate: float, adam=torch.optim.Adam
    ) -> tuple[torch.nn.Module, torch.nn.Module, torch.optim.Optimizer, torch.device]:
        """Stepped: DDP's wrapper of ``model`` (with FSDP a sharded replica); trained:
        ``model`` (the replica); batches on the accelerator's device."""
        sharding = "sharded with FSDP" if self.sharded else "replicated (DDP)"
        LOG.info("training on %d processes, the model %s", self.processes, sharding)
        trained = copy.deepcopy(model) if self.sharded else model
        parameters = [p for p in trained.parameters() if p.requires_grad]
        optimizer = adam(parameters, lr=learning_rate)
        stepped, optimizer = self.accelerator.prepare(trained, optimizer)
        return stepped, trained, optimizer, self.accelerator.device

    def share(self, rows: Sequence[int]) -> list[int]:
        """This process's rows of a batch: every ``processes``-th, from its index."""
        return list(rows[self.accelerator.process_index :: self.processes])

    def backward(self, loss: torch.Tensor) -> None:
        """Back-propagate this process's share loss; the gradients are averaged."""
        self.accelerator.backward(loss)

    def reduce(self, loss: torch.Tensor) -> torch.Tensor:
        """The batch's loss: with equal shares, the mean of the processes' share losses."""
        return self.accelerator.reduce(loss.detach(), "mean")

    @torch.no_grad()
    def gather(self, trained: torch.nn.Module, model: torch.nn.Module) -> None:
        """Copy the trainable parameters of ``trained`` (the sharded replica), each
        gathered whole, into ``model``; nothing when ``model`` is trained in place."""
        if trained is model:
            return
        targets = dict(model.named_parameters())
        for name, parameter in trained.named_parameters():
            if parameter.requires_grad:
                whole = parameter.full_tensor() if isinstance(parameter, DTensor) else parameter
                targets[name].copy_(whole)

    def release(self) -> None:
        """Drop accelerate's references to the prepared modules and optimizers, so that
        a sharded replica is freed with them (a replicated model is the caller's)."""
        if self.sharded:
            self.accelerator.free_memory()
