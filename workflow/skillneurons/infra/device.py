"""Torch threads and device for a rule's script (CUDA only when a GPU was granted)."""

from __future__ import annotations

import torch


def configure_torch(threads: int, gpus: int = 0) -> torch.device:
    """Use the rule's thread count; pick CUDA when the rule was granted a GPU and one exists."""
    torch.set_num_threads(max(1, int(threads)))
    if gpus and torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")
