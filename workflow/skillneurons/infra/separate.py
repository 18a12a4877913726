"""Several runs of one computation in one job, each as if it were a job of its own.

A job that loads a model pays seconds of imports before it computes anything, so a rule
computes every training run of a paper-B condition (``paper_b.runs``) or every
prompt-tuning trial of a paper-A task in one job instead of one job each. A run of such
a job must compute exactly what its own job computed: :func:`separate_runs` puts torch's
random state back, before each run, to what it was when the first began (a fresh
process's, the state every old job started from), and marks the job log's lines with
the run. What the runs must not share (a trained model) each run makes afresh
(:func:`skillneurons.models.loading.fresh_models`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

import torch

from skillneurons.infra.runlog import LOG, marked

Run = TypeVar("Run")


def separate_runs(runs: Sequence[Run], name: str = "run") -> Iterator[tuple[int, Run]]:
    """``(index, run)`` for each of ``runs``, in order, each begun from the random state
    of torch (the CPU's and, once initialised, every CUDA device's) that the first began
    from; the job log's lines during a run are marked "``name`` ``run``" (e.g. "trial 1").

    CUDA's generators, when first initialised during a run (by the run's model load),
    start from torch's default seed in a fresh process; the runs after the first get
    that seed (the CPU's initial seed when the first run began) back.
    """
    cpu, seed = torch.get_rng_state(), torch.initial_seed()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    for index, run in enumerate(runs):
        torch.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)
        elif torch.cuda.is_initialized():
            torch.cuda.manual_seed_all(seed)
        with marked(f"{name} {run}"):
            LOG.info("started, %d of %d", index + 1, len(runs))
            yield index, run
