"""Data-parallel training across processes, through accelerate (paper B's 7B training).

A job started as one process (``python``, Snakemake's ``script:``) trains as it always
did and nothing here is used. A job started by ``accelerate launch`` (or ``torchrun``)
with a world size above one trains under :class:`DataParallel`:
:meth:`accelerate.Accelerator.prepare` wraps the model and optimizer (DDP, or FSDP when
the launch config asks for it: ``accelerate launch --use_fsdp``), and every process
takes its share of each batch's rows. Each process's loss is the mean over its share,
and the all-reduce averages the shares' gradients, so with equal shares every step
moves the parameters as one process training on the whole batch would (up to
floating-point summation order). On a CPU-only machine the processes talk over gloo.

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
import os
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch.distributed.tensor import DTensor

from skillneurons.models.sites import UnsupportedModelError, ffn_sites


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


@dataclass
class DataParallel:
    """The processes of one launched job (an :class:`accelerate.Accelerator`)."""

    accelerator: object

    @classmethod
    def from_environment(cls, model: torch.nn.Module | None = None) -> DataParallel | None:
        """The job's processes when launched with more than one, else None. With FSDP
        asked for, ``model``'s Transformer blocks are its units."""
        if launched_processes() <= 1:
            return None
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
        return cls(
            Accelerator(
                cpu=not torch.cuda.is_available(), kwargs_handlers=[unused], fsdp_plugin=fsdp
            )
        )

    @property
    def processes(self) -> int:
        return self.accelerator.num_processes

    @property
    def sharded(self) -> bool:
        """Whether the processes shard the model (FSDP) rather than replicate it (DDP)."""
        return str(self.accelerator.distributed_type).endswith("FSDP")

    @property
    def sharding(self) -> str:
        return "sharded with FSDP" if self.sharded else "replicated (DDP)"

    def prepare(
        self, model: torch.nn.Module, learning_rate: float, adam=torch.optim.Adam
    ) -> tuple[torch.nn.Module, torch.nn.Module, torch.optim.Optimizer]:
        """``(stepped, trained, optimizer)``: the module the steps call (DDP's wrapper
        of ``model``; with FSDP a sharded replica), the module whose parameters Adam
        changes (``model``; the replica), and ``adam`` (the optimizer class: Adam, or
        :class:`skillneurons.models.neuron_deltas.MaskedAdam` for tasks trained
        together) over its trainable parameters."""
        trained = copy.deepcopy(model) if self.sharded else model
        parameters = [p for p in trained.parameters() if p.requires_grad]
        optimizer = adam(parameters, lr=learning_rate)
        stepped, optimizer = self.accelerator.prepare(trained, optimizer)
        return stepped, trained, optimizer

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
        """Drop accelerate's references to the prepared modules and optimizers (a
        sharded replica is freed with them)."""
        self.accelerator.free_memory()

    @property
    def is_main(self) -> bool:
        """Whether this process writes the job's outputs (the others compute the same)."""
        return self.accelerator.is_main_process

    def check_batch_size(self, batch_size: int) -> None:
        """Refuse a batch that cannot be shared equally (unequal shares would weight
        the rows of the smaller one more)."""
        if batch_size % self.processes:
            raise ValueError(
                f"batch size {batch_size} does not split evenly over {self.processes} "
                f"processes; set the training batch_size to a multiple of {self.processes}"
            )

    def share(self, rows: Sequence[int]) -> list[int]:
        """This process's rows of a batch: every ``processes``-th, from its index."""
        return list(rows[self.accelerator.process_index :: self.processes])
