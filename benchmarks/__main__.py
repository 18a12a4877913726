"""Speed and memory ratios of the pipeline's hot paths, measured side by side in one run.

    python -m benchmarks [--rows prompt_tuning dump ...] [--repeats 7] [--threads 2]
                         [--json PATH] [--check]
                         [--curve [--points 1 3 8]] [--device cuda] [--tiny]

One module per row (``benchmarks/<row>.py``), each with its target as one constant
(``TARGET``) and a ``run(repeats)`` that returns a :class:`benchmarks.common.Row`. The
report prints every row's numbers and ratios, each with its 95% interval over the
interleaved repeats, against their targets; ``--json`` writes them to a file; ``--check``
exits with status 1 when a ratio's interval lies wholly beyond its target (a ratio
whose interval straddles the target is within this machine's noise; every row still
runs and is reported first).

The batching rows (``trial_batching``, ``sweep_batching``) also take ``--device`` and
``--tiny`` (a 2-layer model and a few samples: a check of the code path, not a
measurement), and with ``--curve`` print their ratio at every point of their ``CURVE``
(or ``--points``): the trials per pass, or the conditions per sweep, at which batching
stops paying on the machine. Other rows run as usual.

The ``peers`` row times this project against TransformerLens, nnsight and Captum (the
optional extra ``peers``; without them it prints that it skipped). It runs only when
named (``--rows peers``): it takes minutes on 2 cores, more than every other row
together.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

from benchmarks import (
    dryrun,
    dump,
    neuron_training,
    peers,
    perturbation,
    prompt_tuning,
    pruning,
    ranking,
    relevance,
    sweep_batching,
    trial_batching,
)

ROWS = {
    "prompt_tuning": prompt_tuning,
    "dump": dump,
    "ranking": ranking,
    "pruning": pruning,
    "perturbation": perturbation,
    "relevance": relevance,
    "neuron_training": neuron_training,
    "dryrun": dryrun,
    "trial_batching": trial_batching,
    "sweep_batching": sweep_batching,
    "peers": peers,
}
#: Rows that run only when ``--rows`` names them.
OPT_IN = ("peers",)


def measure(row, args: argparse.Namespace):
    """A row's :class:`benchmarks.common.Row`: its curve, its run on the chosen device
    and sizes (batching rows), or its plain run."""
    if not hasattr(row, "curve"):
        return row.run(args.repeats)
    options = {"device": args.device, "tiny": args.tiny}
    if args.curve:
        return row.curve(args.repeats, args.points or row.CURVE, **options)
    return row.run(args.repeats, **options)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--rows",
        nargs="*",
        default=[name for name in ROWS if name not in OPT_IN],
        choices=list(ROWS),
        help=f"default: every row but {', '.join(OPT_IN)}",
    )
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write every row's results to this file")
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 when a ratio's interval lies beyond its target",
    )
    parser.add_argument(
        "--curve", action="store_true", help="batching rows: the ratio at every point"
    )
    parser.add_argument("--points", nargs="+", type=int, help="the curve's points")
    parser.add_argument("--device", default="cpu", help="batching rows: torch device")
    parser.add_argument("--tiny", action="store_true", help="batching rows: tiny sizes")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {args.threads} threads, median of {args.repeats}")
    rows = []
    for name in args.rows:
        rows.append(measure(ROWS[name], args))
        print(rows[-1].report(), flush=True)
    if args.json:
        payload = {"threads": args.threads, "repeats": args.repeats}
        payload["rows"] = [row.as_json() for row in rows]
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    missed = [f"{row.name}: {r.name}" for row in rows for r in row.ratios if not r.met]
    if missed:
        print("missed targets:\n  " + "\n  ".join(missed))
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
