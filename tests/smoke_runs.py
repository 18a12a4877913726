"""A completed smoke run shared by the operations tests, and what a dry run would do.

The smoke pipeline (configs/smoke.yaml) runs once per test session; tests that change
a run work on a copy (:func:`copy_run`; mtimes and Snakemake's metadata come along, so
the copy is as complete as the original). :func:`scheduled_jobs` parses the job blocks
of ``snakemake -n`` into :class:`ScheduledJob` records.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conftest import make_sandbox, run_snakemake
from skillneurons.plan.passes import pass_trials

SMOKE = ("--configfile", "configs/smoke.yaml")
MODEL = "minilm-l2"
# The rules whose outputs every neuron analysis starts from.
ANALYSIS_ROOTS = ("rank_neurons", "control_top_neuron")

_completed: dict[str, Path] = {}


def completed_smoke_run(tmp_path_factory) -> Path:
    """The folder of a complete local smoke run (made on first use in the session)."""
    if "local" not in _completed:
        sandbox = make_sandbox(tmp_path_factory.mktemp("smoke_complete"))
        run_snakemake(sandbox, *SMOKE, "--cores", "2")
        _completed["local"] = sandbox
    return _completed["local"]


def copy_run(source: Path, destination: Path) -> Path:
    """A copy of a run folder: links stay links, files keep their mtimes."""
    shutil.copytree(source, destination, symlinks=True)
    return destination


#: The smoke config's rule graph, read once a session (:func:`rule_graph`).
_rule_graph: list[str] = []


def rule_graph(workdir: Path) -> str:
    """Snakemake's rule graph of the smoke config (``--rulegraph``), asked of ``workdir``
    once a session: it follows from the Snakefile and the config alone, so every
    sandbox of the smoke config has the same (about 4 s a dry run of its DAG)."""
    if not _rule_graph:
        _rule_graph.append(run_snakemake(workdir, *SMOKE, "--rulegraph").stdout)
    return _rule_graph[0]


def upstream_rules(workdir: Path, *rules: str) -> set[str]:
    """``rules`` and every rule they depend on, from Snakemake's own rule graph of the
    smoke config (``--rulegraph``: an edge ``a -> b`` feeds rule a's outputs to b)."""
    graph = rule_graph(workdir)
    names = dict(re.findall(r'^\s*(\d+)\[label = "(\w+)"', graph, re.M))
    feeds = re.findall(r"^\s*(\d+) -> (\d+)", graph, re.M)
    wanted = {node for node, name in names.items() if name in rules}
    missing = set(rules) - {names[node] for node in wanted}
    assert not missing, f"rules {sorted(missing)} are not in the smoke DAG"
    while True:
        more = {source for source, target in feeds if target in wanted} - wanted
        if not more:
            return {names[node] for node in wanted}
        wanted |= more


@dataclass(frozen=True)
class ScheduledJob:
    rule: str
    wildcards: tuple[tuple[str, str], ...] = ()
    output: tuple[str, ...] = ()
    reason: str = ""
    #: As the dry run prints them: ``name=value`` pairs, comma-separated.
    resources: str = ""

    @property
    def task(self) -> str | None:
        return dict(self.wildcards).get("task")

    @property
    def trials(self) -> set[int]:
        """The trials the job is of: its trial, its prompt-tuning pass's trials (wildcard
        ``trials``, skillneurons.plan.passes), none for a per-task job."""
        wildcards = dict(self.wildcards)
        if "trials" in wildcards:
            return set(pass_trials(wildcards["trials"]))
        return {int(wildcards["trial"])} if "trial" in wildcards else set()

    def key(self) -> tuple:
        return (self.rule, self.wildcards)


@dataclass
class _Block:
    rule: str
    fields: dict[str, str] = field(default_factory=dict)


JOB_HEADER = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):$")
FIELD = re.compile(r"^    (\w+): (.*)$")


def parse_dry_run(output: str) -> list[ScheduledJob]:
    """The jobs listed by ``snakemake -n`` (one block per job, ``rule X:`` first)."""
    blocks: list[_Block] = []
    for line in output.splitlines():
        header = JOB_HEADER.match(line)
        if header:
            blocks.append(_Block(header.group(1)))
            continue
        match = FIELD.match(line)
        if match and blocks:
            blocks[-1].fields[match.group(1)] = match.group(2)
    jobs = []
    for block in blocks:
        wildcards = tuple(
            tuple(item.split("=", 1))
            for item in block.fields.get("wildcards", "").split(", ")
            if "=" in item
        )
        output_files = tuple(
            name.strip() for name in block.fields.get("output", "").split(",") if name.strip()
        )
        fields = block.fields
        jobs.append(
            ScheduledJob(
                block.rule,
                wildcards,
                output_files,
                fields.get("reason", ""),
                fields.get("resources", ""),
            )
        )
    return jobs


def scheduled_jobs(workdir: Path, *args: str, targets: Sequence[str] = ()) -> list[ScheduledJob]:
    """What ``snakemake -n`` of the smoke config (plus ``args``) would run in ``workdir``.

    Targets go first: after ``--configfile`` or ``--forcerun`` they would be taken as
    more values of the option.
    """
    result = run_snakemake(workdir, "-n", *targets, *SMOKE, *args)
    return parse_dry_run(result.stdout + result.stderr)


#: Directory outputs of the smoke DAG (the prompt-tuning passes' folders); a dry run
#: lists them like files.
DIRECTORY_OUTPUTS = ("/passes/trials",)


def lay_out_outputs(workdir: Path, jobs: Sequence[ScheduledJob]) -> None:
    """Empty stand-ins for ``jobs``' outputs (folders for directory outputs), their
    mtimes one second apart in job order, so that each is newer than its inputs."""
    start = time.time() - 1000
    for order, job in enumerate(jobs):
        for name in job.output:
            path = workdir / name
            if any(marker in name for marker in DIRECTORY_OUTPUTS):
                path.mkdir(parents=True, exist_ok=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch()
            os.utime(path, (start + order, start + order))
