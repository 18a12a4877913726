"""The Snakemake report of the complete smoke run as a reader's browser shows it
its first page, rendered by headless Chromium, lists every claim of
the findings tables with its verdict."""

import html
import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from test_explorer import CHROMIUM, headless

from conftest import run_snakemake
from skillneurons.reporting.findings import VERDICTS
from skillneurons.reporting.style import VERDICT_COLORS
from smoke_runs import MODEL, SMOKE

#: The findings tables the verdict summary reads (rules findings and findings_b;
#: findings_tables in workflow/rules/common.smk): paper A's, and paper B's with the A-vs-B
#: claims.
FINDINGS = ("tables/findings.csv", "tables/B-findings.csv")
#: One row of the verdict summary's tables (skillneurons.reporting.verdicts._row) as
#: Chromium serialises it: the claim (escaped text), the "from" cell (a link), the
#: verdict badge.
ROW = re.compile(
    r'<tr><td>([^<]*)</td><td>(?:(?!</td>).)*</td><td><span class="verdict"[^>]*>([^<]*)</span>',
    re.S,
)


def verdict_pixels(png, colors: dict[str, str], left: int = 290, right: int = 1250) -> dict:
    """Per verdict, the pixels of its badge colour (``colors``: verdict -> hex) in the
    screenshot ``png`` between x = ``left`` and ``right`` (the report's main column: the
    navigation is to its left, the rule graph's coloured nodes to its right)."""
    image = plt.imread(png)[:, left:right, :3]
    counts = {}
    for verdict, color in colors.items():
        rgb = np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)]) / 255
        counts[verdict] = int((np.abs(image - rgb).max(axis=2) < 2.5 / 255).sum())
    return counts


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (Debian package chromium)")
def test_report_first_page_lists_every_claim_in_headless_chromium(run_copy, tmp_path):
    run_snakemake(run_copy, *SMOKE, "--report", "report.html")
    url = (run_copy / "report.html").as_uri()
    # the report is a React app: the virtual time lets it render before the DOM is
    # dumped; the description's HTML also sits in a script, which is not the page
    result = headless("--virtual-time-budget=20000", "--dump-dom", url, timeout=300)
    dom = re.sub(r"<script\b.*?</script>", "", result.stdout, flags=re.S)
    assert "Verdicts: " + MODEL in dom, result.stderr[-2000:]
    # the landing page opens on the verdicts: their heading comes before the explorer's
    # and the description's other sections
    first = dom.index("Verdicts: " + MODEL)
    assert first < dom.index("Neuron explorer") < dom.index("Configuration of this run")
    shown = ROW.findall(dom)
    expected = []
    for table in FINDINGS:
        findings = pd.read_csv(run_copy / "results" / MODEL / table, keep_default_na=False)
        expected += [
            (html.escape(claim, quote=False), verdict)
            for claim, verdict in zip(findings["claim"], findings["verdict"], strict=True)
        ]
    assert len(expected) > 20
    assert sorted(shown) == sorted(expected)  # every claim once, with its own verdict
    assert {verdict for _, verdict in shown} <= set(VERDICTS)  # no verdict missing
    # and a reader sees them: the first screen shows the verdict badges (Snakemake's
    # landing page centred a long description and cut its top off: LANDING_STYLE)
    shot = tmp_path / "report.png"
    headless("--virtual-time-budget=20000", "--window-size=1500,1400", f"--screenshot={shot}",
             url, timeout=300)  # fmt: skip
    counts = verdict_pixels(shot, VERDICT_COLORS)
    for verdict in {verdict for _, verdict in expected}:
        assert counts[verdict] > 200, (verdict, counts)
