"""Sweep 7: device plumbing on CPU-only machines (generators, device modules, .to copies,
autocast device types, pin_memory, sdpa_kernel, cuda/xpu/accelerator names)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt

no_gpu = pytest.mark.skipif(mt.cuda.is_available(), reason="CPU-only behaviour")


def test_generator_none_device_is_cpu():
    assert mt.Generator(device=None).device == mt.device("cpu")
    assert mt.Generator(None).manual_seed(0).initial_seed() == 0


def test_cpu_device_module_streams_and_events():
    mod = mt.get_device_module(mt.device("cpu"))
    s = mod.Stream()
    assert mod.current_stream() is not s
    with mod.stream(s) as entered:
        assert entered is None and mod.current_stream() is s
    assert mod.current_stream() is not s
    assert mod.Event().query() is True and mod.is_initialized() is True
    assert mod.set_device("cpu") is None


@no_gpu
def test_xpu_cpu_only_answers():
    x = mt.xpu
    for f in (x.manual_seed, x.manual_seed_all):
        assert f(0) is None
    assert x.seed() is None and x.seed_all() is None and x.empty_cache() is None
    assert x.is_initialized() is False and x.memory_allocated() == 0
    assert x.max_memory_reserved() == 0 and x.memory_stats() == {}
    assert x.get_rng_state_all() == [] and x.default_generators == ()
    for f in (x.synchronize, x.current_device, x.get_device_name, x.init):
        with pytest.raises(AssertionError, match="Torch not compiled with XPU enabled"):
            f()
    with pytest.raises(AttributeError):
        x.reset_peak_memory_stats()


@no_gpu
def test_cuda_legacy_and_monitoring_names():
    c = mt.cuda
    with pytest.warns(FutureWarning, match="max_memory_reserved"):
        assert c.max_memory_cached() == 0
    with pytest.warns(FutureWarning, match="memory_reserved"):
        assert c.memory.memory_cached() == 0
    assert c.memory_stats_as_nested_dict() == {} and dict(c.host_memory_stats()) == {}
    assert c.get_gencode_flags() == "" and c.has_half is True and c._is_in_bad_fork() is False
    assert issubclass(c.CudaError, RuntimeError)
    with pytest.raises(RuntimeError):
        c.graph(None)
    with pytest.raises(RuntimeError):
        c.make_graphed_callables(mt.nn.Linear(1, 1), (mt.zeros(1, 1),))
    try:
        import pynvml  # noqa: F401
    except ImportError:
        with pytest.raises(ModuleNotFoundError, match="nvidia-ml-py"):
            c.utilization()
        assert "pynvml" in c.list_gpu_processes()


def test_get_device_index():
    from minitorch._utils import _get_device_index as generic
    from minitorch.cuda._utils import _get_device_index as cuda_index

    assert generic("cuda:1") == 1 and cuda_index(mt.device("cuda", 2)) == 2 and generic(3) == 3
    assert generic("cpu:0", allow_cpu=True) == -1 and generic("xpu:1") == 1
    with pytest.raises(ValueError, match="Expected a non cpu device, but got: cpu"):
        generic("cpu")
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        cuda_index("cpu")
    with pytest.raises(ValueError, match="with a specified index or an integer, but got:cuda"):
        cuda_index("cuda")


def test_memory_stats_as_nested_dict_splits_keys(monkeypatch):
    from minitorch.cuda import memory

    flat = {"a.all.current": 1, "a.all.peak": 2, "num_ooms": 0}
    monkeypatch.setattr(memory, "memory_stats", lambda device=None: flat)
    assert memory.memory_stats_as_nested_dict() == {
        "a": {"all": {"current": 1, "peak": 2}},
        "num_ooms": 0,
    }


def test_to_indexed_cpu_copies():
    x = mt.zeros(3)
    assert x.to("cpu") is x and x.to(mt.device("cpu")) is x and x.to(mt.float32) is x
    for y in (
        x.to("cpu:0"),
        x.to(mt.device("cpu", 0)),
        x.to(device="cpu:1"),
        x.to("cpu:0", x.dtype),
    ):
        assert y is not x and str(y.device) == "cpu"
        y.add_(1)
    np.testing.assert_array_equal(x.numpy(), np.zeros(3), err_msg="x.to('cpu:0') shared memory")
    w = mt.ones(3, dtype=mt.float64, requires_grad=True)
    assert type(w.to("cpu:0").grad_fn).__name__ == "ToCopyBackward0"
    assert mt.autograd.gradcheck(lambda t: t.to("cpu:0") * 2, (w,))
    m = mt.nn.Linear(1, 1)
    ptr = m.weight.data_ptr()
    m.to("cpu:0")
    assert m.weight.data_ptr() == ptr  # a module's tensors are not copied


def test_scalar_of_grad_warns_once_per_process():
    w = mt.ones(2, requires_grad=True)
    mt._settings._warned_once.discard("scalar_of_grad")
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        float(w.sum())
        float(w[0])
        int(w[1])
    assert len(rec) == 1 and "requires_grad=True to a scalar" in str(rec[0].message)
    mt.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            float(w[0])
            float(w[1])
        assert len(rec) == 2
    finally:
        mt.set_warn_always(False)


def test_device_construction_rules():
    assert mt.device("cuda", np.int64(1)) is mt.device("cuda:1")
    with pytest.raises(TypeError, match="must be int, not numpy.bool"):
        mt.device("cuda", np.bool_(True))
    d = mt.device("cpu")
    with pytest.raises(AttributeError, match="attribute 'type' of 'torch.device' objects is not"):
        d.type = "cuda"
    with pytest.raises(AttributeError, match="'index'"):
        d.index = 1
    assert d.type == "cpu" and d.index is None


@no_gpu
def test_int_device_needs_an_accelerator():
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is"):
        mt.device(0)
    with pytest.raises(RuntimeError, match="Device index must not be negative"):
        mt.device(-1)


def test_autocast_available_device_types():
    for d in ("cpu", "cuda", "xpu", "mps", "hpu"):
        assert mt.amp.is_autocast_available(d) is True
    assert mt.amp.is_autocast_available("meta") is False
    with pytest.raises(RuntimeError, match="Expected one of cpu"):
        mt.amp.is_autocast_available("foo")
    assert mt.get_autocast_dtype("hpu") is mt.bfloat16
    with mt.autocast("xpu"):
        assert mt.is_autocast_enabled("xpu")
        assert (mt.ones(2, 2) @ mt.ones(2, 2)).dtype is mt.float32  # no xpu tensors: no cast
    assert not mt.is_autocast_enabled("xpu")
    with mt.autocast("mps", enabled=False):
        assert not mt.is_autocast_enabled("mps")


@no_gpu
@pytest.mark.parametrize(
    "make",
    [
        lambda: mt.zeros(2, pin_memory=True),
        lambda: mt.ones(2, pin_memory=True),
        lambda: mt.empty(2, pin_memory=True),
        lambda: mt.full((2,), 1.0, pin_memory=True),
        lambda: mt.tensor([1.0], pin_memory=True),
        lambda: mt.randn(2, pin_memory=True),
        lambda: mt.zeros_like(mt.ones(2), pin_memory=True),
        lambda: mt.arange(3, pin_memory=True),
        lambda: mt.linspace(0, 1, 3, pin_memory=True),
        lambda: mt.logspace(0, 1, 3, pin_memory=True),
    ],
)
def test_pin_memory_needs_an_accelerator(make):
    with pytest.raises(RuntimeError, match="no pinned memory allocator is available"):
        make()


@no_gpu
def test_default_cuda_device_is_checked_when_read():
    mt.set_default_device("cuda")
    try:
        with pytest.raises(AssertionError):
            mt.get_default_device()
    finally:
        mt.set_default_device("cpu")
    assert mt.get_default_device() == mt.device("cpu")


def test_accelerator_error_is_a_top_level_runtime_error():
    assert issubclass(mt.AcceleratorError, RuntimeError)
    assert mt.AcceleratorError is mt.accelerator.AcceleratorError


@no_gpu
def test_fork_rng_with_devices_needs_cuda():
    with pytest.raises(AssertionError):
        with mt.random.fork_rng(devices=[0]):
            pass
    with mt.random.fork_rng(devices=[]):
        pass


@pytest.mark.parametrize("kwargs", [{"copy": True}, {"copy": False}])
def test_module_to_refuses_copy(kwargs):
    with pytest.raises(RuntimeError, match=r"\.to\(\) does not accept copy argument"):
        mt.nn.Linear(1, 1).to("cpu", **kwargs)
    with pytest.raises(RuntimeError, match="copy argument"):
        mt.nn.Linear(1, 1).to("cpu", mt.float32, False, True)


def test_sdpa_kernel_without_a_cpu_backend_raises():
    from minitorch.nn.attention import SDPBackend, sdpa_kernel

    q = mt.ones(1, 1, 2, 4)
    sdpa = mt.nn.functional.scaled_dot_product_attention
    for chosen in ([SDPBackend.EFFICIENT_ATTENTION], [SDPBackend.CUDNN_ATTENTION]):
        with sdpa_kernel(chosen), pytest.raises(RuntimeError, match="No viable backend"):
            sdpa(q, q, q)
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.EFFICIENT_ATTENTION]):
        np.testing.assert_allclose(sdpa(q, q, q).numpy(), np.ones((1, 1, 2, 4)))
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        assert sdpa(q, q, q).shape == (1, 1, 2, 4)
        with pytest.raises(RuntimeError, match="No available kernel"):
            sdpa(q, q, q, dropout_p=0.5)
    qg = mt.ones(1, 1, 2, 4, requires_grad=True)
    with sdpa_kernel([SDPBackend.MATH]):
        assert "Flash" not in type(sdpa(qg, qg, qg).grad_fn).__name__
    assert sdpa(q, q, q).shape == (1, 1, 2, 4)  # switches restored


@no_gpu
def test_backends_cuda_preferred_libraries_and_accelerator_memory():
    bc = mt.backends.cuda
    assert str(bc.preferred_linalg_library()) == "_LinalgBackend.Default"
    assert str(bc.preferred_blas_library("default")) == "_BlasBackend.Cublas"
    with pytest.raises(RuntimeError, match="compiled with cuSOLVER"):
        bc.preferred_linalg_library("cusolver")
    with pytest.raises(RuntimeError, match="Unknown input value. Choose from"):
        bc.preferred_blas_library("foo")
    with pytest.raises(RuntimeError, match="Unknown input value type"):
        bc.preferred_linalg_library(1)
    assert issubclass(mt.accelerator.AcceleratorError, RuntimeError)
    with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
        mt.accelerator.memory.memory_allocated()


def test_default_device_keeps_the_index_it_was_given():
    try:
        mt.set_default_device("cpu:0")
        assert repr(mt.get_default_device()) == "device(type='cpu', index=0)"
        assert mt.zeros(1).device == mt.device("cpu")  # tensors hold no CPU index
        mt.set_default_device("cuda:1")  # an explicit index is returned unchecked, as torch
        assert mt.get_default_device() == mt.device("cuda", 1)
    finally:
        mt.set_default_device(None)
    with mt.device("cpu:0"):
        assert mt.get_default_device() == mt.device("cpu", 0)
    assert mt.get_default_device() == mt.device("cpu")
