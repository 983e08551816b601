"""minitorch.cuda streams and events on the CuPy test double (see fake_cupy.py)."""

from __future__ import annotations

import pytest

import minitorch as mt


def test_new_stream_wraps_a_non_blocking_cupy_stream(fake_cupy):
    s = mt.cuda.Stream(priority=-1)
    cp = s._cupy_stream
    assert cp.non_blocking and cp.priority == -1 and s.priority == -1
    assert s.cuda_stream == cp.ptr != 0
    assert s.device == mt.device("cuda", 0) and s.device_index == 0
    assert repr(s) == f"<minitorch.cuda.Stream device=cuda:0 cuda_stream={cp.ptr:#x}>"
    assert mt.cuda.Stream()._cupy_stream.priority is None  # priority 0: CuPy's default


def test_stream_equality_and_hash_follow_the_cuda_stream(fake_cupy):
    s, t = mt.cuda.Stream(), mt.cuda.Stream()
    same = mt.cuda.Stream._wrap(s._cupy_stream, 0)
    assert s == same and hash(s) == hash(same) and s != t and s != s.cuda_stream
    assert len({s, same, t}) == 2
    assert mt.cuda.current_stream() == mt.cuda.default_stream()
    assert mt.cuda.default_stream().cuda_stream == 0


def test_stream_context_sets_and_restores_nested_streams(fake_cupy):
    outer, inner = mt.cuda.Stream(), mt.cuda.Stream()
    default = mt.cuda.current_stream()
    with mt.cuda.stream(outer):
        assert mt.cuda.current_stream() == outer
        with mt.cuda.stream(inner):
            assert mt.cuda.current_stream() == inner
            with mt.cuda.stream(None):  # None: no change
                assert mt.cuda.current_stream() == inner
        assert mt.cuda.current_stream() == outer
    assert mt.cuda.current_stream() == default


def test_stream_context_restores_after_an_exception(fake_cupy):
    s = mt.cuda.Stream()
    with pytest.raises(ValueError), mt.cuda.StreamContext(s):
        raise ValueError("boom")
    assert mt.cuda.current_stream().cuda_stream == 0


def test_stream_on_another_gpu_restores_both_gpus_streams(fake_cupy_2gpu):
    s1 = mt.cuda.Stream(device=1)
    assert s1.device == mt.device("cuda", 1)
    with mt.cuda.stream(s1):
        assert mt.cuda.current_device() == 0  # the current GPU does not change, as in torch
        assert mt.cuda.current_stream(1) == s1
        assert mt.cuda.current_stream(0).cuda_stream == 0
    assert mt.cuda.current_stream(1).cuda_stream == 0


def test_set_stream(fake_cupy):
    s = mt.cuda.Stream()
    mt.cuda.set_stream(None)
    assert mt.cuda.current_stream().cuda_stream == 0
    mt.cuda.set_stream(s)
    assert mt.cuda.current_stream() == s
    mt.cuda.set_stream(mt.cuda.default_stream())
    assert mt.cuda.current_stream().cuda_stream == 0


def test_query_synchronize_and_waits(fake_cupy):
    a, b = mt.cuda.Stream(), mt.cuda.Stream()
    assert a.query()
    a._cupy_stream.busy = True  # work queued on a
    assert not a.query()
    b.wait_stream(a)  # b waits for an event recorded on a
    (event,) = b._cupy_stream.waited
    assert event.stream is a._cupy_stream
    a.synchronize()
    assert a.query()
    e = mt.cuda.Event()
    b.wait_event(e)
    assert b._cupy_stream.waited[-1] is e._cupy_event


def test_record_event_returns_a_recorded_event(fake_cupy):
    s = mt.cuda.Stream()
    e = s.record_event()
    assert isinstance(e, mt.cuda.Event) and e._cupy_event.stream is s._cupy_stream
    mine = mt.cuda.Event()
    assert s.record_event(mine) is mine and mine.device == s.device


def test_event_flags_map_to_cupy(fake_cupy):
    e = mt.cuda.Event()
    assert e._cupy_event.disable_timing and not e._cupy_event.block
    e = mt.cuda.Event(enable_timing=True, blocking=True, interprocess=True)
    assert not e._cupy_event.disable_timing and e._cupy_event.block and e.interprocess


def test_event_record_query_synchronize_and_repr(fake_cupy):
    e = mt.cuda.Event()
    assert e.query() and repr(e) == "<minitorch.cuda.Event uninitialized>"
    e.synchronize()  # never recorded: returns at once
    s = mt.cuda.Stream()
    s._cupy_stream.busy = True
    with mt.cuda.stream(s):
        e.record()  # the current stream
    assert e._cupy_event.stream is s._cupy_stream and not e.query()
    assert repr(e) == f"<minitorch.cuda.Event {e.cuda_event:#x}>"
    e.synchronize()
    assert e.query()


def test_event_wait_defaults_to_the_current_stream(fake_cupy):
    e, s = mt.cuda.Event(), mt.cuda.Stream()
    with mt.cuda.stream(s):
        e.wait()
    assert s._cupy_stream.waited == [e._cupy_event]


def test_elapsed_time(fake_cupy):
    start, end = mt.cuda.Event(enable_timing=True), mt.cuda.Event(enable_timing=True)
    start.record()
    fake_cupy._fake_state.clock_ms += 12.5
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) == 12.5


def test_elapsed_time_errors(fake_cupy):
    timed, untimed = mt.cuda.Event(enable_timing=True), mt.cuda.Event()
    untimed.record()
    timed.record()
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        timed.elapsed_time(untimed)
    with pytest.raises(RuntimeError, match="must be recorded"):
        timed.elapsed_time(mt.cuda.Event(enable_timing=True))


def test_streams_and_events_need_cuda_without_a_gpu(no_gpu):
    with pytest.raises(RuntimeError, match="minitorch.cuda.Stream requires CUDA support"):
        mt.cuda.Stream()
    with pytest.raises(RuntimeError, match="minitorch.cuda.Event requires CUDA support"):
        mt.cuda.Event(enable_timing=True)
    with pytest.raises(AssertionError):  # torch: "Torch not compiled with CUDA enabled"
        mt.cuda.current_stream()
    with mt.cuda.stream(None):  # None is a no-op everywhere
        pass
    mt.cuda.set_stream(None)
