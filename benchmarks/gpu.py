"""The torch part of benchmarks/gpu.sh: the batching curves and paper
B's attribution and neuron-only training on a 7B-shaped model, on one device.

    python -m benchmarks.gpu [--device cuda] [--tiny] [--repeats 3] [--layers 8]

- ``trial_batching`` and ``sweep_batching`` curves at :data:`POINTS` (k = 1, 3, 8, 16
  trials per pass; as many perturbation conditions per sweep), on MiniLM-L6;
- ``relevance`` and ``neuron_training`` on a randomly initialised Llama of Llama-2-7B's
  shape (hidden 4096, FFN 11008, 32 heads) cut to ``--layers`` layers so that full
  fine-tuning's Adam state fits one GPU (8 layers: about 1.9 billion parameters, 30 GB
  of weights, gradients and Adam state in float32); the vocabulary is MiniLM's
  tokenizer's (30,522 ids against Llama's 32,000), no download.

``--tiny`` (the CPU check of tests/test_gpu_script.py): a 2-layer MiniLM, a Llama of
hidden 64, and one or two points per curve; it measures nothing.
"""

from __future__ import annotations

import argparse
import sys

import torch
import transformers

from benchmarks import neuron_training, relevance, sweep_batching, trial_batching
from benchmarks.common import MINILM
from skillneurons.models.loading import LoadedModel, load_model

POINTS = (1, 3, 8, 16)
#: Llama-2-7B's shape (its config.json), but the number of layers.
LLAMA_7B = {"hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32}
TINY_LLAMA = {"hidden_size": 64, "intermediate_size": 172, "num_attention_heads": 4}


def llama(layers: int, device: str, tiny: bool) -> LoadedModel:
    """A random Llama of 7B's shape (tiny: of hidden 64), ``layers`` layers, on
    ``device``, with MiniLM's tokenizer."""
    tokenizer = load_model(MINILM).tokenizer
    shape = TINY_LLAMA if tiny else LLAMA_7B
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer),
        num_hidden_layers=layers,
        num_key_value_heads=shape["num_attention_heads"],
        pad_token_id=tokenizer.pad_token_id,
        **shape,
    )
    torch.manual_seed(0)
    with torch.device(device):
        model = transformers.LlamaForCausalLM(config).eval()
    name = f"random Llama {'hidden 64' if tiny else '7B shape'}, {layers} layers"
    return LoadedModel(model, tokenizer, "causal_lm", name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--layers", type=int, default=8)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    device, tiny = args.device, args.tiny
    points = POINTS[:2] if tiny else POINTS
    print(f"torch {torch.__version__} on {device}, median of {args.repeats}", flush=True)
    rows = [
        trial_batching.curve(args.repeats, points, device=device, tiny=tiny),
        sweep_batching.curve(args.repeats, points, device=device, tiny=tiny),
    ]
    for row in rows:
        print(row.report(), flush=True)
    model = llama(2 if tiny else args.layers, device, tiny)
    batch = 2 if tiny else 8
    for row in (
        relevance.run(args.repeats, batch_size=batch, loaded=model),
        neuron_training.run(args.repeats, batch_size=batch, loaded=model),
    ):
        print(row.report(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
