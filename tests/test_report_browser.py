"""The Snakemake report of the complete smoke run as a reader's browser shows it
its first page, rendered by headless Chromium, lists every claim of
the findings tables with its verdict."""

import html
import json
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
#: Chromium serialises it: the claim (escaped text; a primary claim's in bold, marked),
#: the "from" cell (a link), the verdict badge.
ROW = re.compile(
    r"<tr><td>(?:<strong>)?([^<]*)(?:</strong> \(primary\))?</td><td>(?:(?!</td>).)*</td>"
    r'<td><span class="verdict"[^>]*>([^<]*)</span>',
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


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (Debian package chromium)")
def test_the_explorer_of_a_run_shows_the_texts_that_drive_a_neuron(complete_run):
    """On the smoke run's outputs: a click on the first neuron of syn_sst2's table shows
    the test texts of its trial-0 dump with the highest activation at its best prompt
    token, highest first, and the lowest, lowest first, each with its label."""
    from skillneurons.data.splits import read_split
    from skillneurons.neurons.activation_dump import iter_activations

    folder = complete_run / "results" / MODEL / "explorer"
    data_file = next((folder / "data").glob("task-*.js"))
    prefix, _, payload = data_file.read_text().partition(" = ")
    task = prefix.split('"')[1]
    data = json.loads(payload.rstrip(";\n"))
    row = data["rows"][0]
    values, positions = [], []
    for batch in iter_activations(
        str(complete_run / "results" / MODEL / "activations" / task / "trial0" / "test.parquet")
    ):
        values.append(batch.activations[:, row["layer"], row["token"], row["neuron"]])
        positions.append(batch.idx)
    values, idx = np.concatenate(values).astype(np.float32), np.concatenate(positions)
    split = read_split(str(complete_run / "data" / "splits" / task / "test.parquet"))[0]
    text_of = dict(zip(split["idx"], split["text_a"], strict=True))
    highest = [text_of[idx[i]] for i in np.lexsort((np.arange(len(values)), -values))[:5]]
    lowest = [text_of[idx[i]] for i in np.lexsort((np.arange(len(values)), values))[:5]]
    url = (folder / "index.html").as_uri() + f"#task={task}&click=0"
    dom = headless("--virtual-time-budget=5000", "--dump-dom", url).stdout
    shown = {
        end: re.findall(
            r'<span class="text">([^<]*)</span>',
            dom.split(f'<ol class="texts-{end}">', 1)[1].split("</ol>", 1)[0],
        )
        for end in ("high", "low")
    }
    assert shown == {
        "high": [html.escape(t, quote=False) for t in highest],
        "low": [html.escape(t, quote=False) for t in lowest],
    }
    size = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    assert size < 20e6
