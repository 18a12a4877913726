"""The library's layers, read from its imports: each subpackage imports only from those
before it (infra <- data <- models <- neurons <- reporting <- paper_a / paper_b <- plan),
the two papers never import each other, nothing in the library imports the workflow's
plan, nothing imports Snakemake, and what the Snakefile reads loads no torch."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

LIBRARY = ROOT / "workflow" / "skillneurons"
#: Subpackage -> its layer; a module may import from its own subpackage and lower layers.
LAYERS = {"infra": 0, "data": 1, "models": 2, "neurons": 3, "reporting": 4}
PAPERS = ("paper_a", "paper_b")
#: The workflow's plan (what the rule files read) sits above both papers.
PLAN = "plan"


def library_imports(path: Path) -> set[str]:
    """The ``skillneurons`` modules (and names) ``path`` imports, anywhere in the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def subpackage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[0] == "skillneurons" else None


def layer(package: str) -> int:
    if package == PLAN:
        return len(LAYERS) + 1
    return LAYERS.get(package, len(LAYERS))  # the papers sit above the other layers


MODULES = sorted(path for path in LIBRARY.rglob("*.py") if path.parent != LIBRARY)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(LIBRARY)))
def test_a_module_imports_only_from_its_own_and_lower_layers(path):
    own = path.relative_to(LIBRARY).parts[0]
    for module in library_imports(path):
        assert not module.startswith("snakemake"), f"{path.name} imports {module}"
        other = subpackage(module)
        if other is None or other == own:
            continue
        if own in PAPERS:
            assert other not in PAPERS, f"{own}/{path.name} imports the other paper: {module}"
        assert layer(other) < layer(own), (
            f"{own}/{path.name} imports {module}: {other} is not below {own} "
            f"(layers: {', '.join(LAYERS)}, then {' / '.join(PAPERS)})"
        )


def test_the_layer_check_sees_every_subpackage():
    packages = {path.relative_to(LIBRARY).parts[0] for path in MODULES}
    assert packages == set(LAYERS) | set(PAPERS) | {PLAN}


def test_nothing_in_the_library_imports_the_plan():
    for path in LIBRARY.rglob("*.py"):
        if path.relative_to(LIBRARY).parts[0] != PLAN:
            assert not any(m.startswith(f"skillneurons.{PLAN}") for m in library_imports(path)), (
                f"{path.relative_to(LIBRARY)} imports the workflow's plan; only rule files do"
            )


def snakefile_modules() -> list[str]:
    """The library modules the Snakefile and the rule files import when a DAG is built."""
    sources = [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").rglob("*.smk"))]
    pattern = re.compile(r"^\s*from (skillneurons[\w.]*) import", re.M)
    return sorted({m for path in sources for m in pattern.findall(path.read_text())})


def test_what_the_snakefile_reads_loads_no_torch():
    modules = snakefile_modules()
    assert "skillneurons.config" in modules and len(modules) > 3
    code = "; ".join(f"import {module}" for module in modules)
    code += "; import sys; print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))"
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert output.strip() == "[]"
