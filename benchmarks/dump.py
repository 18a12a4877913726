"""The ``dump`` row: the dump rule's forward + capture + Parquet write of a split against a
bare forward over the same batches (MiniLM-L6, 128 samples, 8 prompt tokens)."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import torch

from benchmarks.common import MINILM, Ratio, Row, median_times
from skillneurons.models.encoding import encode_split
from skillneurons.models.loading import load_model
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.neurons.activations import dump_activations

#: Dump / bare forward. The dump's forward stops at the last layer's activations (about
#: 5% less work than a whole forward), but its own work, copying the captured blocks
#: to float16 and writing them (19 MB of Parquet), costs more than that, and the write's
#: time varies from round to round with the disk. Set from both kernel sets of a 2-core
#: AMD EPYC (geometric mean of the rounds' ratios, 95% interval): 1.303 [1.151, 1.475]
#: native AVX-512, 1.262 [1.083, 1.470] with ATEN_CPU_CAPABILITY=avx2.
TARGET = 1.2


def run(repeats: int, samples: int = 128, batch_size: int = 64) -> Row:
    loaded = load_model(MINILM)
    texts = [
        f"review {i}: the plot was {'dull' if i % 2 else 'gripping'} and long"
        for i in range(samples)
    ]
    labels = [i % 2 for i in range(samples)]
    split = encode_split(loaded.tokenizer, texts, [None] * samples, labels, 64)
    classifier = PromptedClassifier(loaded, ["Negative", "Positive"], 8)
    pad = loaded.tokenizer.pad_token_id
    batches = [range(i, min(i + batch_size, samples)) for i in range(0, samples, batch_size)]

    def forward() -> None:
        with torch.inference_mode():
            for rows in batches:
                classifier(**split.batch(rows, pad))

    with tempfile.TemporaryDirectory() as folder:
        paths = (Path(folder) / f"dev{call}.parquet" for call in itertools.count())

        def dump() -> None:
            # a new file each call, as in a job (which writes no file twice): replacing
            # the last call's file would time its deletion too
            dump_activations(
                classifier,
                split,
                list(range(samples)),
                next(paths),
                batch_size=batch_size,
                metadata={"split": "dev"},
            )

        times = median_times({"forward": forward, "dump": dump}, repeats, warmup=1)
        megabytes = (Path(folder) / "dev0.parquet").stat().st_size / 1e6
    bare, dumped = times["forward"]["median_s"], times["dump"]["median_s"]
    return Row(
        "dump",
        [
            f"dump: MiniLM-L6, {samples} samples, 8 prompt tokens, batch {batch_size}, "
            f"{megabytes:.1f} MB",
            f"  bare forward           {bare:7.2f} s",
            f"  forward+capture+write  {dumped:7.2f} s",
        ],
        [Ratio.paired("dump / forward", times["dump"]["wall"], times["forward"]["wall"], TARGET)],
        {"forward_s": bare, "dump_s": dumped, "megabytes": megabytes},
    )
