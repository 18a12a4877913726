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
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import torch


def launched_processes() -> int:
    """The world size the launcher set (``WORLD_SIZE``), 1 for a plain process."""
    return int(os.environ.get("WORLD_SIZE", "1"))


@dataclass
class DataParallel:
    """The processes of one launched job (an :class:`accelerate.Accelerator`)."""

    accelerator: object

    @classmethod
    def from_environment(cls) -> DataParallel | None:
        """The job's processes when launched with more than one, else None."""
        if launched_processes() <= 1:
            return None
        from accelerate import Accelerator
        from accelerate.utils import DistributedDataParallelKwargs

        # Some trainable parameters take no part in a step's loss (a pooler, another
        # task's label words): DDP must not wait for their gradients.
        unused = DistributedDataParallelKwargs(find_unused_parameters=True)
        return cls(Accelerator(cpu=not torch.cuda.is_available(), kwargs_handlers=[unused]))

    @property
    def processes(self) -> int:
        return self.accelerator.num_processes

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
