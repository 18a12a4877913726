"""The benchmark runner: ratios against targets, the JSON report and ``--check``."""

import json
from types import SimpleNamespace

import pytest

import benchmarks.__main__ as runner
from benchmarks.common import Ratio, Row


def test_a_ratio_meets_its_target_in_either_direction():
    assert Ratio("time", 1.05, 1.1).met and not Ratio("time", 1.2, 1.1).met
    assert Ratio("share", 0.97, 0.95, at_most=False).met
    assert not Ratio("share", 0.9, 0.95, at_most=False).met
    assert "MISSES TARGET" in Ratio("time", 1.2, 1.1).line()


@pytest.fixture
def fake_rows(monkeypatch):
    def row(name, value):
        return SimpleNamespace(run=lambda repeats: Row(name, [name], [Ratio("r", value, 1.0)]))

    monkeypatch.setattr(runner, "ROWS", {"fast": row("fast", 0.5), "slow": row("slow", 2.0)})


def test_check_fails_when_a_ratio_misses_and_every_row_is_reported(fake_rows, tmp_path, capsys):
    path = tmp_path / "rows.json"
    assert runner.main(["--rows", "fast", "slow", "--json", str(path), "--check"]) == 1
    assert "slow: r" in capsys.readouterr().out
    rows = json.loads(path.read_text())["rows"]
    assert [(row["row"], row["ratios"][0]["met"]) for row in rows] == [
        ("fast", True),
        ("slow", False),
    ]
    assert runner.main(["--rows", "fast", "--check"]) == 0
    assert runner.main(["--rows", "slow"]) == 0  # without --check: report only


def test_sweep_conditions_split_into_orders_times_rates():
    from benchmarks.sweep_batching import RATES, grid

    assert grid(20) == (4, RATES) and grid(10) == (2, RATES) and grid(1) == (1, RATES[:1])
    assert grid(8) == (2, RATES[:4]) and grid(16) == (4, RATES[:4]) and grid(3) == (1, RATES[:3])
    assert grid(7) == (7, RATES[:1])


def test_batching_curves_run_on_tiny_sizes(capsys):
    """The code path of ``--curve`` (not a measurement: a 2-layer model, a few samples)."""
    argv = ["--rows", "trial_batching", "sweep_batching", "--curve", "--tiny", "--repeats", "1"]
    assert runner.main([*argv, "--points", "1", "3", "--json", "/dev/null"]) == 0
    out = capsys.readouterr().out
    assert "trial_batching curve: MiniLM-L6, 2 layers (tiny) on cpu" in out
    assert "k=  1:" in out and "k=  3:" in out and "k=3 trials batched / 3 sequential" in out
    assert "  1 conditions (1 x 1):" in out and "  3 conditions (1 x 3):" in out
    assert "sweep of 20 conditions" not in out  # 20 is not among the points: no target
