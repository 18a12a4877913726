"""The code map of docs/development.md: every module of the package with the first line
of its docstring, read from the source (nothing is imported), so the map stays what the
package is."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: The markers between which docs/development.md holds the map.
MARKERS = ("<!-- code-map:begin -->\n", "<!-- code-map:end -->")


#: A full stop that ends a sentence: not one of "Eq.", "e.g.", "i.e." or "etc.".
SENTENCE_END = re.compile(r"(?<!Eq)(?<!e\.g)(?<!i\.e)(?<!etc)\.\s+(?=[A-Z])")


def first_line(path: Path) -> str:
    """The first sentence of a module's docstring (its first line, joined with the next
    ones when the sentence wraps), or a dash where it has none (an empty package
    ``__init__``)."""
    docstring = ast.get_docstring(ast.parse(path.read_text()))
    if not docstring:
        return "-"
    paragraph = docstring.split("\n\n", 1)[0].replace("\n", " ")
    sentence = SENTENCE_END.split(paragraph, maxsplit=1)[0].rstrip(".")
    return f"{sentence}."


def modules(package: Path = PACKAGE) -> list[tuple[str, str]]:
    """(module path relative to ``workflow/``, first docstring line) of every module of
    the package, subpackages after their ``__init__``, in path order."""
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent).as_posix()
        found.append((relative, first_line(path)))
    return found


def code_map(package: Path = PACKAGE) -> str:
    """The map as a Markdown table: module, what it is."""
    lines = ["| module (`workflow/...`) | what it is |", "|---|---|"]
    lines += [f"| `{module}` | {what.replace('|', '/')} |" for module, what in modules(package)]
    return "\n".join(lines) + "\n"
