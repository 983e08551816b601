"""The profiler's schedule, step state machine and table header, and benchmark's Measurement repr,
against PyTorch."""

from __future__ import annotations

import re
import warnings

import pytest

torch = pytest.importorskip("torch")

import torch.profiler as tprof  # noqa: E402
import torch.utils.benchmark as tbench  # noqa: E402

import minitorch  # noqa: E402
import minitorch.profiler as mprof  # noqa: E402
from minitorch.utils import benchmark as mbench  # noqa: E402

SCHEDULES = [
    dict(wait=1, warmup=1, active=2),
    dict(wait=1, warmup=1, active=2, repeat=2),
    dict(wait=0, warmup=1, active=1, repeat=3, skip_first=2),
    dict(wait=2, warmup=0, active=3, repeat=1, skip_first=1),
    dict(wait=2, warmup=1, active=1, repeat=2, skip_first_wait=1),
]


@pytest.mark.parametrize("kw", SCHEDULES)
def test_schedule_actions_match_torch(kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, m = tprof.schedule(**kw), mprof.schedule(**kw)
    got = [m(i).name for i in range(20)]
    want = [t(i).name for i in range(20)]
    assert got == want, f"{kw}: {got} != {want}"


def _trace_steps(lib, mod, kw, n_steps=12):
    """The step numbers at which on_trace_ready fires, and the number of step events seen then."""
    fired = []

    def ready(p):
        steps = [e for e in p.events() if e.name == "ProfilerStep*"]
        fired.append((p.step_num, len(steps)))

    x = lib.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mod.profile(
            activities=[mod.ProfilerActivity.CPU], schedule=mod.schedule(**kw), on_trace_ready=ready
        ) as p:
            for _ in range(n_steps):
                x * 2
                p.step()
    return fired


@pytest.mark.parametrize("kw", SCHEDULES)
def test_profile_steps_match_torch(kw):
    assert _trace_steps(minitorch, mprof, kw) == _trace_steps(torch, tprof, kw)


def _header(table):
    return [h.strip() for h in table.splitlines()[1].split("  ") if h.strip()]


@pytest.mark.parametrize("memory", [False, True])
@pytest.mark.parametrize("by_shape", [False, True])
def test_table_header_matches_torch(memory, by_shape):
    def run(lib, mod):
        x = lib.ones(3, 4, requires_grad=True)
        with mod.profile(record_shapes=True, profile_memory=memory) as p:
            with mod.record_function("model"):
                (x * 2).sum().backward()
        table = p.key_averages(group_by_input_shape=by_shape).table(sort_by="cpu_time_total")
        return table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = run(minitorch, mprof), run(torch, tprof)
    assert _header(got) == _header(want)
    g, w = got.splitlines(), want.splitlines()
    # column widths other than Name and Input Shapes (which depend on the names) are torch's
    assert (
        g[0].split()[1:-1] == w[0].split()[1:-1]
        if by_shape
        else g[0].split()[1:] == w[0].split()[1:]
    )
    assert g[-1].split(":")[0] == w[-1].split(":")[0] == "Self CPU time total"


@pytest.mark.parametrize(
    "times, spec",
    [
        ([2e-4, 2.1e-4, 2.2e-4, 2.4e-4], dict(stmt="x * y", setup="pass")),
        ([1e-3], dict(stmt="x * y", setup="pass")),
        ([1e-3, 1.01e-3, 1.3e-3], dict(stmt="f(x)", setup="x = 1", label="lbl", sub_label="s")),
        (
            [5e-9, 9e-9, 5e-9, 5e-9, 6e-9],
            dict(stmt="a\nb", setup="pass", description="d", num_threads=2),
        ),
        ([1.0, 1.0, 2.0, 3.0, 3.0], dict(stmt="g()", setup="pass")),
    ],
)
def test_measurement_repr_matches_torch(times, spec):
    got = repr(mbench.Measurement(10, times, mbench.TaskSpec(**spec)))
    want = repr(tbench.Measurement(10, times, tbench.utils.common.TaskSpec(**spec)))
    strip = lambda s: re.sub(r"0x[0-9a-f]+", "0x", s)  # noqa: E731
    assert strip(got) == strip(want)
