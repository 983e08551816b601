"""Session 37 (helper profiling): torch-free regression tests of the library fixes the profiling
programs of tests/reference/test_s37_profiling_reference.py found: schedule's and the profiler's
AssertionErrors, the legacy profile's results before it finished, the table's time_unit and
top-level banner, FunctionEvent / FunctionEventAvg attributes and reprs, record_function's
argument check, and the optimizer's profiler ranges. torch's messages are written here as
literals."""

from __future__ import annotations

import re
import warnings

import pytest

import minitorch as mt

P = mt.profiler
AP = mt.autograd.profiler


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _user(events):
    return [e for e in events if e.is_user_annotation]


def _ranges():
    with P.profile() as prof:
        for _ in range(3):
            with P.record_function("outer"):
                with P.record_function("inner"):
                    pass
        with P.record_function("once"):
            pass
    return prof


def test_schedule_argument_and_step_messages():
    assert _message(AssertionError, lambda: P.schedule(wait=1, warmup=1, active=0)) == (
        "Invalid profiler schedule arguments. Got wait=1 (need >= 0), warmup=1 (need >= 0), "
        "active=0 (need > 0), repeat=0 (need >= 0), skip_first=0 (need >= 0)."
    )
    fn = P.schedule(wait=1, warmup=1, active=1)
    assert _message(AssertionError, lambda: fn(-2)) == "Step must be non-negative. Got -2."
    assert P.ProfilerAction.DEVICE_STOPPED.value == 4


def test_profile_results_before_start_are_assertion_errors():
    prof = P.profile()
    for call, what in [
        (prof.events, "accessing events"),
        (prof.key_averages, "getting key averages"),
        (lambda: prof.export_chrome_trace("never.json"), "exporting chrome trace"),
        (prof.stop, "stopping trace"),
    ]:
        assert _message(AssertionError, call) == f"Profiler must be initialized before {what}"
    scheduled = P.profile(schedule=P.schedule(wait=0, warmup=1, active=1))
    scheduled.start()  # warmup: prepared, nothing stopped yet
    assert list(scheduled.events()) == []
    assert list(scheduled.key_averages()) == []
    scheduled.stop()


def test_legacy_profile_results_before_it_finished_are_empty():
    prof = AP.profile()
    assert str(prof) == "<unfinished minitorch.autograd.profile>"
    assert list(prof.key_averages()) == []
    assert prof.table() == ""
    assert prof.self_cpu_time_total == 0
    total = prof.total_average()
    assert (total.key, total.count, total.input_shapes) == ("Total", 0, None)


def test_table_time_unit_and_top_level_banner():
    ka = _ranges().key_averages()
    for unit, pattern in [("s", r"\d\.\d{3}s"), ("ms", r"\d\.\d{3}ms"), ("us", r"\d\.\d{3}us")]:
        row = ka.table(sort_by="count", row_limit=1, time_unit=unit).splitlines()[3]
        assert len(re.findall(pattern, row)) == 3, row
    lines = ka.table(sort_by="count", header="HEADER", top_level_events_only=True).splitlines()
    assert lines[:4] == ["=" * 93, "HEADER", "=" * 93, "This report only display top-level ops "
                         "statistics"]  # fmt: skip
    assert len(lines[4]) == 95
    assert [line.split()[0] for line in lines[7:9]] == ["outer", "once"]


def test_event_and_average_attributes():
    prof = _ranges()
    inner = [e for e in prof.events() if e.name == "inner"][0]
    assert inner.input_shapes == []
    assert (inner.use_device, inner.kernels, inner.concrete_inputs, inner.kwinputs) == (
        None, [], [], {}
    )  # fmt: skip
    assert (inner.total_cpu_percent, inner.total_device_percent) == (-1, -1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert inner.cuda_time == 0
        assert inner.self_cuda_memory_usage == 0
    assert [(w.category, str(w.message)) for w in caught] == [
        (FutureWarning, "`cuda_time` is deprecated, please use `device_time` instead."),
        (
            FutureWarning,
            "`self_cuda_memory_usage` is deprecated. Use `self_device_memory_usage` instead.",
        ),
    ]
    text = re.sub(r"\d+(\.\d+)?", "N", repr(inner))
    assert text == (
        "<FunctionEvent id=N name=inner overload_name= device_type=DeviceType.CPU node_id=-N "
        "cpu_time=Nus start_us=N end_us=N cpu_children=[] None_time=Nus name=inner "
        "thread=N input_shapes=[] cpu_memory_usage=N None_memory_usage=N is_async=False "
        "is_remote=False seq_nr=-N is_legacy=False>"
    )
    avg = [e for e in prof.key_averages() if e.key == "outer"][0]
    assert (avg.node_id, avg.is_legacy, avg.use_device) == (-1, False, None)
    assert "Node ID" not in prof.key_averages().table()
    total = prof.events().total_average()
    assert (total.key, total.count, total.input_shapes, total.is_user_annotation) == (
        "Total", 7, [], True
    )  # fmt: skip


def test_record_function_checks_its_arguments_and_exit_returns_none():
    msg = _message(RuntimeError, lambda: P.record_function(5).__enter__())
    assert msg.startswith(
        "profiler::_record_function_enter_new() Expected a value of type 'str' for argument "
        "'name' but instead found type 'int'.\nPosition: 0\nValue: 5\nDeclaration: "
        "profiler::_record_function_enter_new(str name, str? args=None) -> "
        "__torch__.torch.classes.profiler._RecordFunction\nCast error details: Unable to cast "
        "Python instance of type <class 'int'> to C++ type '?'"
    )
    msg = _message(RuntimeError, lambda: P.record_function("a", 5).__enter__())
    assert "type 'Optional[str]' for argument 'args'" in msg and "Position: 1" in msg
    rf = P.record_function("fine", "args")
    assert rf.__enter__() is rf
    assert rf.__exit__(None, None, None) is None


def test_optimizer_step_and_zero_grad_are_profiled_ranges():
    w = mt.nn.Parameter(mt.ones(3))
    opt = mt.optim.SGD([w], lr=0.1)
    with P.profile() as prof:
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    names = [e.name for e in _user(prof.events())]
    assert names == ["Optimizer.zero_grad#SGD.zero_grad", "Optimizer.step#SGD.step"]
    assert w.tolist() == pytest.approx([0.8, 0.8, 0.8])


def test_profile_arguments_and_export_stacks(tmp_path):
    msg = _message(TypeError, lambda: P.profile(foo=1))
    assert msg.endswith("__init__() got an unexpected keyword argument 'foo'")
    prof = P.profile(post_processing_timeout_s=1.0)
    assert prof.use_device is None
    assert P.profile(activities=[P.ProfilerActivity.CUDA]).use_device == "cuda"
    assert P.tensorboard_trace_handler(str(tmp_path)).__name__ == "handler_fn"
    assert _message(AssertionError, lambda: prof.export_stacks("x")) == (
        "Profiler must be initialized before exporting stacks"
    )
    with prof:
        pass
    assert _message(AssertionError, lambda: prof.export_stacks("x")) == (
        "export_stacks() requires with_stack=True"
    )
    with P.profile(with_stack=True) as stacked:
        with P.record_function("stacked"):
            mt.ones(2) * 2
    assert _message(ValueError, lambda: stacked.export_stacks("x", "cpu_time")) == (
        "metric should be one of: ['self_cpu_time_total', 'self_cuda_time_total', "
        "'self_xpu_time_total', 'self_privateuse1_time_total']"
    )
    path = tmp_path / "stacks.txt"
    stacked.export_stacks(str(path))
    lines = path.read_text().splitlines()
    assert lines and all(re.fullmatch(r"\S+ \d+", line) for line in lines), lines
    assert all("test_profile_arguments_and_export_stacks" in line for line in lines)
    assert not any(" " in line.rsplit(" ", 1)[0] for line in lines)


def _warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught]


@pytest.mark.skipif(mt.cuda.is_available(), reason="the warnings of a machine without CUDA")
def test_profile_device_options_warn_as_torch():
    prof, msgs = _warnings(lambda: P.profile(use_cuda=True))
    assert msgs == ["`use_cuda` is deprecated, use `activities` argument instead"]
    assert prof.activities == {P.ProfilerActivity.CPU}
    assert _message(AssertionError, lambda: P.profile(activities=[])) == (
        "No valid profiler activities found"
    )
    legacy, msgs = _warnings(lambda: AP.profile(use_cuda=True))
    assert msgs == [
        "The attribute `use_cuda` will be deprecated soon, please use ``use_device = 'cuda'`` "
        "instead.",
        "CUDA is not available, disabling CUDA profiling",
    ]
    assert legacy.use_device is None and repr(legacy) == "<unfinished minitorch.autograd.profile>"
    legacy, msgs = _warnings(lambda: AP.profile(use_device="foo"))
    assert msgs == ["The foo is not a valid device option."] and legacy.use_device is None


def test_dataloader_batches_are_profiled_ranges():
    ds = mt.utils.data.TensorDataset(mt.arange(5.0))
    with P.profile() as prof:
        batches = [b for (b,) in mt.utils.data.DataLoader(ds, batch_size=2)]
    assert [b.tolist() for b in batches] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    name = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
    assert [e.name for e in _user(prof.events())] == [name] * 4  # the last one ends the loop
