"""Hash every output of a run, and compare two runs: a check that a restructure changed
no behaviour.

    python tests/output_hashes.py run DIR HASHES.json [--configfile configs/smoke.yaml]
    python tests/output_hashes.py record DIR HASHES.json
    python tests/output_hashes.py compare BEFORE.json AFTER.json

``run`` makes a sandbox of the workflow in DIR (as the tests do), runs the config there
with two cores and records the hashes; ``record`` hashes a finished run folder. Every
file under ``results/`` and ``data/splits/`` is hashed (SHA-256). Files whose content
is a measurement of time (:data:`TIMING_FILES`: the pruning speed benchmark and the
tables built from it, the HTML report) differ between any two runs; ``compare`` lists
them apart and does not count them as differences. Exit status 1 when any other file
differs, is missing or is new.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

HASHED_FOLDERS = ("results", "data/splits")
#: Outputs whose content is a timing measurement (regular expressions on the path).
TIMING_FILES = (
    r"^results/[^/]+/pruning/speed\.json$",
    r"^results/[^/]+/tables/A-T4\.(csv|md)$",
    r"^results/report\.html$",
)


def file_hashes(run: Path) -> dict[str, str]:
    """Path (relative to ``run``) -> SHA-256 of every file under :data:`HASHED_FOLDERS`."""
    hashes = {}
    for folder in HASHED_FOLDERS:
        for path in sorted((run / folder).rglob("*")):
            if path.is_file():
                hashes[path.relative_to(run).as_posix()] = hashlib.sha256(
                    path.read_bytes()
                ).hexdigest()
    return hashes


def is_timing(path: str) -> bool:
    return any(re.match(pattern, path) for pattern in TIMING_FILES)


def compare(before: dict[str, str], after: dict[str, str]) -> dict[str, list[str]]:
    """The paths that differ, are missing or are new, and the timing files that differ."""
    shared = sorted(set(before) & set(after))
    changed = [path for path in shared if before[path] != after[path]]
    return {
        "changed": [path for path in changed if not is_timing(path)],
        "timing_changed": [path for path in changed if is_timing(path)],
        "missing": sorted(set(before) - set(after)),
        "new": sorted(set(after) - set(before)),
    }


def _run(folder: Path, configfile: str) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from conftest import make_sandbox, run_snakemake

    make_sandbox(folder)
    run_snakemake(folder, "--configfile", configfile, "--cores", "2")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a config in a fresh sandbox, then record")
    run.add_argument("folder", type=Path)
    run.add_argument("hashes", type=Path)
    run.add_argument("--configfile", default="configs/smoke.yaml")
    record = commands.add_parser("record", help="hash a finished run folder")
    record.add_argument("folder", type=Path)
    record.add_argument("hashes", type=Path)
    check = commands.add_parser("compare", help="compare two hash files")
    check.add_argument("before", type=Path)
    check.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command in ("run", "record"):
        if args.command == "run":
            _run(args.folder, args.configfile)
        hashes = file_hashes(args.folder)
        args.hashes.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
        print(f"{len(hashes)} files hashed into {args.hashes}")
        return 0
    result = compare(json.loads(args.before.read_text()), json.loads(args.after.read_text()))
    total = len(json.loads(args.before.read_text()))
    for kind, paths in result.items():
        print(f"{kind}: {len(paths)}")
        for path in paths:
            print(f"  {path}")
    different = result["changed"] or result["missing"] or result["new"]
    print(f"{'DIFFERENT' if different else 'SAME'}: {total} files before")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
