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
