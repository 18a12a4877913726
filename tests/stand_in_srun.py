"""A stand-in for SLURM's ``srun`` that runs a job step's tasks as local processes.

tests/test_distributed.py puts it on ``PATH`` as ``srun`` to run a job "on two nodes"
on one machine: it accepts exactly the options skillneurons.infra.launch gives
``srun`` (``--overlap --nodes=N --ntasks=N --ntasks-per-node=1``), refuses anything
else, starts the command once per node with SLURM's per-task variables
(``SLURM_NODEID``, ``SLURM_PROCID``, ``SLURM_LOCALID``, ``SLURM_NNODES``), waits for all
of them and exits with the first failing status (0 if none failed), as srun does.
What it does not stand in for: placing the tasks on other machines.
"""

import os
import subprocess
import sys

OPTIONS = {"--overlap", "--nodes", "--ntasks", "--ntasks-per-node"}


def parse(arguments: list[str]) -> tuple[int, list[str]]:
    """The number of nodes and the command of an srun call."""
    options = {}
    while arguments and arguments[0].startswith("--"):
        key, _, value = arguments.pop(0).partition("=")
        options[key] = value
    if set(options) != OPTIONS or options["--overlap"] or options["--ntasks-per-node"] != "1":
        sys.exit(f"stand-in srun: expected {sorted(OPTIONS)}, one task per node; got {options}")
    nodes = int(options["--nodes"])
    if int(options["--ntasks"]) != nodes:
        sys.exit("stand-in srun: --ntasks must equal --nodes (one task per node)")
    if "SLURM_JOB_ID" not in os.environ:
        sys.exit("stand-in srun: no SLURM_JOB_ID: srun runs inside a job")
    if not arguments:
        sys.exit("stand-in srun: no command")
    return nodes, arguments


def main() -> int:
    nodes, command = parse(sys.argv[1:])
    tasks = [
        subprocess.Popen(
            command,
            env={
                **os.environ,
                "SLURM_NODEID": str(node),
                "SLURM_PROCID": str(node),
                "SLURM_LOCALID": "0",
                "SLURM_NNODES": str(nodes),
            },
        )
        for node in range(nodes)
    ]
    statuses = [task.wait() for task in tasks]
    return next((status for status in statuses if status), 0)


if __name__ == "__main__":
    sys.exit(main())
