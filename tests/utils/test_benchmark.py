"""minitorch.utils.benchmark: Timer, Measurement and Compare (structure only, never timings)."""

from __future__ import annotations

import re

import pytest

import minitorch
from minitorch.utils import benchmark


def _timer(**kw):
    x = minitorch.ones(3)
    return benchmark.Timer("x * y", globals={"x": x, "y": x}, **kw)


def test_timeit_measurement():
    m = _timer().timeit(50)
    assert isinstance(m, benchmark.Measurement)
    assert m.number_per_run == 50 and len(m.raw_times) == 1 and len(m.times) == 1
    assert m.times[0] == pytest.approx(m.raw_times[0] / 50)
    assert m.median == m.mean == m.times[0]
    assert m.iqr == 0.0 and m.stmt == "x * y" and m.num_threads == 1


def test_torch_is_in_globals_and_setup_runs():
    m = benchmark.Timer("torch.ones(2) + z", setup="z = torch.zeros(2)").timeit(5)
    assert m.setup == "z = torch.zeros(2)"
    assert "setup: z = torch.zeros(2)" in repr(m)


def test_callable_stmt():
    calls = []
    m = benchmark.Timer(lambda: calls.append(1)).timeit(7)
    assert len(calls) == 7 + 2  # the warm-up runs max(7 // 100, 2) times
    assert m.number_per_run == 7


def test_blocked_autorange_runs_at_least_once():
    seen = []
    m = _timer().blocked_autorange(callback=lambda n, t: seen.append(n), min_run_time=0.001)
    assert len(m.times) >= 1 and len(seen) == len(m.times)
    assert all(n == m.number_per_run for n in seen)
    assert m.number_per_run >= 1 and m.significant_figures in (1, 2, 3, 4)


def test_adaptive_autorange():
    m = _timer().adaptive_autorange(min_run_time=0.001, max_run_time=0.2)
    assert len(m.times) >= 1


def test_repeat_and_autorange_refer_to_blocked_autorange():
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        _timer().repeat()
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        _timer().autorange()


def test_measurement_repr_layout():
    spec = benchmark.TaskSpec(stmt="x * y", setup="pass", label="mul", sub_label="small")
    many = benchmark.Measurement(100, [2.0e-4, 2.1e-4, 2.2e-4, 2.3e-4], spec)
    lines = repr(many).splitlines()
    assert re.fullmatch(
        r"<torch\.utils\.benchmark\.utils\.common\.Measurement object at 0x[0-9a-f]+>", lines[0]
    )
    assert lines[1] == "mul: small"
    assert re.fullmatch(r"  Median: \d+\.\d\d us", lines[2]), lines[2]
    assert re.fullmatch(r"  IQR:    \d+\.\d\d us \(\d+\.\d\d to \d+\.\d\d\)", lines[3]), lines[3]
    assert lines[4] == "  4 measurements, 100 runs per measurement, 1 thread"
    assert len(lines) == 5
    one = benchmark.Measurement(10, [1e-3], benchmark.TaskSpec("a + b", "pass"))
    assert repr(one).splitlines()[1:] == [
        "a + b",
        "  100.00 us",
        "  1 measurement, 10 runs , 1 thread",
    ]


def test_measurement_warns_on_spread():
    spec = benchmark.TaskSpec("f()", "pass")
    m = benchmark.Measurement(1, [1.0, 1.0, 2.0, 3.0, 3.0], spec)
    assert m.has_warnings
    assert "WARNING: Interquartile range is" in repr(m)
    assert not benchmark.Measurement(1, [1.0, 1.0, 1.0, 1.0], spec).has_warnings


def test_compare_prints(capsys):
    ms = []
    for n in (10, 100):
        for desc, stmt in (("mul", "x * x"), ("add", "x + x")):
            t = benchmark.Timer(
                stmt,
                globals={"x": minitorch.ones(n)},
                label="ops",
                sub_label=f"n={n}",
                description=desc,
            )
            ms.append(t.timeit(20))
    c = benchmark.Compare(ms)
    c.print()
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("[") and " ops " in out[0] and out[0].endswith("]")
    assert [s.strip() for s in out[1].split("|")] == ["", "mul", "add"]
    assert out[2].startswith("1 threads: ")
    assert out[3].split("|")[0].strip() == "n=10" and out[4].split("|")[0].strip() == "n=100"
    assert re.fullmatch(r"Times are in \w+seconds \((ns|us|ms|s)\)\.", out[6]), out[6]
    c.trim_significant_figures()
    c.colorize()
    assert "n=100" in str(c)
    with pytest.raises(ValueError, match="Measurement"):
        benchmark.Compare([1])
