"""Every name a rule script, a benchmark or a library module imports from the library
exists where it is imported from. A moved function otherwise surfaces only when a
pipeline job runs the script (the scripts run under Snakemake, never imported by a
unit test)."""

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

from conftest import ROOT

SOURCES = sorted(
    [
        *(ROOT / "workflow" / "scripts").rglob("*.py"),
        *(ROOT / "workflow" / "skillneurons").rglob("*.py"),
        *(ROOT / "benchmarks").rglob("*.py"),
    ]
)


def imported_names(path: Path) -> list[tuple[str, str]]:
    """``(module, name)`` for every ``from skillneurons... import name`` in ``path``."""
    return [
        (node.module, alias.name)
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("skillneurons")
        for alias in node.names
    ]


def test_a_missing_name_is_found(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("from skillneurons.reporting.findings import no_such_name\n")
    [(module, name)] = imported_names(script)
    assert not hasattr(importlib.import_module(module), name)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_imported_name_exists(path):
    for module, name in imported_names(path):
        imported = importlib.import_module(module)
        assert hasattr(imported, name) or importlib.util.find_spec(f"{module}.{name}"), (
            f"{path.relative_to(ROOT)}: {module} has no {name}"
        )
