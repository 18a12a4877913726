"""The neuron explorer's page: ``results/{model}/explorer/``, a
self-contained static page that needs no network.

- ``index.html`` with its stylesheet and script inlined (``explorer_assets/``: plain
  DOM and hand-written SVG; no charting library is vendored, as the page draws one
  histogram, a strip and two count tables);
- ``data/overview.js`` and ``data/task-{i}.js``: the data of
  :mod:`skillneurons.reporting.explorer_data` as JSON, each file assigning into
  ``window.EXPLORER``. Script files rather than ``.json`` fetched at run time, because
  browsers refuse ``fetch()`` of ``file://`` URLs and the page is opened from disk.

The page's fragment ``#task=NAME&click=I`` opens a task and clicks its ``I``-th row.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from skillneurons.infra.io import atomic_path
from skillneurons.reporting.explorer_data import TaskFiles, explorer_data

ASSETS = Path(__file__).parent / "explorer_assets"

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Neuron explorer: {model}</title>
<style>
{css}
</style>
</head>
<body>
<h1>Neuron explorer: <span id="model"></span></h1>
<p class="note">Paper A's skill neurons (predictivity, Eqs. 4-6) and paper B's
task-specific neurons (relevance, Eqs. 2-3) of one run, per task. Ranks count from 1.
Built from the run's outputs by rule <code>explorer</code>; no model is loaded.</p>
<div id="errors"></div>
<h2>Top neurons per layer</h2>
<div id="overview" class="layout"></div>
<h2>Neurons of a task</h2>
<div class="controls">
<label>Task <select id="task"></select></label>
<label>Filter <input id="filter" placeholder="L3:12"></label>
<label>Show <select id="top-filter">
<option value="all">all listed</option>
<option value="a">paper A's top set</option>
<option value="b">paper B's top set</option>
<option value="both">both top sets</option>
</select></label>
<span id="row-count"></span>
</div>
<p id="task-note" class="note"></p>
<div class="layout">
<div class="table-box"><table id="neuron-table"></table></div>
<div id="panel"></div>
</div>
<script>window.EXPLORER = {{ overview: null, tasks: {{}} }};</script>
{scripts}
<script>
{js}
</script>
</body>
</html>
"""


def data_script(target: str, payload: object) -> str:
    """A data file's text: ``window.EXPLORER.<target> = <JSON>;``."""
    return f"window.EXPLORER.{target} = {json.dumps(payload, separators=(',', ':'))};\n"


def write_explorer(directory: str | os.PathLike, overview: Mapping, tasks: Mapping) -> int:
    """Write the page and its data files into ``directory`` (atomically, as one
    folder); return the folder's size in bytes."""
    with atomic_path(directory) as tmp:
        data = tmp / "data"
        data.mkdir(parents=True)
        (data / "overview.js").write_text(data_script("overview", overview))
        names = []
        for index, (task, payload) in enumerate(tasks.items()):
            name = f"task-{index}.js"
            (data / name).write_text(data_script(f"tasks[{json.dumps(task)}]", payload))
            names.append(name)
        sources = ["overview.js", *names]
        scripts = "\n".join(f'<script src="data/{name}"></script>' for name in sources)
        page = PAGE.format(
            model=html.escape(str(overview["model"])),
            css=(ASSETS / "explorer.css").read_text(),
            js=(ASSETS / "explorer.js").read_text(),
            scripts=scripts,
        )
        (tmp / "index.html").write_text(page)
        size = sum(path.stat().st_size for path in tmp.rglob("*") if path.is_file())
    return size


def build_explorer(
    directory: str | os.PathLike,
    model: str,
    inputs: Mapping[str, Sequence[str]],
    *,
    tasks: Sequence[str],
    paper_b_tasks: Sequence[str],
    fraction: float,
    scope: str,
) -> int:
    """Rule explorer: the page of ``model`` from the files of ``explorer_inputs`` in
    ``workflow/rules/common.smk`` (``inputs``, per-task lists in the
    order of ``tasks``, task-neuron files in that of ``paper_b_tasks``); ``fraction`` and
    ``scope`` (``paper_b.fraction``, ``paper_b.scope``) size both papers' top sets.
    Returns the folder's size in bytes."""
    neurons = dict(zip(paper_b_tasks, inputs["task_neurons"], strict=True))
    files = {
        task: TaskFiles(
            ranking=ranking,
            test_dump=dump,
            baseline=baseline,
            task_neurons=neurons.get(task),
            perturbation=curves,
            test_split=split,
        )
        for task, ranking, dump, baseline, curves, split in zip(
            tasks,
            inputs["rankings"],
            inputs["test_dumps"],
            inputs["baselines"],
            inputs["perturbation"],
            inputs["test_splits"],
            strict=True,
        )
    }
    overview, data = explorer_data(
        model,
        files,
        fraction=fraction,
        per_layer=scope == "per_layer",
        deactivation=next(iter(inputs["deactivation"]), None),
        words=next(iter(inputs["words"]), None),
    )
    return write_explorer(directory, overview, data)
