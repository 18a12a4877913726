"""The ``prompt_tuning`` row: one prompt-tuning step (forward + backward + Adam) with the
frozen backbone against a plain forward pass at the same shapes (MiniLM-L6, batch 16).
A frozen backbone computes no weight gradients, so the step costs about one forward and
one activation-only backward; the same step with weight gradients is shown beside it."""

from __future__ import annotations

import torch

from benchmarks.common import MINILM, Ratio, Row, median_times
from skillneurons.models.encoding import encode_split
from skillneurons.models.loading import load_model
from skillneurons.models.prompted import PromptedClassifier

#: Frozen-backbone step / forward. A frozen step's floor is about 2.1: its backward
#: repeats the forward's GEMMs once (activation gradients only) and adds the elementwise
#: backward (GELU, softmax, norms). Set from both kernel sets of a 2-core AMD EPYC, as
#: the geometric mean of the rounds' ratios with its 95% interval: 2.280 [2.159, 2.408]
#: with the native AVX-512 kernels, 2.100 [1.984, 2.222] with ATEN_CPU_CAPABILITY=avx2.
TARGET = 2.3


def run(repeats: int, batch_size: int = 16, prompt_length: int = 8) -> Row:
    loaded = load_model(MINILM)
    texts = [f"the film was {'not ' * (i % 2)}good and the acting was fine {i}" for i in range(64)]
    split = encode_split(loaded.tokenizer, texts, [None] * 64, [i % 2 for i in range(64)], 64)
    batch = split.batch(range(batch_size), loaded.tokenizer.pad_token_id)
    classifier = PromptedClassifier(loaded, ["Negative", "Positive"], prompt_length)
    frozen_optimizer = torch.optim.Adam([classifier.prompts], lr=1e-3)

    def step(optimizer: torch.optim.Optimizer) -> None:
        loss = torch.nn.functional.cross_entropy(classifier(**batch), batch["labels"])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    def forward() -> None:
        with torch.inference_mode():
            classifier(**batch)

    frozen = median_times({"forward": forward, "step": lambda: step(frozen_optimizer)}, repeats)
    for parameter in loaded.model.parameters():
        parameter.requires_grad_(True)
    everything = [p for p in classifier.parameters() if p.requires_grad]
    full_optimizer = torch.optim.Adam(everything, lr=0.0)
    unfrozen = median_times({"step": lambda: step(full_optimizer)}, repeats)["step"]
    plain, step_time = frozen["forward"]["median_s"], frozen["step"]["median_s"]
    return Row(
        "prompt_tuning",
        [
            f"prompt_tuning: MiniLM-L6, batch {batch_size} x {batch['input_ids'].shape[1]} "
            f"tokens + {classifier.added_length} added positions",
            f"  forward             {1000 * plain:8.1f} ms",
            f"  step, frozen        {1000 * step_time:8.1f} ms",
            f"  step, weight grads  {1000 * unfrozen['median_s']:8.1f} ms "
            f"({unfrozen['median_s'] / step_time:.2f}x the frozen step)",
        ],
        [
            Ratio.paired(
                "frozen step / forward", frozen["step"]["wall"], frozen["forward"]["wall"], TARGET
            )
        ],
        {"forward_s": plain, "frozen_step_s": step_time, "full_step_s": unfrozen["median_s"]},
    )
