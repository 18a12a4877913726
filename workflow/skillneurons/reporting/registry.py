"""Figure registries: every figure and table of a paper, its files and the rule writing them.

Each paper has one registry (:mod:`skillneurons.paper_a.registry`,
:mod:`skillneurons.paper_b.registry`): a tuple of :class:`PaperOutput`, one per paper ID
(``A-F4``, ``A-T1``, ...). It is the single source of

- the targets of ``rule all`` and of each paper's target rule (:func:`targets`),
- the README's figure table (:func:`markdown_table`, checked by a test),
- the report's caption and category of each file it shows (:func:`report_entries`;
  ``reported(path)`` in ``workflow/rules/common.smk`` flags a rule's output with them).

The rule that writes a file declares its path itself, in its ``output:``
(``workflow/rules/``); ``tests/test_registry_rules.py`` checks that every product's
files are exactly its rule's declared outputs (keys, paths, report flags).

Files are paths under ``results/{model}/``; ``{method}`` in a path is expanded with
the configured tuning methods. An output can require features of the configuration
(``requires``): it is a target only when the workflow enables all of them (e.g. a
figure of a three-way task only when one is configured).

Kept free of torch: the Snakefile reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product as cartesian


@dataclass(frozen=True)
class Product:
    """What one rule writes for a paper output: output key -> path under
    ``results/{model}/``, and the keys shown in the report with their caption names
    (``workflow/report/<caption>.rst``)."""

    rule: str
    files: Mapping[str, str]
    report: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PaperOutput:
    """One figure or table of a paper (``id`` as the paper numbers it)."""

    id: str
    what: str
    category: str
    products: tuple[Product, ...]
    requires: tuple[str, ...] = ()


def table_product(rule: str, stem: str, caption: str | None = None, prefix: str = "") -> Product:
    """A rule writing ``tables/<stem>.{csv,md}`` (keys ``<prefix>csv``, ``<prefix>md``);
    the CSV is in the report under ``caption`` (default ``stem``)."""
    files = {f"{prefix}csv": f"tables/{stem}.csv", f"{prefix}md": f"tables/{stem}.md"}
    return Product(rule, files, {f"{prefix}csv": caption or stem})


def figure_product(rule: str, stem: str, caption: str | None = None, prefix: str = "") -> Product:
    """A rule writing ``figures/<stem>.{png,pdf}``; the PNG is in the report."""
    files = {f"{prefix}png": f"figures/{stem}.png", f"{prefix}pdf": f"figures/{stem}.pdf"}
    return Product(rule, files, {f"{prefix}png": caption or stem})


def report_entries(registry: Sequence[PaperOutput]) -> dict[str, tuple[str, str]]:
    """Every file the report shows, as its path under ``results/{model}/``
    (placeholders such as ``{method}`` left in) -> (caption name, category)."""
    entries: dict[str, tuple[str, str]] = {}
    for output in registry:
        for made in output.products:
            for key, caption in made.report.items():
                entries[made.files[key]] = (caption, output.category)
    return entries


def enabled(registry: Sequence[PaperOutput], features: Iterable[str]) -> list[PaperOutput]:
    """The outputs whose every required feature is in ``features``."""
    available = set(features)
    return [output for output in registry if set(output.requires) <= available]


def targets(
    registry: Sequence[PaperOutput],
    features: Iterable[str],
    models: Sequence[str],
    values: Mapping[str, Sequence[str]] | None = None,
) -> list[str]:
    """Every file of the enabled outputs for every model, placeholders expanded.

    ``values`` maps a placeholder of the paths (``method``) to its configured values;
    a path with a placeholder of no value is left out (e.g. no tuning method).
    """
    files = [
        f"results/{model}/{filled}"
        for output in enabled(registry, features)
        for made in output.products
        for path in made.files.values()
        for filled in expanded(path, values or {})
        for model in models
    ]
    return list(dict.fromkeys(files))


def expanded(path: str, values: Mapping[str, Sequence[str]]) -> list[str]:
    """``path`` with each placeholder of ``values`` it holds filled with every value (a
    placeholder of no value: no path)."""
    names = [name for name in values if "{" + name + "}" in path]
    return [
        path.format(**dict(zip(names, combination, strict=True)))
        for combination in cartesian(*(values[name] for name in names))
    ]


def _grouped(paths: Iterable[str]) -> list[str]:
    """``tables/A-T1.csv``, ``tables/A-T1.md`` -> ``tables/A-T1.{csv,md}``."""
    stems: dict[str, list[str]] = {}
    for path in paths:
        stem, _, extension = path.rpartition(".")
        stems.setdefault(stem, []).append(extension)
    return [
        f"`{stem}.{extensions[0]}`"
        if len(extensions) == 1
        else f"`{stem}.{{{','.join(extensions)}}}`"
        for stem, extensions in stems.items()
    ]


def markdown_table(registry: Sequence[PaperOutput], rule_files_of: Mapping[str, str]) -> str:
    """The README's figure table: paper ID, what, outputs, rule (and its rule file).

    ``rule_files_of`` maps a rule name to the ``.smk`` file that defines it."""
    lines = [
        "| paper ID | what | output (`results/{model}/...`) | rule |",
        "|---|---|---|---|",
    ]
    for output in registry:
        files = _grouped(path for made in output.products for path in made.files.values())
        rules = ", ".join(
            dict.fromkeys(
                f"`{made.rule}` ({rule_files_of.get(made.rule, '?')})" for made in output.products
            )
        )
        what = output.what + (
            f" (when the config has: {', '.join(output.requires)})" if output.requires else ""
        )
        lines.append(f"| {output.id} | {what} | {', '.join(files)} | {rules} |")
    return "\n".join(lines) + "\n"


def reported_files(
    registry: Sequence[PaperOutput], values: Mapping[str, Sequence[str]] | None = None
) -> list[tuple[str, str]]:
    """(paper ID, path under ``results/{model}/``) of every file the report shows, in
    registry order, placeholders expanded as :func:`targets` does (the verdict
    summary's links, :func:`skillneurons.reporting.verdicts.link_index`)."""
    return [
        (output.id, filled)
        for output in registry
        for made in output.products
        for key in made.report
        for filled in expanded(made.files[key], values or {})
    ]
