"""minitorch.cuda, accelerator, backends and pinned memory vs a CPU-only torch: the same answers
and exception types where no GPU exists. Skipped where torch is not installed or sees a GPU."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(
    torch.cuda.is_available() or mt.cuda.is_available(),
    reason="compares CPU-only behaviour (a GPU is present)",
)


def _run(fn):
    """(value, None) or (None, the exception raised)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as e:
            return None, e


@pytest.mark.parametrize(
    "call",
    [
        lambda T: T.cuda.is_available(),
        lambda T: T.cuda.device_count(),
        lambda T: T.cuda.memory_allocated(),
        lambda T: T.cuda.max_memory_allocated(),
        lambda T: T.cuda.memory_reserved(),
        lambda T: T.cuda.max_memory_reserved(0),
        lambda T: T.cuda.memory_allocated("cuda:0"),
        lambda T: dict(T.cuda.memory_stats()),
        lambda T: T.cuda.empty_cache(),
        lambda T: T.cuda.set_per_process_memory_fraction(0.5),
        lambda T: T.cuda.mem_get_info(),
        lambda T: T.cuda.Stream(),
        lambda T: T.cuda.Stream(priority=-1),
        lambda T: T.cuda.Event(enable_timing=True),
        lambda T: T.cuda.current_stream(),
        lambda T: T.cuda.default_stream(),
        lambda T: T.cuda.set_stream(None),
        lambda T: T.cuda.synchronize(),
        lambda T: T.ones(2).is_pinned(),
        lambda T: T.ones(2).pin_memory(),
        lambda T: T.ones(2).record_stream(None),
        lambda T: T.ones(2).to("cuda", non_blocking=True),
        lambda T: T.ones(2).to("cpu", non_blocking=True).tolist(),
        lambda T: T.accelerator.is_available(),
        lambda T: T.accelerator.current_accelerator(),
        lambda T: T.accelerator.device_count(),
        lambda T: T.accelerator.current_device_index(),
        lambda T: T.accelerator.set_device_index(0),
        lambda T: T.accelerator.synchronize(),
        lambda T: T.accelerator.memory_allocated(),
        lambda T: T.accelerator.empty_cache(),
        lambda T: T.backends.cudnn.is_available(),
        lambda T: T.backends.cudnn.version(),
        lambda T: T.backends.mps.is_available(),
        lambda T: T.backends.mps.is_built(),
        lambda T: T.backends.cpu.get_cpu_capability(),
        lambda T: (T.backends.cudnn.enabled, T.backends.cudnn.benchmark),
        lambda T: (T.backends.cudnn.deterministic, T.backends.cudnn.allow_tf32),
        lambda T: T.backends.cuda.matmul.allow_tf32,
        lambda T: T.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
        lambda T: T.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
    ],
)
def test_cpu_only_answers_match_torch(call):
    expected, torch_error = _run(lambda: call(torch))
    got, error = _run(lambda: call(mt))
    if torch_error is None:
        assert error is None and got == expected
    else:  # the exception torch raises catches minitorch's
        assert isinstance(error, type(torch_error)), (error, torch_error)


def test_stream_context_with_none_is_a_no_op_in_both():
    for T in (mt, torch):
        with T.cuda.stream(None), T.cuda.StreamContext(None):
            pass
        with T.accelerator.device_index(None):
            pass


def test_out_of_memory_error_is_a_runtime_error_in_both():
    assert issubclass(mt.cuda.OutOfMemoryError, RuntimeError)
    assert issubclass(torch.cuda.OutOfMemoryError, RuntimeError)


@pytest.mark.parametrize(
    "setter",
    [
        lambda T: setattr(T.backends.cudnn, "deterministic", 1),
        lambda T: setattr(T.backends.cudnn, "benchmark", "yes"),
        lambda T: setattr(T.backends.cuda.matmul, "allow_tf32", 1),
        lambda T: setattr(T.backends.cuda.matmul, "allow_fp16_reduced_precision_reduction", 1),
        lambda T: setattr(T.backends.cuda.matmul, "not_a_flag", True),
    ],
)
def test_backend_flag_validation_matches_torch(setter):
    def error(T):
        try:
            setter(T)
        except Exception as e:
            return type(e)
        return None

    assert error(mt) is error(torch) is not None


def test_backend_flags_round_trip_like_torch():
    for T in (mt, torch):
        try:
            T.backends.cudnn.benchmark = True
            T.backends.cuda.matmul.allow_tf32 = True
            assert T.backends.cudnn.benchmark is True and T.backends.cuda.matmul.allow_tf32
        finally:
            T.backends.cudnn.benchmark = False
            T.backends.cuda.matmul.allow_tf32 = False


def test_dataloader_pin_memory_without_an_accelerator_warns_like_torch():
    def run(T):
        data = T.arange(4.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            batches = list(T.utils.data.DataLoader(data, batch_size=2, pin_memory=True))
        return [str(w.message) for w in caught], [b.is_pinned() for b in batches]

    assert run(mt) == run(torch)
