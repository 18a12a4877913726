"""The neuron explorer: its data from small synthetic outputs
(ranks, top sets, histograms, effects), its place in the DAG, and the page in headless
Chromium (skillneurons.reporting.explorer_data, .explorer_page)."""

import json
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from skillneurons.data.splits import write_split
from skillneurons.infra.io import write_arrays, write_frame_parquet
from skillneurons.neurons.activation_dump import ActivationWriter
from skillneurons.neurons.ranking import rank_neurons, ranking_table
from skillneurons.reporting.explorer_data import (
    TaskFiles,
    driving_texts,
    explorer_data,
    label_histogram,
    listed_neurons,
)
from skillneurons.reporting.explorer_page import write_explorer

# Task alpha: paper A's order (rank: cell) 0: (1,0), 1: (1,1), 2: (0,1), 3: (2,3), ...,
# 9: (2,1), 10: (0,2), 11: (2,2); paper B's 0: (0,2), 1: (1,0), 2: (2,1), 3: (2,3), ...
PRED = np.array([[0.50, 0.91, 0.10, 0.20], [0.95, 0.93, 0.40, 0.60], [0.70, 0.15, 0.05, 0.80]])
RELEVANCE = np.array([[0.1, 0.2, 9.0, 0.3], [8.0, 0.4, 0.5, 0.6], [0.7, 7.0, 0.8, 0.9]])
TOKENS = np.ones((3, 4), dtype=np.int64)
TOKENS[1, 0] = 0  # the top neuron's best prompt token
LABELS = np.array([0, 0, 0, 1, 1])


def write_run(folder):
    """Synthetic outputs of a run with tasks alpha (both papers) and beta (paper A only)."""
    activations = np.zeros((5, 3, 2, 4), dtype=np.float32)
    activations[:, 1, 0, 0] = [-1.0, -1.0, -1.0, 2.0, 2.0]  # (1,0) at its best token
    activations[:, 1, 1, 0] = 5.0  # the same neuron at another token
    with ActivationWriter(
        folder / "test.parquet", (3, 2, 4), {"label_names": ["neg", "pos"]}
    ) as w:
        w.write(np.arange(5), LABELS, activations)
    baseline = np.zeros((3, 2, 4), dtype=np.float32)
    baseline[1, 0, 0] = 0.5
    write_arrays(folder / "baseline.safetensors", {"prompt": baseline})
    zeros = np.zeros((3, 4))
    for task, pred in (("alpha", PRED), ("beta", 1.0 - PRED)):
        table = ranking_table({None: pred}, {None: zeros}, {None: TOKENS})
        table.to_parquet(folder / f"{task}_ranking.parquet")
    neurons = rank_neurons(RELEVANCE).rename(columns={"predictivity": "relevance"})
    neurons[["layer", "neuron", "relevance", "rank", "rank_in_layer"]].to_parquet(
        folder / "alpha_neurons.parquet"
    )
    # Own-order curves of two trials: 0, 3, 6 and 12 neurons perturbed.
    curves = pd.DataFrame(
        [
            ("alpha", "alpha", "task", 0, trial, rate, perturbed, accuracy)
            for trial, accuracies in ((0, (0.9, 0.7, 0.5, 0.3)), (1, (0.8, 0.6, 0.4, 0.2)))
            for rate, perturbed, accuracy in zip(
                (0.0, 0.25, 0.5, 1.0), (0, 3, 6, 12), accuracies, strict=True
            )
        ]
        + [("alpha", "random", "random", 0, 0, 0.25, 3, 0.1)],
        columns=[
            "eval_task",
            "order",
            "order_type",
            "repeat",
            "trial",
            "rate",
            "perturbed",
            "accuracy",
        ],
    )
    curves.to_parquet(folder / "alpha_curves.parquet")
    deactivation = pd.DataFrame(
        {
            "condition": ["original", "task", "random", "random", "task"],
            "source": ["", "alpha", "", "", "beta"],
            "draw": [0, 0, 0, 1, 0],
            "eval_task": ["alpha"] * 5,
            "metric": ["accuracy"] * 5,
            "score": [0.9, 0.6, 0.85, 0.87, 0.1],
        }
    )
    write_frame_parquet(
        folder / "deactivation.parquet", deactivation, {"identify_on": "multitask"}
    )
    words = pd.DataFrame(
        [
            ("alpha", 1, 0, measure, direction, rank, f"{measure[0]}{direction[0]}{rank}")
            for measure in ("cosine", "activation")
            for direction in ("top", "bottom")
            for rank in (2, 1)
        ],
        columns=["task", "layer", "neuron", "measure", "direction", "rank", "token"],
    )
    words.to_parquet(folder / "words.parquet")
    split = pd.DataFrame(
        {
            "idx": np.arange(5),
            "text_a": [f"text {i}" for i in range(5)],
            "text_b": [None, None, None, None, "second"],
            "label": LABELS,
        }
    )
    write_split(str(folder / "test_split.parquet"), split, {"label_names": ["neg", "pos"]})
    shared = {
        "test_dump": str(folder / "test.parquet"),
        "baseline": str(folder / "baseline.safetensors"),
        "test_split": str(folder / "test_split.parquet"),
    }
    return {
        "alpha": TaskFiles(
            ranking=str(folder / "alpha_ranking.parquet"),
            task_neurons=str(folder / "alpha_neurons.parquet"),
            perturbation=str(folder / "alpha_curves.parquet"),
            **shared,
        ),
        "beta": TaskFiles(ranking=str(folder / "beta_ranking.parquet"), **shared),
    }


@pytest.fixture
def explored(tmp_path):
    files = write_run(tmp_path)
    return explorer_data(
        "tiny",
        files,
        fraction=0.25,
        per_layer=False,
        deactivation=str(tmp_path / "deactivation.parquet"),
        words=str(tmp_path / "words.parquet"),
        count=3,
    )


def test_listed_neurons_are_either_papers_best_by_their_better_rank():
    a_rank = np.array([[3, 0], [1, 2]])
    b_rank = np.array([[0, 3], [2, 1]])
    assert listed_neurons(a_rank, b_rank, 1).tolist() == [[0, 1], [0, 0]]
    assert listed_neurons(a_rank, None, 2).tolist() == [[0, 1], [1, 0]]


def test_histogram_counts_each_label_and_spans_the_baseline():
    values = np.array([0.0, 0.0, 1.0, 4.0])
    histogram = label_histogram(values, np.array([0, 0, 1, 1]), -4.0, 3, 4)
    assert histogram["low"] == -4.0 and histogram["high"] == 4.0
    assert histogram["counts"] == [[0, 0, 2, 0], [0, 0, 1, 1], [0, 0, 0, 0]]


def test_task_rows_ranks_and_top_sets(explored):
    overview, tasks = explored
    alpha = tasks["alpha"]
    cells = [(row["layer"], row["neuron"]) for row in alpha["rows"]]
    assert cells == [(1, 0), (0, 2), (1, 1), (0, 1), (2, 1)]
    ranks = {(r["layer"], r["neuron"]): (r["a_rank"], r["b_rank"]) for r in alpha["rows"]}
    assert ranks == {
        (1, 0): (0, 1),
        (0, 2): (10, 0),
        (1, 1): (1, 8),
        (0, 1): (2, 10),
        (2, 1): (9, 2),
    }
    a_top = {cell for cell, row in zip(cells, alpha["rows"], strict=True) if row["a_top"]}
    b_top = {cell for cell, row in zip(cells, alpha["rows"], strict=True) if row["b_top"]}
    assert a_top == {(1, 0), (1, 1), (0, 1)} and b_top == {(0, 2), (1, 0), (2, 1)}
    assert alpha["a_top_size"] == 3 and alpha["b_top_size"] == 3
    assert alpha["rows"][0]["a_score"] == 0.95 and alpha["rows"][0]["b_relevance"] == 8.0
    assert overview["layer_counts"] == {
        "a": {"alpha": [1, 2, 0], "beta": [1, 0, 2]},
        "b": {"alpha": [1, 1, 1]},
    }
    # beta (paper A only): 1 - PRED reverses alpha's order; no paper B numbers.
    beta = tasks["beta"]
    assert [(r["layer"], r["neuron"], r["a_rank"]) for r in beta["rows"]] == [
        (2, 2, 0),
        (0, 2, 1),
        (2, 1, 2),
    ]
    assert all(r["b_rank"] is None and r["b_top"] is None for r in beta["rows"])
    assert alpha["rows"][0]["other"] == {"beta": [11, None]}
    assert beta["rows"][0]["other"] == {"alpha": [11, 4]}


def test_histogram_of_the_best_token_against_the_baseline(explored):
    top = explored[1]["alpha"]["rows"][0]
    assert top["token"] == 0 and top["baseline"] == 0.5
    histogram = top["histogram"]
    assert histogram["low"] == -1.0 and histogram["high"] == 2.0
    assert histogram["counts"][0][0] == 3 and sum(histogram["counts"][0]) == 3
    assert histogram["counts"][1][-1] == 2 and sum(histogram["counts"][1]) == 2
    assert explored[1]["alpha"]["label_names"] == ["neg", "pos"]
    assert explored[1]["alpha"]["test_samples"] == 5


def test_effects_and_words(explored):
    alpha = explored[1]["alpha"]
    perturbed = {(r["layer"], r["neuron"]): r["perturbed"] for r in alpha["rows"]}
    # Positions 0-2 fall in the first 3 perturbed (rate 0.25), 9 and 10 only at rate 1.
    assert perturbed[(1, 0)] == pytest.approx([0.25, 0.65])
    assert perturbed[(0, 1)] == pytest.approx([0.25, 0.65])
    assert perturbed[(2, 1)] == pytest.approx([1.0, 0.25])
    assert alpha["unperturbed"] == pytest.approx(0.85)
    assert alpha["deactivation"] == pytest.approx(
        {"metric": "accuracy", "original": 0.9, "task": 0.6, "random": 0.86}
    )
    assert explored[0]["identify_on"] == "multitask"
    assert alpha["words"]["layer"] == 1 and alpha["words"]["neuron"] == 0
    assert alpha["words"]["cosine"] == {"top": ["ct1", "ct2"], "bottom": ["cb1", "cb2"]}
    beta = explored[1]["beta"]  # no perturbation file, no words
    assert beta["words"] is None and beta["unperturbed"] is None and beta["deactivation"] is None
    assert all(row["perturbed"] is None for row in beta["rows"])


def data_payload(path):
    """The JSON a data file of the page assigns (``window.EXPLORER.<target> = <JSON>;``)."""
    return json.loads(path.read_text().split(" = ", 1)[1].rstrip(";\n"))


def test_page_files_load_their_data_relatively(explored, tmp_path):
    size = write_explorer(tmp_path / "explorer", *explored)
    page = (tmp_path / "explorer" / "index.html").read_text()
    assert '<script src="data/overview.js"></script>' in page
    assert '<script src="data/task-1.js"></script>' in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    text = (tmp_path / "explorer" / "data" / "task-0.js").read_text()
    prefix = 'window.EXPLORER.tasks["alpha"] = '
    assert text.startswith(prefix)
    assert json.loads(text[len(prefix) :].rstrip(";\n")) == explored[1]["alpha"]
    files = [path for path in (tmp_path / "explorer").rglob("*") if path.is_file()]
    assert size == sum(path.stat().st_size for path in files) and len(files) == 4


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def headless(*args, timeout=60):
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (Debian package chromium)")
def test_page_in_headless_chromium(explored, tmp_path):
    write_explorer(tmp_path / "explorer", *explored)
    url = (tmp_path / "explorer" / "index.html").as_uri() + "#task=alpha&click=0"
    result = headless("--virtual-time-budget=5000", "--dump-dom", url)
    dom = result.stdout
    assert "CONSOLE" not in result.stderr, result.stderr[-2000:]  # no console message
    assert '<div id="errors"></div>' in dom
    body = dom.split('<table id="neuron-table">', 1)[1].split("</table>", 1)[0]
    assert body.count("<tr data-layer=") == 5
    assert '<tr data-layer="1" data-neuron="0" class="selected">' in body
    assert "alpha: layer 1, neuron 0</h2>" in dom
    bars = re.findall(r'<rect class="bar" data-label="(\d)" data-count="(\d+)"', dom)
    counts = [sum(int(c) for label, c in bars if label == wanted) for wanted in "01"]
    assert counts == [3, 2] and len(bars) == 2 * 30
    assert 'id="baseline"' in dom and 'class="here">1</span>' in dom
    assert "ct1</span>" in dom  # the top neuron's words
    # the texts that drive neuron (1,0): highest activation first (samples 3 and 4 at
    # 2.0, ties in sample order), lowest first at the other end, with label and value
    lists = {
        end: re.findall(
            r'<li><span class="activation">([^<]+)</span><span class="label label-\d">'
            r"([^<]+)</span><span class=\"text\">([^<]+)</span></li>",
            dom.split(f'<ol class="texts-{end}">', 1)[1].split("</ol>", 1)[0],
        )
        for end in ("high", "low")
    }
    assert lists["high"] == [
        ("2.000", "pos", "text 3"), ("2.000", "pos", "text 4 / second"),
        ("-1.000", "neg", "text 0"), ("-1.000", "neg", "text 1"), ("-1.000", "neg", "text 2"),
    ]  # fmt: skip
    assert [text for _, _, text in lists["low"]][:3] == ["text 0", "text 1", "text 2"]
    shot = tmp_path / "explorer.png"
    headless("--virtual-time-budget=5000", "--window-size=1500,1100", f"--screenshot={shot}", url)
    assert shot.stat().st_size > 10_000


def test_driving_texts_are_the_extremes_in_order():
    values = np.array([0.5, 2.0, -1.0, 2.0, 0.0], dtype=np.float32)
    texts = driving_texts(values, count=2)
    assert texts == {"high": [[1, 2.0], [3, 2.0]], "low": [[2, -1.0], [4, 0.0]]}


def test_task_data_lists_the_split_texts_by_dump_position(explored):
    alpha = explored[1]["alpha"]
    assert alpha["texts"] == [
        ["text 0", 0], ["text 1", 0], ["text 2", 0], ["text 3", 1], ["text 4 / second", 1],
    ]  # fmt: skip
    top = next(row for row in alpha["rows"] if (row["layer"], row["neuron"]) == (1, 0))
    assert [position for position, _ in top["texts"]["high"]][:2] == [3, 4]
