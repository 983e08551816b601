"""minitorch.utils.benchmark against torch's text and behaviour: Compare's table layout, colours,
env rows and warning legend; Timer's thread count and language check; Measurement.merge.
Expected strings were printed by torch.utils.benchmark for the same measurements."""

from __future__ import annotations

import pytest

import minitorch
from minitorch.utils import benchmark


def _m(times, n=1, **kw):
    kw.setdefault("stmt", "f(x)")
    kw.setdefault("setup", "pass")
    return benchmark.Measurement(n, list(times), benchmark.TaskSpec(**kw))


def _batched_dot():
    return [
        _m([1e-6, 1.01e-6], label="Batched dot", sub_label="[1, 1]", description="mul/sum"),
        _m([1.7e-6, 1.717e-6], label="Batched dot", sub_label="[1, 1]", description="bmm"),
        _m([2.5e-4, 2.525e-4], label="Batched dot", sub_label="[64, 64]", description="mul/sum"),
        _m([4.4e-4, 4.444e-4], label="Batched dot", sub_label="[64, 64]", description="bmm"),
    ]


_HEAD = (
    "[---------- Batched dot -----------]\n"
    "                |  mul/sum  |   bmm \n"
    "1 threads: -------------------------\n"
)
_TAIL = "\n\nTimes are in microseconds (us).\n"
_G, _R, _E = "\x1b[92m\x1b[1m", "\x1b[31m\x1b[1m", "\x1b[0m\x1b[0m"


def test_compare_right_aligns_numbers_and_pads_to_column_width():
    c = benchmark.Compare(_batched_dot())
    assert (
        str(c)
        == _HEAD
        + ("      [1, 1]    |     1.0   |    1.7\n      [64, 64]  |   251.3   |  442.2")
        + _TAIL
    )


def test_compare_colorize_columnwise_and_rowwise():
    c = benchmark.Compare(_batched_dot())
    c.colorize()
    assert (
        str(c)
        == _HEAD
        + (
            f"      [1, 1]    |  {_G}   1.0 {_E}  |  {_G}  1.7{_E}\n"
            f"      [64, 64]  |  {_R} 251.3 {_E}  |  {_R}442.2{_E}"
        )
        + _TAIL
    )
    c.colorize(rowwise=True)  # bmm is 1.7x / 1.76x its row's best: left plain
    assert (
        str(c)
        == _HEAD
        + (
            f"      [1, 1]    |  {_G}   1.0 {_E}  |    1.7\n"
            f"      [64, 64]  |  {_G} 251.3 {_E}  |  442.2"
        )
        + _TAIL
    )


def _trim_highlight_results():
    return [
        _m(
            [1.234e-5, 1.236e-5, 1.235e-5, 1.2345e-5],
            label="add",
            sub_label="small",
            description="a",
        ),
        _m([1e-5, 3e-5, 1e-5, 9e-5], label="add", sub_label="small", description="b"),
        _m(
            [7.1e-4, 7.2e-4, 7.15e-4, 7.11e-4],
            label="add",
            sub_label="big",
            description="a",
            num_threads=4,
        ),
        _m([2e-3, 2.1e-3], label="mul", description="a", num_threads=2),
    ]


def test_compare_trim_highlight_thread_groups_and_labels():
    c = benchmark.Compare(_trim_highlight_results())
    c.trim_significant_figures()
    c.highlight_warnings()
    legend = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
    add = (
        "[-------------- add --------------]\n"
        "             |   a   |       b     \n"
        "1 threads: ------------------------\n"
        "      small  |   12  |  20 (! 175%)\n"
        "4 threads: ------------------------\n"
        "      big    |  710  |             \n"
        "\nTimes are in microseconds (us).\n" + legend
    )
    mul = (
        "[---- mul -----]\n"
        "            |  a\n"
        "2 threads: -----\n"
        "      f(x)  |  2\n"
        "\nTimes are in milliseconds (ms).\n"
    )
    assert str(c) == add + "\n" + mul
    c.colorize()  # columnwise bests are taken within each thread group
    coloured = str(c)
    assert f"small  |  {_G} 12{_E}  |  {_G}20 (! 175%){_E}\n" in coloured
    assert f"big    |  {_G}710{_E}  |             \n" in coloured
    assert f"f(x)  |  {_G}2{_E}\n" in coloured


def test_compare_keeps_rows_that_differ_only_in_env():
    c = benchmark.Compare(
        [
            _m([1e-5], env="A", label="L", description="d"),
            _m([2e-5], env="B", label="L", description="d"),
            _m([3e-5], env="B", label="L", sub_label="g", description="d"),
        ]
    )
    assert str(c) == (
        "[------- L --------]\n"
        "             |   d  \n"
        "1 threads: ---------\n"
        "  (A)  f(x)  |  10.0\n"
        "  (B)  f(x)  |  20.0\n"
        "       g     |  30.0\n"
        "\nTimes are in microseconds (us).\n"
    )


def test_highlight_warnings_prints_legend():
    c = benchmark.Compare([_m([1e-5, 3e-5, 1e-5, 9e-5], label="L", description="d")])
    c.highlight_warnings()
    assert str(c) == (
        "[----------- L ------------]\n"
        "            |        d      \n"
        "1 threads: -----------------\n"
        "      f(x)  |  20.0 (! 175%)\n"
        "\nTimes are in microseconds (us).\n"
        "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
    )


def test_merge_reexpresses_times_per_run():
    spec = benchmark.TaskSpec(stmt="f(x)", setup="pass")
    ms = [
        benchmark.Measurement(10, [1e-4], spec, metadata={"a": 1}),
        benchmark.Measurement(5, [1e-4], spec),
    ]
    (m,) = benchmark.Measurement.merge(ms)
    assert m.number_per_run == 1 and m.metadata is None
    assert m.raw_times == pytest.approx([1e-5, 2e-5], rel=1e-12)
    assert repr(m).splitlines()[1:] == [
        "f(x)",
        "  Median: 15.00 us",
        "  2 measurements, 1 runs per measurement, 1 thread",
        "  WARNING: Interquartile range is 33.3% of the median measurement.",
        "           This suggests significant environmental influence.",
    ]


def test_timer_runs_statement_with_num_threads_and_restores():
    prior = minitorch.get_num_threads()
    try:
        minitorch.set_num_threads(3)
        seen = []
        t = benchmark.Timer(
            "seen.append(torch.get_num_threads())", globals={"seen": seen}, num_threads=1
        )
        t.timeit(2)
        assert set(seen) == {1} and minitorch.get_num_threads() == 3
        seen.clear()
        t2 = benchmark.Timer(
            "seen.append(torch.get_num_threads())", globals={"seen": seen}, num_threads=2
        )
        t2.blocked_autorange(min_run_time=1e-4)
        assert set(seen) == {2} and minitorch.get_num_threads() == 3
    finally:
        minitorch.set_num_threads(prior)


def test_timer_language_spellings():
    for ok in ("py", "python", benchmark.Language.PYTHON):
        benchmark.Timer("1 + 1", language=ok)
    for bad in ("rust", "Python", "PY"):
        with pytest.raises(ValueError, match=f"Invalid language `{bad}`"):
            benchmark.Timer("1 + 1", language=bad)
    for cpp in ("cpp", "c++", benchmark.Language.CPP):
        with pytest.raises(ValueError, match="C\\+\\+"):
            benchmark.Timer("1 + 1", language=cpp)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only"):
        benchmark.Timer("1 + 1", global_setup="import os")
    assert [lang.value for lang in benchmark.Language] == [0, 1]
