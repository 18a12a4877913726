"""Results pages: one Markdown page per model, ``docs/results/{model}.md``, generated
from a run's tables (``results/{model}/tables/*.csv``) so that no number in the docs
is copied by hand.

A page has one section per paper: paper A (``A-*`` tables, ``findings``,
``tuning_methods``), paper B (``B-*``) and paper A vs paper B (``AB-*``). Each
section starts with its findings tables (a stem containing ``findings``: every claim,
its effect, interval and verdict; before each, its claims in brief, the primary family
first, each with a sentence of its design report), then the other tables in the order
given. Every
column a table has is rendered (floats as :func:`skillneurons.reporting.tables.markdown`
writes them), so a column the verdict engine adds appears without a change here. A
table's heading is the title line of the Markdown table written beside its CSV
(:func:`skillneurons.reporting.tables.write_frame`), or its stem when there is none.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from skillneurons.infra.io import atomic_path
from skillneurons.reporting.findings import INTERSECTION_UNION, MOST_RUNS
from skillneurons.reporting.tables import markdown

#: Page sections in page order: (heading, stem prefix); a stem matching none is paper A's.
SECTIONS = (
    ("Paper A vs paper B", "AB-"),
    ("Paper B: task-specific neurons", "B-"),
    ("Paper A: skill neurons", ""),
)
PAGE_ORDER = ("Paper A: skill neurons", "Paper B: task-specific neurons", "Paper A vs paper B")


def section_of(stem: str) -> str:
    """The page section of a table, from its file stem (``AB-T1``, ``B-T1``, ``A-T1``)."""
    return next(heading for heading, prefix in SECTIONS if stem.startswith(prefix))


def model_tables(targets: Iterable[str], model: str) -> list[str]:
    """The CSV tables of ``model`` among ``targets`` (paths of a run), in their order."""
    prefix = f"results/{model}/tables/"
    return [
        path
        for path in dict.fromkeys(targets)
        if path.startswith(prefix) and path.endswith(".csv")
    ]


def table_title(csv_path: Path) -> str:
    """The title line of the Markdown table beside ``csv_path`` (``# <title>``), or the
    table's stem."""
    md_path = csv_path.with_suffix(".md")
    if md_path.exists():
        first = md_path.read_text().split("\n", 1)[0]
        if first.startswith("# "):
            return first[2:].strip()
    return csv_path.stem


def table_section(csv_path: Path) -> str:
    """One table of a page: a heading, where it comes from, and every column it has;
    a findings table is preceded by its claims in brief (:func:`claims_section`)."""
    frame = pd.read_csv(csv_path, keep_default_na=False, na_values=[""])
    table = f"### {table_title(csv_path)}\n\n`tables/{csv_path.name}`\n\n{markdown(frame)}"
    return f"{claims_section(frame)}\n{table}" if "family" in frame else table


def _number(value: float) -> str:
    return f"{value:+.4f}" if pd.notna(value) else "-"


def _sizes(row: pd.Series, runs: str, samples: str) -> str:
    """The runs (of the row's unit) or test samples per task in columns ``runs`` and
    ``samples``, joined by "or"; empty where neither is projected."""
    unit = row.get("run_unit") or "runs"
    sizes = [f"{int(row[runs])} {unit}"] if pd.notna(row.get(runs)) else []
    if pd.notna(row.get(samples)):
        sizes.append(f"{int(row[samples])} test samples per task")
    return " or ".join(sizes)


def design_sentence(row: pd.Series) -> str:
    """What decides (or would decide) a claim, from its design report: where its
    variance comes from, and for an inconclusive claim the runs (of its unit: trials,
    training runs, draws) or test samples per task at which it would be decided with
    80% probability were its effect twice its margin (an equivalence claim: were it 0),
    then those at which an interval centred on its estimate would decide it, or that
    none within reach does (an estimate on a verdict's bound; an every-X claim, whose
    estimate is its weakest part's, has no such sizes); where the run already had the
    planned runs, it says so: its effect lies where only a narrower interval decides.
    For a claim not decidable here or not measured, why (its note's first clause)."""
    shares = [row.get(f"share_{n}") for n in ("runs", "draws", "samples")]
    where = ""
    if all(pd.notna(s) for s in shares):
        parts = [f"{100 * s:.0f}% {n}" for s, n in zip(shares, ("runs", "draws", "samples"),
                                                        strict=True) if s >= 0.005]  # fmt: skip
        where = f"Variance: {', '.join(parts)}. "
    if str(row["verdict"]).startswith("not"):  # not decidable here, not measured
        return f"{where}{str(row['note']).split(';')[0]}."
    if row["verdict"] != "inconclusive":
        power = row.get("power")
        return where + (f"Power at twice the margin: {power:.2f}." if pd.notna(power) else "")
    planned = _sizes(row, "runs_needed", "samples_needed")
    if not planned:
        return where + "No size projected (runs not replicated, or out of reach)."
    sentence = f"{where}Decided at 80% power with {planned}."
    unit = row.get("run_unit") or "runs"
    runs, needed = row.get("runs"), row.get("runs_needed")
    if pd.notna(runs) and pd.notna(needed) and runs >= needed:
        sentence += (
            f" This run had {int(runs)} {unit}: its estimate lies where only a narrower"
            " interval decides."
        )
    at_estimate = _sizes(row, "runs_at_estimate", "samples_at_estimate")
    if at_estimate:
        return f"{sentence} At its estimate: about {at_estimate}."
    if pd.notna(row.get("estimate")) and INTERSECTION_UNION not in str(row.get("note")):
        return (
            f"{sentence} At its estimate: no size up to {MOST_RUNS:,} {unit} (it lies too"
            " near a bound between two verdicts)."
        )
    return sentence


def claims_section(frame: pd.DataFrame) -> str:
    """A findings table's claims in brief, primary family first: verdict, estimate,
    interval, margin and :func:`design_sentence`."""
    lines = []
    for family, rows in frame.groupby("family", sort=False):
        lines.append(f"**{str(family).capitalize()} claims** (Holm within the family)\n")
        lines.append("| claim | key | verdict | estimate | interval | margin | design |")
        lines.append("|---|---|---|---|---|---|---|")
        for _, row in rows.iterrows():
            interval = f"[{_number(row['ci_low'])}, {_number(row['ci_high'])}]"
            lines.append(
                f"| {row['claim']} | `{row['key']}` | {row['verdict']} | "
                f"{_number(row['estimate'])} | {interval} | {row['margin']:.3g} | "
                f"{design_sentence(row)} |"
            )
        lines.append("")
    return "\n".join(lines)


def results_page(model: str, tables: Sequence[str | os.PathLike]) -> str:
    """The results page of ``model``: every table of ``tables`` (CSV paths of one run),
    grouped by paper, findings first in each group."""
    grouped: dict[str, list[Path]] = {heading: [] for heading in PAGE_ORDER}
    for path in map(Path, tables):
        grouped[section_of(path.stem)].append(path)
    parts = [
        f"# Results: {model}\n\n"
        "Generated by rule `results_pages` from this run's tables "
        f"(`results/{model}/tables/`); do not edit by hand. Verdicts are decided as "
        "[paper A](../paper-a.md) and [paper B](../paper-b.md) describe. The design "
        "column says where a claim's variance comes from and, for an undecided claim, the "
        "runs or test samples per task that would decide it with 80% power were its effect "
        "twice its margin (an equivalence claim: were it 0), then those at which an "
        "interval centred on its estimate would decide it (a projection, not a power).\n"
    ]
    for heading in PAGE_ORDER:
        paths = grouped[heading]
        if not paths:
            continue
        ordered = sorted(paths, key=lambda path: "findings" not in path.stem)  # stable
        parts.append(f"## {heading}\n")
        parts.extend(table_section(path) for path in ordered)
    return "\n".join(parts)


def write_results_page(path: str | os.PathLike, model: str, tables: Sequence[str]) -> None:
    """Write :func:`results_page` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(results_page(model, tables))
