"""The verdict summary: the first page of the Snakemake report.

One HTML fragment per model, ``results/{model}/verdicts.html``, that
``workflow/report/workflow.rst`` inserts at the top of the report's landing page (a
``raw`` directive with ``:file:``): one table per paper (A, B) and one for the A-vs-B
claims, each row a claim of the findings tables (:mod:`skillneurons.reporting.findings`;
the primary family first, marked) with its verdict (coloured as
:data:`skillneurons.reporting.style.VERDICT_COLORS`),
estimate, interval and the paper's value, and a link to the figure or table the claim
is about. A link is the call Snakemake's report makes for its own result links
(``javascript:app.showResultInfo('<path>')``), so a click opens the result in the
report; the row's ``paper`` field names the figure or table (``§4.2, A-F4/A-F11``,
``A.4, B-F5c``, ``§4.1, B-T1 (generation)``) and :func:`claim_link` finds it among the
results the report shows.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from urllib.parse import quote

import numpy as np
import pandas as pd

from skillneurons.infra.io import atomic_path
from skillneurons.reporting.style import VERDICT_COLORS

#: The summary's tables in page order.
SECTIONS = ("Paper A: skill neurons", "Paper B: task-specific neurons", "Paper A vs paper B")
#: A figure or table ID in a claim's ``paper`` field or a registry ID (the panel letter
#: of ``B-F5c`` is not part of it); a generation variant follows as "(generation)" or
#: "(generation, ...)".
ID_PATTERN = re.compile(r"\b(AB|A|B)-([A-Z]+\d+(?:\.\d+)?|ablation)(\s*\(generation\b)?")
#: Verdict text colours on their background (black on the light ones).
_TEXT = {
    verdict: "#ffffff"
    for verdict in (
        "holds",
        "holds, below margin",
        "fails",
        "fails, within margin",
        "not comparable",
    )
}
#: Snakemake's report (9.x) shows the description on its landing page in a flex box that
#: centres its content both ways (``items-center justify-center overflow-auto``), in a
#: ``prose max-w-lg`` column (32rem): a description taller or wider than the window is
#: centred and its top and left cut off where no scrolling reaches, so a reader saw the
#: middle of the page (the configuration), never the verdicts at its top (headless
#: Chromium's screenshot, tests/test_report_browser.py). These rules, scoped by ``:has``
#: to the page that holds the summary, put it at the top left and give the summary's
#: tables their width.
LANDING_STYLE = (
    "<style>div.h-screen.overflow-auto:has(.verdict-summary)"
    "{align-items:flex-start;justify-content:flex-start}"
    ".prose:has(.verdict-summary){max-width:none}</style>"
)


def paper_ids(text: str) -> list[tuple[str, bool]]:
    """The figure and table IDs ``text`` names, in order, each with whether it is the
    generation variant: ``"A.4, B-F5c"`` -> ``[("B-F5", False)]``."""
    return [(f"{m[1]}-{m[2]}", bool(m[3])) for m in ID_PATTERN.finditer(text)]


def link_index(reported: Sequence[tuple[str, str]]) -> dict[tuple[str, bool], str]:
    """(ID, generation) -> the first report file of each, from ``reported``: (registry
    ID such as ``"A-F3, A-F9"`` or ``"B-T1 (generation)"``, path of a file the report
    shows) pairs in registry order. The file's name counts as an ID too (the registry
    names §4.4's table ``A-S4.4``)."""
    index: dict[tuple[str, bool], str] = {}
    for ids, path in reported:
        for key in paper_ids(f"{ids} {PurePosixPath(path).stem}"):
            index.setdefault(key, path)
    return index


def claim_link(paper: str, index: Mapping[tuple[str, bool], str]) -> str | None:
    """The report file of the first ID of ``paper`` (a claim's ``paper`` field) that the
    report shows (a generation claim's: the generation variant's); None when none is."""
    return next((index[key] for key in paper_ids(paper) if key in index), None)


def result_href(path: str) -> str:
    """The report's link to the result at ``path``: the call Snakemake's own result
    links make (``snakemake.report``'s ``rst_links``, the path URL-quoted as Jinja's
    ``urlencode`` does)."""
    return f"javascript:app.showResultInfo('{quote(path, safe='/')}')"


def split_findings(paper_a: pd.DataFrame | None, paper_b: pd.DataFrame | None):
    """The summary's tables (:data:`SECTIONS` -> rows): paper A's findings, paper B's
    without the A-vs-B claims (their ``paper`` field names an ``AB-`` result), and
    those; a paper that did not run gives an empty table."""
    empty = pd.DataFrame(columns=["claim", "paper", "verdict"])
    a = empty if paper_a is None else paper_a
    b = empty if paper_b is None else paper_b
    versus = b["paper"].astype(str).str.contains(r"\bAB-", regex=True)
    return dict(zip(SECTIONS, (a, b[~versus], b[versus]), strict=True))


def _number(value: float) -> str:
    return "" if value is None or not np.isfinite(value) else f"{value:.3g}"


def _interval(low: float, high: float) -> str:
    if not (np.isfinite(low) and np.isfinite(high)):
        return "–"
    return f"[{_number(low)}, {_number(high)}]"


def verdict_badge(verdict: str) -> str:
    """The verdict as a coloured label (:data:`VERDICT_COLORS`)."""
    background = VERDICT_COLORS.get(verdict, VERDICT_COLORS["not measured"])
    color = _TEXT.get(verdict, "#000000")
    return (
        f'<span class="verdict" style="background:{background};color:{color};'
        f'padding:0 0.4em;border-radius:0.25em;white-space:nowrap">{html.escape(verdict)}</span>'
    )


def _row(row: pd.Series, index: Mapping[tuple[str, bool], str]) -> str:
    paper = str(row.get("paper", ""))
    target = claim_link(paper, index)
    where = html.escape(paper)
    if target is not None:
        where = f'<a href="{html.escape(result_href(target))}">{where}</a>'
    claim = html.escape(str(row["claim"]))
    if row.get("family") == "primary":
        claim = f"<strong>{claim}</strong> (primary)"
    cells = [
        claim,
        where,
        verdict_badge(str(row["verdict"])),
        _number(float(row.get("estimate", np.nan))),
        _interval(float(row.get("ci_low", np.nan)), float(row.get("ci_high", np.nan))),
        html.escape("" if pd.isna(row.get("paper_value")) else str(row.get("paper_value"))),
    ]
    return "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"


HEADER = ("claim", "from", "verdict", "estimate", "interval", "paper's value")


def summary_html(
    model: str,
    tables: Mapping[str, pd.DataFrame],
    index: Mapping[tuple[str, bool], str],
) -> str:
    """The verdict summary of ``model``: the landing page's style
    (:data:`LANDING_STYLE`), a heading, the verdict counts, then one table per entry of
    ``tables`` (:func:`split_findings`) with a row per claim; ``index``
    (:func:`link_index`) links each row to its result."""
    every = pd.concat([t["verdict"] for t in tables.values()], ignore_index=True)
    tally = every.value_counts()
    shown = [f"{verdict_badge(v)} {int(tally[v])}" for v in VERDICT_COLORS if v in tally]
    parts = [
        LANDING_STYLE,
        '<div class="verdict-summary" style="width:60rem;max-width:90vw">',
        f"<h2>Verdicts: {html.escape(model)}</h2>",
        f"<p>{len(every)} claims: {', '.join(shown)}</p>",
    ]
    head = "".join(f"<th>{name}</th>" for name in HEADER)
    for section, rows in tables.items():
        parts.append(f"<h3>{html.escape(section)}</h3>")
        if rows.empty:
            parts.append("<p>No claim of this section ran in this configuration.</p>")
            continue
        body = "".join(_row(row, index) for _, row in rows.iterrows())
        parts.append(f'<table class="verdicts"><thead><tr>{head}</tr></thead>'
                     f"<tbody>{body}</tbody></table>")  # fmt: skip
    parts.append("</div>")
    return "\n".join(parts) + "\n"


def read_findings(path: str | os.PathLike | None) -> pd.DataFrame | None:
    """A findings table as written by the findings rules (None: no path)."""
    if path is None:
        return None
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def write_summary(
    path: str | os.PathLike,
    model: str,
    paper_a: str | None,
    paper_b: str | None,
    reported: Sequence[tuple[str, str]],
) -> None:
    """Write the verdict summary of ``model`` from its findings tables (paths, None
    where the paper did not run) to ``path`` atomically; ``reported`` as
    :func:`link_index` takes it."""
    tables = split_findings(read_findings(paper_a), read_findings(paper_b))
    with atomic_path(path) as tmp:
        tmp.write_text(summary_html(model, tables, link_index(reported)))
