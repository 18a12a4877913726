"""Torch threads and device for a rule's script (CUDA only when a GPU was granted)."""

from __future__ import annotations

import os

import torch


def configure_torch(threads: int, gpus: int = 0) -> torch.device:
    """Use the rule's thread count; pick CUDA when the rule was granted a GPU and one exists.

    In a job launched as several processes (:mod:`skillneurons.infra.launch`) a node's
    processes share its threads, and each takes the GPU of its local rank.
    """
    local_processes = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    torch.set_num_threads(max(1, int(threads) // local_processes))
    if gpus and torch.cuda.is_available():
        return torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    return torch.device("cpu")
