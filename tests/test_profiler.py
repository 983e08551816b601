"""minitorch.autograd.profiler and minitorch.profiler: events, nesting, tables, traces, schedule."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import minitorch
from minitorch.autograd import composite, engine
from minitorch.autograd import profiler as aprof
from minitorch.autograd.function import Function, _user_apply
from minitorch.profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)

A = ProfilerAction


def _inputs():
    rng = np.random.default_rng(0)
    x = minitorch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = minitorch.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    return x, w


def _run(create_graph=False, **kwargs):
    x, w = _inputs()
    with aprof.profile(**kwargs) as prof:
        with aprof.record_function("model"):
            y = (x @ w).relu().sum()
        y.backward(create_graph=create_graph)
    return prof


def test_forward_backward_events_names_and_counts():
    prof = _run()
    counts = {e.key: e.count for e in prof.key_averages()}
    assert counts["model"] == 1
    assert counts["Relu"] == 1 and counts["Sum"] == 1
    assert counts["ReluBackward0"] == 1 and counts["SumBackward0"] == 1
    assert any(k.endswith("Backward0") and k.startswith("M") for k in counts), counts
    total = sum(counts.values())
    assert len(prof.function_events) == total


def test_nesting_and_self_time():
    prof = _run()
    events = prof.function_events
    model = next(e for e in events if e.name == "model")
    assert model.cpu_parent is None
    child_names = [c.name for c in model.cpu_children]
    assert "Relu" in child_names and "Sum" in child_names
    for e in events:
        assert e.self_cpu_time_total <= e.cpu_time_total + 1e-9, e
        for c in e.cpu_children:
            assert c.cpu_parent is e
            assert e.start_us <= c.start_us and c.end_us <= e.end_us
    # a first-order backward runs the node's data-level formula (no op recorded); under
    # create_graph its Tensor formula's ops run inside the node's event
    relu_bw = next(e for e in events if e.name == "ReluBackward0")
    assert not relu_bw.cpu_children
    relu_bw = next(e for e in _run(create_graph=True).function_events if e.name == "ReluBackward0")
    assert [c.name for c in relu_bw.cpu_children] == ["ReluBackward"]
    avg = prof.key_averages()
    for e in avg:
        assert e.self_cpu_time_total <= e.cpu_time_total + 1e-9
    total = prof.total_average()
    assert total.key == "Total" and total.count == len(events)
    np.testing.assert_allclose(
        prof.self_cpu_time_total,
        sum(e.cpu_time_total for e in events if e.cpu_parent is None),
        rtol=1e-9,
        err_msg="self time total must equal the top-level events' total",
    )


def test_a_declined_data_backward_shows_once():
    # gelu's tanh form has no data-level formula: its node runs the Tensor formula, one event
    x = minitorch.tensor([[-1.0, 0.5, 2.0]], requires_grad=True)
    with aprof.profile() as prof:
        minitorch.nn.functional.gelu(x, approximate="tanh").sum().backward()
    events = [e for e in prof.function_events if e.name == "GeluBackward0"]
    assert len(events) == 1
    assert events[0].cpu_children  # the Tensor formula's ops, inside the node's event


def test_record_shapes_and_group_by_input_shape():
    prof = _run(record_shapes=True)
    mm = [e for e in prof.function_events if e.name == "Relu"]
    assert mm[0].input_shapes == [[3, 2]]
    grouped = prof.key_averages(group_by_input_shape=True)
    keys = {(e.key, str(e.input_shapes)) for e in grouped}
    assert ("Relu", "[[3, 2]]") in keys
    # a backward node's gradient, an array on the data-level walk, shows its shape too
    relu_bw = [e for e in prof.function_events if e.name == "ReluBackward0"]
    assert relu_bw[0].input_shapes == [[3, 2]]
    table = grouped.table(sort_by="count")
    assert "Input Shapes" in table.splitlines()[1]
    assert "Input Shapes" not in prof.key_averages().table()


def test_table_layout():
    prof = _run(profile_memory=True)
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=3)
    lines = table.splitlines()
    header = lines[1].split("  ")
    header = [h.strip() for h in header if h.strip()]
    assert header == [
        "Name",
        "Self CPU %",
        "Self CPU",
        "CPU total %",
        "CPU total",
        "CPU time avg",
        "CPU Mem",
        "Self CPU Mem",
        "# of Calls",
    ]
    assert lines[0] == lines[2] == lines[-2] and set(lines[0]) == {"-", " "}
    assert len(lines) == 3 + 3 + 2  # header block, 3 rows, separator, total
    assert lines[-1].startswith("Self CPU time total: ")
    for sort_by in ("cpu_time_total", "count", "cpu_time", "self_cpu_memory_usage"):
        assert prof.key_averages().table(sort_by=sort_by).count("\n") > 5
    rows = prof.key_averages().table(sort_by="count").splitlines()[3:-2]
    calls = [int(r.split()[-1]) for r in rows]
    assert calls == sorted(calls, reverse=True)


def test_memory_counts_outputs():
    prof = _run(profile_memory=True)
    relu = next(e for e in prof.function_events if e.name == "Relu")
    assert relu.cpu_memory_usage == 3 * 2 * 8  # float64 output
    model = next(e for e in prof.function_events if e.name == "model")
    assert model.cpu_memory_usage >= relu.cpu_memory_usage


def test_chrome_trace(tmp_path):
    prof = _run(record_shapes=True)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    data = json.loads(path.read_text())
    names = [e["name"] for e in data["traceEvents"]]
    assert names.count("model") == 1 and "ReluBackward0" in names
    assert len(names) == len(prof.function_events)
    for e in data["traceEvents"]:
        assert e["ph"] == "X" and e["dur"] >= 0
    cats = {e["name"]: e["cat"] for e in data["traceEvents"]}
    assert cats["model"] == "user_annotation" and cats["Relu"] == "cpu_op"


def test_apply_restored_exactly_and_nested_profiles():
    orig_apply = Function.__dict__["apply"]
    orig_run = engine._run_node
    orig_composite = composite._run_node
    x, w = _inputs()
    with aprof.profile() as outer:
        assert Function.__dict__["apply"] is not orig_apply
        with aprof.profile() as inner:
            (x * 2).sum()
        assert Function.__dict__["apply"] is not orig_apply  # the outer one still records
        (x + 1).sum()
    assert Function.__dict__["apply"] is orig_apply
    assert engine._run_node is orig_run
    assert composite._run_node is orig_composite
    inner_names = [e.name for e in inner.function_events]
    outer_names = [e.name for e in outer.function_events]
    assert inner_names == ["Mul", "Sum"]
    assert outer_names == ["Mul", "Sum", "Add", "Sum"]


def test_composite_node_runs_its_inner_nodes_inside_its_event():
    x, w = _inputs()
    with aprof.profile() as prof:
        minitorch.nn.functional.mse_loss(x @ w, minitorch.zeros(3, 2, dtype=x.dtype)).backward()
    node = next(e for e in prof.function_events if e.name == "MseLossBackward0")
    assert node.cpu_children, "the composite's inner backward ran outside its event"


def test_apply_restored_after_error():
    orig_apply = Function.__dict__["apply"]
    with pytest.raises(ValueError, match="boom"):
        with aprof.profile():
            raise ValueError("boom")
    assert Function.__dict__["apply"] is orig_apply


def test_apply_overrides_delegate_to_the_base():
    # An op that overrides apply must go through Function.apply (super().apply) to be recorded.
    overriders = set()
    seen, todo = set(), [Function]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
                apply = sub.__dict__.get("apply")
                # a user Function's own apply binds keyword tensors, then calls Function.apply
                if apply is not None and getattr(apply, "__func__", None) is not _user_apply:
                    overriders.add(sub.__name__)
    assert overriders <= {"ToCopy"}, overriders
    x, _ = _inputs()
    with aprof.profile() as prof:
        x.to(minitorch.float32)
    assert [e.name for e in prof.function_events] == ["ToCopy"]


def test_record_function_decorator_and_disabled():
    @aprof.record_function("helper")
    def helper(t):
        return t * 3

    x, _ = _inputs()
    helper(x)  # no profile active: nothing happens
    with aprof.profile() as prof:
        helper(x)
        helper(x)
    names = [e.name for e in prof.function_events]
    assert names == ["helper", "Mul", "helper", "Mul"]
    with aprof.profile(enabled=False) as off:
        helper(x)
    assert off is None  # torch binds None when profiling is disabled
    with aprof.emit_nvtx():
        helper(x)


def test_custom_function_is_recorded():
    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x, _ = _inputs()
    with aprof.profile() as prof:
        Double.apply(x).sum().backward()
    names = [e.name for e in prof.function_events]
    assert names[:2] == ["Double", "Mul"]
    assert "DoubleBackward" in names


def test_with_stack_records_this_file():
    x, _ = _inputs()
    with aprof.profile(with_stack=True) as prof:
        x * 2
    mul = prof.function_events[0]
    assert any("test_profiler.py" in s for s in mul.stack), mul.stack
    table = prof.key_averages(group_by_stack_n=2).table()
    assert "Source Location" in table.splitlines()[1]


@pytest.mark.parametrize(
    "kw, expected",
    [
        (dict(wait=1, warmup=1, active=2), [A.NONE, A.WARMUP, A.RECORD, A.RECORD_AND_SAVE] * 2),
        (
            dict(wait=0, warmup=1, active=1, repeat=2, skip_first=1),
            [A.NONE, A.WARMUP, A.RECORD_AND_SAVE, A.WARMUP, A.RECORD_AND_SAVE, A.NONE, A.NONE],
        ),
    ],
)
def test_schedule_actions(kw, expected):
    fn = schedule(**kw)
    assert [fn(i) for i in range(len(expected))] == expected


def test_schedule_invalid():
    with pytest.raises(AssertionError, match="active"):
        schedule(wait=0, warmup=1, active=0)


def _steps_per_trace(n_steps, **kw):
    x, _ = _inputs()
    traces = []

    def ready(p):
        traces.append([e.trace_name for e in p.events() if e.name == "ProfilerStep*"])

    with profile(
        activities=[ProfilerActivity.CPU], schedule=schedule(**kw), on_trace_ready=ready
    ) as p:
        for _ in range(n_steps):
            (x * 2).sum()
            p.step()
    return traces


def test_profile_schedule_state_machine():
    traces = _steps_per_trace(10, wait=1, warmup=1, active=2, repeat=2)
    assert traces == [["ProfilerStep#2", "ProfilerStep#3"], ["ProfilerStep#6", "ProfilerStep#7"]]
    assert Function.__dict__["apply"] is aprof._saved.get("apply", Function.__dict__["apply"])


def test_profile_start_stop_and_tensorboard_handler(tmp_path):
    x, _ = _inputs()
    p = profile(on_trace_ready=tensorboard_trace_handler(str(tmp_path), worker_name="w"))
    p.start()
    with record_function("blk"):
        x * 3
    p.stop()
    names = [e.name for e in p.events()]
    assert names == ["blk", "Mul"]
    files = os.listdir(tmp_path)
    assert len(files) == 1 and files[0].startswith("w.") and files[0].endswith(".pt.trace.json")
    data = json.loads((tmp_path / files[0]).read_text())
    assert [e["name"] for e in data["traceEvents"]] == ["blk", "Mul"]
    assert "Mul" in p.key_averages().table()


def test_lazy_modules_not_imported_by_minitorch():
    import subprocess
    import sys

    code = (
        "import sys, minitorch; "
        "print(any(m in sys.modules for m in ('minitorch.profiler', "
        "'minitorch.autograd.profiler', 'minitorch.utils.benchmark')))"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True
    )
    assert out.stdout.strip() == "False"
    assert minitorch.profiler.profile is profile
    assert minitorch.autograd.profiler is aprof
