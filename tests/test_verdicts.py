"""The report's first page (skillneurons.reporting.verdicts, workflow/report/workflow.rst):
the verdict summary's rows, colours and links on small synthetic findings tables, every
claim's link on the default configuration, and the landing page as Snakemake renders
it (Jinja, then docutils) with the summary first."""

import os
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml
from docutils.core import publish_parts
from jinja2 import Environment
from snakemake.report import Category

from conftest import ROOT
from skillneurons.config import validate_config
from skillneurons.paper_a.findings import perturbation as findings_a
from skillneurons.paper_a.registry import PAPER_A as PAPER_A_REGISTRY
from skillneurons.paper_b import (
    comparison_report,
    continual_report,
    controlled_overlap_report,
    deactivation_report,
    generalization_report,
    neuron_training_report,
    overlap_report,
    similarity_report,
)
from skillneurons.paper_b.registry import PAPER_B as PAPER_B_REGISTRY
from skillneurons.plan import Plan
from skillneurons.reporting.findings import COLUMNS, Claim
from skillneurons.reporting.registry import reported_files
from skillneurons.reporting.style import VERDICT_COLORS
from skillneurons.reporting.verdicts import (
    claim_link,
    link_index,
    paper_ids,
    result_href,
    split_findings,
    summary_html,
    write_summary,
)

#: Paper B's report modules, each with its experiment's claims.
PAPER_B_REPORTS = (
    deactivation_report,
    neuron_training_report,
    comparison_report,
    generalization_report,
    overlap_report,
    controlled_overlap_report,
    similarity_report,
    continual_report,
)
REPORTED = [
    ("A-F4", "results/m/figures/A-F4.png"),
    ("A-F3, A-F9", "results/m/figures/A-F3_F9.png"),
    ("B-T1, B-T6", "results/m/tables/B-T1.csv"),
    ("B-T1 (generation)", "results/m/tables/B-T1_generation.csv"),
    ("B-F5", "results/m/figures/B-F5.png"),
    ("AB-F1", "results/m/figures/AB-F1.png"),
]


def findings(rows) -> pd.DataFrame:
    """A findings table of ``rows``: (claim, paper, verdict, estimate, low, high)."""
    frame = pd.DataFrame(
        [
            {"claim": c, "paper": p, "verdict": v, "estimate": e, "ci_low": lo, "ci_high": hi,
             "paper_value": f"value of {c}"}
            for c, p, v, e, lo, hi in rows
        ]
    )  # fmt: skip
    return frame.reindex(columns=COLUMNS)


PAPER_A = findings(
    [
        ("own order hurts", "§4.2, A-F4/A-F11", "holds", 0.031, 0.012, 0.05),
        ("prompts beat Avg.", "§4.1, A-F3/A-F9", "inconclusive", 0.1, -0.2, 0.4),
    ]
)
PAPER_B = findings(
    [
        ("deactivation hurts", "§4.1, B-T1", "fails", -0.02, -0.03, -0.01),
        ("generation deactivation", "§4.1, B-T1 (generation)", "negligible", 0.0, -0.01, 0.01),
        ("diagonal dominates", "A.4, B-F5c", "not measured", np.nan, np.nan, np.nan),
        ("A over B", "new, AB-F1", "holds", 0.2, 0.1, 0.3),
        ("rank correlation", "new, AB-T1", "inconclusive", 0.05, -0.1, 0.2),
    ]
)


def test_ids_of_a_claims_paper_field():
    assert paper_ids("§4.2, A-F4/A-F11") == [("A-F4", False), ("A-F11", False)]
    assert paper_ids("A.4, B-F5c") == [("B-F5", False)]
    assert paper_ids("§4.1, B-T1 (generation)") == [("B-T1", True)]
    assert paper_ids("§4.1, B-T1 (generation; ours: layer-matched random neurons)") == [
        ("B-T1", True)
    ]
    assert paper_ids("§4.1, B-T1 (ours: layer-matched random neurons)") == [("B-T1", False)]
    assert paper_ids("new, AB-T1") == [("AB-T1", False)]
    assert paper_ids("§4.4, A-S4.4") == [("A-S4.4", False)]


def test_a_claim_links_to_its_first_reported_result():
    index = link_index(REPORTED)
    assert claim_link("§4.2, A-F4/A-F11", index) == "results/m/figures/A-F4.png"
    # A-F11 is not reported here: the first reported ID wins
    assert claim_link("§4.2, A-F11/A-F4", index) == "results/m/figures/A-F4.png"
    assert claim_link("§4.1, A-F3/A-F9", index) == "results/m/figures/A-F3_F9.png"
    assert claim_link("A.4, B-F5c", index) == "results/m/figures/B-F5.png"
    assert claim_link("§4.1, B-T1", index) == "results/m/tables/B-T1.csv"
    assert claim_link("§4.1, B-T1 (generation)", index) == "results/m/tables/B-T1_generation.csv"
    assert claim_link("§6, B-T5", index) is None
    assert result_href("results/m/figures/A F4.png") == (
        "javascript:app.showResultInfo('results/m/figures/A%20F4.png')"
    )


def test_the_summary_has_one_table_per_paper_with_coloured_linked_rows():
    tables = split_findings(PAPER_A, PAPER_B)
    assert [len(rows) for rows in tables.values()] == [2, 3, 2]
    page = summary_html("m", tables, link_index(REPORTED))
    sections = re.findall(r"<h3>(.*?)</h3>", page)
    assert sections == ["Paper A: skill neurons", "Paper B: task-specific neurons",
                        "Paper A vs paper B"]  # fmt: skip
    bodies = re.findall(r"<tbody>(.*?)</tbody>", page, re.S)
    rows = [re.findall(r"<tr>(.*?)</tr>", body) for body in bodies]
    assert [len(r) for r in rows] == [2, 3, 2]
    cells = [re.findall(r"<td>(.*?)</td>", row) for row in rows[0]]
    first = cells[0]
    assert first[0] == "own order hurts"
    assert "javascript:app.showResultInfo(&#x27;results/m/figures/A-F4.png&#x27;)" in first[1]
    assert f"background:{VERDICT_COLORS['holds']}" in first[2] and ">holds<" in first[2]
    assert first[3:] == ["0.031", "[0.012, 0.05]", "value of own order hurts"]
    fails, generation, unmeasured = (re.findall(r"<td>(.*?)</td>", r) for r in rows[1])
    assert f"background:{VERDICT_COLORS['fails']}" in fails[2]
    assert "B-T1_generation.csv" in generation[1]
    assert unmeasured[3:5] == ["", "–"] and "<a " in unmeasured[1]  # B-F5 linked
    versus = [re.findall(r"<td>(.*?)</td>", r)[0] for r in rows[2]]
    assert versus == ["A over B", "rank correlation"]
    # AB-T1 is not among REPORTED: its row has no link
    assert "<a " not in re.findall(r"<td>(.*?)</td>", rows[2][1])[1]
    # the tally counts every claim by verdict
    assert "7 claims" in page
    assert re.search(r">holds</span> 2", page) and re.search(r">inconclusive</span> 2", page)


def test_a_paper_that_did_not_run_gives_an_empty_section(tmp_path):
    path = tmp_path / "a.csv"
    PAPER_A.to_csv(path, index=False)
    out = tmp_path / "verdicts.html"
    write_summary(out, "m", str(path), None, REPORTED)
    page = out.read_text()
    assert page.count("<tbody>") == 1
    assert page.count("No claim of this section ran") == 2


@pytest.fixture(scope="module")
def default_plan():
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    return Plan(validate_config(config))


def test_every_claim_links_to_a_result_of_the_registries(default_plan):
    """The constant claims of paper A's findings module and paper B's report modules
    (the per-method and per-baseline ones are made by functions with the same ``paper``
    fields) all find their result among the registries' reported files; the default
    configuration links the ones it makes."""
    methods = {"method": ["adapter", "bitfit"]}
    pairs = reported_files(PAPER_A_REGISTRY, methods) + reported_files(PAPER_B_REGISTRY)
    every = link_index(pairs)
    claims = [
        value
        for module in (findings_a, *PAPER_B_REPORTS)
        for value in vars(module).values()
        if isinstance(value, Claim)
    ]
    assert len(claims) >= 20
    assert [c.paper for c in claims if claim_link(c.paper, every) is None] == []
    model = next(iter(default_plan.models))
    index = link_index(default_plan.reported_results(model))
    assert claim_link(findings_a.TOP.paper, index) == f"results/{model}/figures/A-F4.png"
    assert claim_link(comparison_report.A_OVER_B.paper, index) == (
        f"results/{model}/figures/AB-F1.png"
    )
    # the default runs no generation task: B-T1 (generation) is not made, and its
    # claim does not link to the classification table
    generation = deactivation_report.DEACTIVATION_GENERATION.paper
    assert claim_link(generation, index) is None
    assert claim_link(generation, every) == "tables/B-T1_generation.csv"
    # the default makes both findings tables the verdict summary reads
    assert all(default_plan.makes(ids, model) for ids in ("§4-§5 claims", "paper B claims"))


def landing_page(tmp_path, summaries: dict[str, str]) -> str:
    """workflow/report/workflow.rst rendered as snakemake.report.auto_report renders it
    (Jinja with trim_blocks and lstrip_blocks, then docutils' HTML writer in the run
    folder), with ``summaries`` (model -> HTML) as the Verdicts category's results."""
    records = []
    for model, text in summaries.items():
        path = tmp_path / f"results/{model}/verdicts.html"
        path.parent.mkdir(parents=True)
        path.write_text(text)
        records.append(SimpleNamespace(path=path.relative_to(tmp_path), target=path.name))
    categories = {Category("Verdicts"): {Category(None): records}} if records else {}
    config = validate_config(yaml.safe_load((ROOT / "config.yaml").read_text()))
    links = "\n.. _Workflow: javascript:show_panel('workflow')\n"
    links += ".. _Statistics: javascript:show_panel('statistics')\n"
    source = (ROOT / "workflow/report/workflow.rst").read_text() + links
    rst = (
        Environment(trim_blocks=True, lstrip_blocks=True)
        .from_string(source)
        .render(snakemake=SimpleNamespace(config=config), categories=categories, files=records)
    )
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        settings = {"report_level": 2, "halt_level": 5, "warning_stream": False}
        return publish_parts(rst, writer="html", settings_overrides=settings)["html_body"]
    finally:
        os.chdir(here)


def test_the_report_opens_on_the_verdicts(tmp_path):
    summary = summary_html("m", split_findings(PAPER_A, PAPER_B), link_index(REPORTED))
    page = landing_page(
        tmp_path, {"m": summary, "n": summary.replace("Verdicts: m", "Verdicts: n")}
    )
    assert "system-message" not in page  # no docutils warning or error
    headings = re.findall(r"<h[12][^>]*>(.*?)</h[12]>", page)
    assert headings[:4] == [
        "Skill neurons: neuron-level analysis of Transformer skills",
        "Verdicts",
        "Verdicts: m",
        "Verdicts: n",
    ]
    assert headings.index("Neuron explorer") < headings.index("About this report")
    assert headings[-1] == "Configuration of this run"
    assert page.index("own order hurts") < page.index("explorer/index.html")
    assert page.count('<table class="verdicts">') == 6


def test_the_report_says_when_no_summary_ran(tmp_path):
    page = landing_page(tmp_path, {})
    assert "system-message" not in page
    assert "holds no verdict summary" in page


def test_primary_claims_are_marked():
    primary = PAPER_A.assign(family=["primary", "exploratory"])
    page = summary_html("m", split_findings(primary, PAPER_B), link_index(REPORTED))
    claims = re.findall(r"<tr><td>(.*?)</td>", page)
    assert claims[0] == "<strong>own order hurts</strong> (primary)"
    assert "(primary)" not in claims[1]


def test_every_verdict_has_its_own_colour():
    from skillneurons.reporting.findings import VERDICTS

    assert set(VERDICT_COLORS) == set(VERDICTS)
    assert len(set(VERDICT_COLORS.values())) == len(VERDICTS)
