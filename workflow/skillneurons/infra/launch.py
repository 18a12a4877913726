"""Start a rule's script as the processes of one data-parallel job (paper B's training
of 7B models, which outgrows one GPU).

A training rule's world size is read from the job's resources, which the SLURM profile
sets (``profiles/slurm-llm``): ``gpu``, the GPUs of the job (SLURM's ``--gpus``), one
process each; for a job without GPUs, ``processes``, CPU processes that talk over gloo;
``nodes``, the machines the processes are spread over (SLURM's ``--nodes``, equal shares);
``fsdp: 1``, shard the model, its gradients and the optimizer state over the processes
instead of replicating them (accelerate's FSDP, which runs on GPUs only). Snakemake
starts the script as one process; with a world size above one, :func:`relaunch_if_parallel`
starts the same script again under ``torchrun`` (``torch.distributed.run``) with that
many processes, writes their output to the job's log and exits with their status. The
processes then train together (:class:`skillneurons.models.distributed.Processes`,
through accelerate), compute the same results, and only the main one writes the outputs
(:func:`writes_outputs`, used by every writer of :mod:`skillneurons.infra.io`).

On several nodes the launcher runs ``srun`` (one ``torchrun`` per node, joined through
torch's c10d rendezvous at the first node, where SLURM starts the job's script).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: The rendezvous port of a multi-node job on its first node.
RENDEZVOUS_PORT = 29517
#: accelerate's FSDP, read from the environment by ``Accelerator``: FSDP2
#: (``fully_shard``); the units, the model's Transformer blocks, are set by
#: :class:`skillneurons.models.distributed.DataParallel`.
FSDP_ENVIRONMENT = {"ACCELERATE_USE_FSDP": "true", "FSDP_VERSION": "2"}


def launched() -> bool:
    """Whether this process is one of a launched job's (``torchrun`` sets ``WORLD_SIZE``)."""
    return "WORLD_SIZE" in os.environ


def writes_outputs() -> bool:
    """Whether this process writes the job's files: a plain process, or the main process
    (rank 0) of a launched job; the others compute the same results and discard them."""
    return int(os.environ.get("RANK", "0")) == 0


@dataclass(frozen=True)
class Launch:
    """How many processes a job runs, on how many nodes, with how many CPU threads."""

    processes: int
    nodes: int = 1
    threads: int = 1
    fsdp: bool = False

    @classmethod
    def from_resources(cls, resources: Mapping[str, object], threads: int) -> Launch:
        """The launch a job's resources ask for (``gpu``, ``processes``, ``nodes``,
        ``fsdp``; all optional, one process by default)."""
        gpus = int(resources.get("gpu", 0) or 0)
        processes = int(resources.get("processes", 0) or 0)
        nodes = int(resources.get("nodes", 1) or 1)
        if gpus and processes and processes != gpus:
            raise ValueError(
                f"resources ask for {processes} processes and {gpus} GPUs: a data-parallel "
                "job runs one process per GPU; drop 'processes' or set it to 'gpu'"
            )
        world = processes or gpus or 1
        if world % nodes:
            raise ValueError(
                f"{world} processes do not split evenly over {nodes} nodes; "
                "set 'gpu' (or 'processes') to a multiple of 'nodes'"
            )
        fsdp = bool(int(resources.get("fsdp", 0) or 0))
        if fsdp and not gpus:
            raise ValueError(
                "resources ask for fsdp without GPUs: accelerate shards a model over GPUs "
                "only; give the rule 'gpu' or drop 'fsdp'"
            )
        return cls(world, nodes, max(1, int(threads)), fsdp)

    @property
    def per_node(self) -> int:
        return self.processes // self.nodes

    def command(self, script: str, arguments: Sequence[str] = ()) -> list[str]:
        """The command that starts ``script`` (with its ``arguments``) as the job's
        processes."""
        torchrun = [sys.executable, "-m", "torch.distributed.run"]
        torchrun.append(f"--nproc-per-node={self.per_node}")
        if self.nodes == 1:
            return [*torchrun, "--standalone", script, *arguments]
        job = os.environ.get("SLURM_JOB_ID")
        if job is None:
            raise RuntimeError(
                f"a job on {self.nodes} nodes is started through srun, but this process "
                "runs outside a SLURM job; run it with the SLURM profile or set nodes: 1"
            )
        return [
            *("srun", "--overlap", f"--nodes={self.nodes}", f"--ntasks={self.nodes}"),
            "--ntasks-per-node=1",
            *torchrun,
            f"--nnodes={self.nodes}",
            "--rdzv-backend=c10d",
            f"--rdzv-endpoint={socket.gethostname()}:{RENDEZVOUS_PORT}",
            f"--rdzv-id={job}",
            script,
            *arguments,
        ]

    def environment(self, base: Mapping[str, str]) -> dict[str, str]:
        """The processes' environment: the job's CPU threads shared among a node's
        processes (``OMP_NUM_THREADS``), accelerate's FSDP settings when asked for."""
        environment = {**base, "OMP_NUM_THREADS": str(max(1, self.threads // self.per_node))}
        return {**environment, **FSDP_ENVIRONMENT} if self.fsdp else environment


def relaunch_if_parallel(resources: Mapping[str, object], threads: int, log: str) -> None:
    """Run this script as the processes its job's ``resources`` ask for, then exit.

    Returns at once in a plain job (one process) and in the launched processes
    themselves, which carry on with the script. Otherwise starts them, each with this
    process's command-line arguments (their output
    appended to ``log``, the job's log file) and exits with their status, so the job
    fails when one of them does.
    """
    launch = Launch.from_resources(resources, threads)
    if launch.processes == 1 or launched():
        return
    command = launch.command(os.path.abspath(sys.argv[0]), sys.argv[1:])
    with open(log, "a", buffering=1) as stream:
        stream.write(f"starting {launch.processes} processes: {' '.join(command)}\n")
        result = subprocess.run(
            command, env=launch.environment(os.environ), stdout=stream, stderr=stream
        )
        stream.write(f"{launch.processes} processes exited with status {result.returncode}\n")
    sys.exit(result.returncode)
