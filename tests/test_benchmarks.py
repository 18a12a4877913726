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


def test_a_timed_ratio_misses_only_when_its_interval_lies_beyond_the_target():
    """Paired rounds 1.05, 1.15, 1.10 (a log-scale t interval over 3 rounds): the
    geometric mean 1.099 is at the target 1.1 and the interval straddles it, so the row
    is within noise, not missed; rounds all near 1.3 miss it; an at-least target
    mirrors it."""
    import numpy as np
    from scipy import stats

    ratio = Ratio.paired("step / forward", [1.05, 1.15, 1.10], [1.0, 1.0, 1.0], 1.1)
    logs = np.log([1.05, 1.15, 1.10])
    half = stats.t.ppf(0.975, 2) * logs.std(ddof=1) / np.sqrt(3)
    assert ratio.value == pytest.approx(np.exp(logs.mean()))
    assert (ratio.low, ratio.high) == pytest.approx(
        np.exp([logs.mean() - half, logs.mean() + half])
    )
    assert ratio.low < 1.1 < ratio.high and ratio.met
    assert "within noise of the target" in ratio.line()
    slow = Ratio.paired("step / forward", [2.6, 2.62, 2.58], [2.0, 2.0, 2.0], 1.1)
    assert not slow.met and "MISSES TARGET" in slow.line() and slow.low > 1.1
    fast = Ratio.paired("step / forward", [0.5, 0.52, 0.51], [1.0, 1.0, 1.0], 1.1)
    assert fast.met and fast.high < 1.1 and fast.line().endswith(": ok)")
    share = Ratio.of_rounds("speedup / bound", [0.93, 0.96, 0.99], 0.95, at_most=False)
    assert share.met and share.low < 0.95 < share.high
    assert not Ratio.of_rounds("speedup / bound", [0.80, 0.81, 0.79], 0.95, False).met
    # timed apart: the interval of a difference of mean logs
    apart = Ratio.unpaired("step ratio", [0.7, 0.72, 0.71], [1.0, 1.02, 0.98], 0.75)
    assert apart.value == pytest.approx(np.exp(np.log([0.7, 0.72, 0.71]).mean()), rel=0.02)
    assert apart.high < 0.75 and apart.met


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
