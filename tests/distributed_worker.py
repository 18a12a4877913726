"""Train a tiny classifier with skillneurons.models.training.train and save its state.

Run as one process (``python tests/distributed_worker.py OUT``) or launched with several
(``torchrun --nproc_per_node 2 tests/distributed_worker.py OUT``, or
``python tests/distributed_worker.py OUT PROCESSES NODES``, which starts itself as
PROCESSES processes over NODES nodes as a rule's script does:
skillneurons.infra.launch.relaunch_if_parallel, logging to OUT.log); the main process
writes the trained parameters to OUT (safetensors). tests/test_distributed.py compares
them.
"""

import sys

import torch
from safetensors.torch import save_file

from skillneurons.infra.launch import relaunch_if_parallel
from skillneurons.models.distributed import DataParallel
from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.training import TrainingSettings, train


class BagOfWords(torch.nn.Module):
    """Mean word embedding -> two label logits (padding masked out)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.embedding = torch.nn.Embedding(12, 8)
        self.hidden = torch.nn.Linear(8, 8)
        self.out = torch.nn.Linear(8, 2)

    def forward(self, input_ids, attention_mask, labels=None):
        mask = attention_mask.unsqueeze(-1).float()
        mean = (self.embedding(input_ids) * mask).sum(1) / mask.sum(1)
        return self.out(torch.tanh(self.hidden(mean)))


def splits() -> tuple[EncodedSplit, EncodedSplit]:
    """Rows of 1-5 word ids; label 1 when id 3 occurs (deterministic)."""
    generator = torch.Generator().manual_seed(1)
    rows, labels = [], []
    for _ in range(40):
        length = int(torch.randint(1, 6, (1,), generator=generator))
        row = torch.randint(1, 12, (length,), generator=generator).tolist()
        rows.append(row)
        labels.append(int(3 in row))
    split = EncodedSplit(rows, None, torch.tensor(labels))
    return split, split


def main(out: str) -> None:
    torch.set_num_threads(1)
    model = BagOfWords()
    train_split, dev_split = splits()
    settings = TrainingSettings(
        learning_rate=0.05, batch_size=8, max_steps=12, eval_every=4, patience=10, seed=3
    )
    result = train(model, train_split, dev_split, settings, pad_id=0, progress=False)
    state = {name: value.contiguous() for name, value in model.state_dict().items()}
    state["best_step"] = torch.tensor(result.best_step)
    parallel = DataParallel.from_environment(model)
    state["sharded"] = torch.tensor(parallel.sharded)
    if parallel.is_main:
        save_file(state, out)


if __name__ == "__main__":
    if len(sys.argv) == 4:
        processes, nodes = int(sys.argv[2]), int(sys.argv[3])
        resources = {"processes": processes, "nodes": nodes}
        relaunch_if_parallel(resources, threads=processes, log=f"{sys.argv[1]}.log")
    main(sys.argv[1])
