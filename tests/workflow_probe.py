"""What Snakemake itself reads from the workflow, printed as one line of JSON for the
tests: every rule as declared (``rules``: its outputs with their report flags, threads,
resources, script, conda environment, input names) or every job of a configuration's
DAG (``jobs``: its wildcards, inputs by name, outputs and params).

    python tests/workflow_probe.py rules [--configfile FILE ...]
    python tests/workflow_probe.py jobs [--configfile FILE ...] [--target FILE ...]

Run it in a sandbox of the workflow (conftest.make_sandbox): Snakemake keeps its
metadata in the working directory.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from snakemake.api import SnakemakeApi
from snakemake.io import strip_wildcard_constraints
from snakemake.settings.types import (
    ConfigSettings,
    DAGSettings,
    OutputSettings,
    ResourceSettings,
)


def plain(value):
    """``value`` as JSON holds it (tuples as lists, anything else by its repr)."""
    return json.loads(json.dumps(value, default=repr))


def named(files) -> dict[str, list[str]]:
    """A Snakemake name list's named parts: name -> its files."""
    return {
        name: [str(f) for f in files[name]]
        if isinstance(files[name], list)
        else [str(files[name])]
        for name in files.keys()
    }


def report_flag(path) -> list[str] | None:
    """[caption name, category] of an output shown in the report (else None)."""
    shown = getattr(path, "flags", {}).get("report")
    if shown is None:
        return None
    caption = Path(str(shown.caption.get_path_or_uri(secret_free=True))).stem
    return [caption, shown.category]


def rule_entry(workflow, rule) -> dict:
    names = {
        index: name
        for name, (start, end) in rule.output._names.items()
        for index in range(start, start + 1 if end is None else end)
    }
    cores = rule.resources["_cores"]
    cores = getattr(cores, "value", cores)  # a Resource, or its plain value
    return {
        "threads": cores if isinstance(cores, int) else None,
        "resources": sorted(name for name in rule.resources if not name.startswith("_")),
        "script": rule.ruleinfo.script
        and str(Path(str(rule.snakefile)).resolve().parent / rule.ruleinfo.script),
        "local": rule.name in workflow._localrules,
        "runs": not rule.norun,
        "conda": rule.conda_env
        and str((Path(str(rule.snakefile)).parent / rule.conda_env).resolve()),
        "inputs": sorted(rule.input._names),
        "outputs": [
            [names.get(index), strip_wildcard_constraints(str(path)), report_flag(path)]
            for index, path in enumerate(rule.output)
        ],
    }


def job_entry(job) -> dict:
    inputs = named(job.input)
    in_names = {str(f) for files in inputs.values() for f in files}
    return {
        "rule": job.rule.name,
        "wildcards": dict(job.wildcards_dict),
        "input": inputs,
        "unnamed_input": [str(f) for f in job.input if str(f) not in in_names],
        "output": [str(f) for f in job.output],
        "params": {name: plain(job.params[name]) for name in job.params.keys()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["rules", "jobs"])
    parser.add_argument("--configfile", nargs="*", default=[])
    parser.add_argument("--target", nargs="*", default=[])
    args = parser.parse_args()
    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        workflow_api = api.workflow(
            resource_settings=ResourceSettings(cores=2),
            config_settings=ConfigSettings(configfiles=[Path(f) for f in args.configfile]),
            snakefile=Path("Snakefile"),
            workdir=Path("."),
        )
        workflow = workflow_api._workflow
        if args.what == "rules":
            print(json.dumps({rule.name: rule_entry(workflow, rule) for rule in workflow.rules}))
            return
        dag_settings = DAGSettings(forceall=True, targets=set(args.target))
        workflow.dag_settings = workflow_api.dag(dag_settings).dag_settings
        workflow._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True)
        workflow._build_dag()
        print(json.dumps([job_entry(job) for job in workflow.dag.jobs]))


if __name__ == "__main__":
    main()
