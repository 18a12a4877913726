"""Test only: let accelerate shard with FSDP on CPU processes.

accelerate applies FSDP (``ACCELERATE_USE_FSDP``, set by skillneurons.infra.launch for
``fsdp: 1``) on GPUs only; CPU processes fall back to plain data parallelism. PyTorch's
FSDP2 (``fully_shard``) itself runs on CPU over gloo, so with this folder on
``PYTHONPATH`` (Python imports ``sitecustomize`` at start-up) a launched CPU process
asked for FSDP gets accelerate's FSDP2 path: the model's parameters, gradients and
Adam state become shards (DTensors) exactly as on GPUs. What it cannot stand in for:
NCCL and the GPUs' memory.
"""

import os

if os.environ.get("ACCELERATE_USE_FSDP") == "true" and "WORLD_SIZE" in os.environ:
    import accelerate.state
    from accelerate.utils import DistributedType, FullyShardedDataParallelPlugin

    _initialise = accelerate.state.AcceleratorState.__init__

    def _initialise_with_fsdp_on_cpu(self, *args, fsdp_plugin=None, **kwargs):
        _initialise(self, *args, fsdp_plugin=fsdp_plugin, **kwargs)
        if self.distributed_type == DistributedType.MULTI_CPU:
            self.distributed_type = DistributedType.FSDP
            self.fsdp_plugin = fsdp_plugin or FullyShardedDataParallelPlugin()

    accelerate.state.AcceleratorState.__init__ = _initialise_with_fsdp_on_cpu
