"""Tests of devices: minitorch.device, the default device, moves between devices, and the
minitorch.cuda module (on CPU-only machines: unavailable, without raising)."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend import CudaUnavailableError, tensor_device
from minitorch._backend.strict import count_transfers

# --- minitorch.device ---


def test_device_parsing_repr_and_str():
    d = mt.device("cuda:1")
    assert repr(d) == "device(type='cuda', index=1)" and str(d) == "cuda:1"
    assert (d.type, d.index) == ("cuda", 1)
    assert mt.device("cuda", 1) is d and mt.device(type="cuda", index=1) is d
    assert repr(mt.device("cpu")) == "device(type='cpu')" and str(mt.device("cpu")) == "cpu"
    assert mt.device("cpu").index is None
    assert repr(mt.device("cpu", 0)) == "device(type='cpu', index=0)"
    assert mt.device("cpu:0") is mt.device("cpu", 0)
    assert mt.device("cuda").index is None
    if mt.cuda.is_available():  # an int names the accelerator: torch refuses it without one
        assert mt.device(2) is mt.device("cuda:2")
    else:
        with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
            mt.device(2)
    assert mt.device(d) is d
    assert isinstance(d, mt.device)


def test_device_equality_and_hashing():
    assert mt.device("cuda:1") == mt.device("cuda", 1)
    assert mt.device("cuda") != mt.device("cuda:0")
    assert mt.device("cpu") != mt.device("cpu:0")
    # As in torch, a device never equals a string.
    assert not (mt.device("cpu") == "cpu") and mt.device("cuda:1") != "cuda:1"
    assert mt.device("cpu") != None  # noqa: E711
    assert {mt.device("cpu"): 1}[mt.device("cpu")] == 1
    assert hash(mt.device("cuda:1")) == hash(mt.device("cuda", 1))


def test_device_pickles_to_the_same_object():
    for spec in ("cpu", "cuda:1", "cuda", "strict", "cpu:0"):
        d = mt.device(spec)
        assert pickle.loads(pickle.dumps(d)) is d


@pytest.mark.parametrize(
    "args, exc, msg",
    [
        (
            ("gpu",),
            RuntimeError,
            "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
            "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of "
            "device string: gpu",
        ),
        (("cuda:x",), RuntimeError, "Invalid device string: 'cuda:x'"),
        (("cuda:01",), RuntimeError, "Invalid device string: 'cuda:01'"),
        (("cuda:",), RuntimeError, "Invalid device string: 'cuda:'"),
        (("cuda:1:2",), RuntimeError, "Invalid device string: 'cuda:1:2'"),
        ((" cuda",), RuntimeError, "Invalid device string: ' cuda'"),
        ((-1,), RuntimeError, "Device index must not be negative"),
        (("cuda", -1), RuntimeError, "Device index must not be negative"),
        (
            ("cuda:1", 1),
            RuntimeError,
            "type \\(string\\) must not include an index because index "
            "was passed explicitly: cuda:1",
        ),
        (
            ("cuda", 1.0),
            TypeError,
            "device\\(\\): argument 'index' \\(position 2\\) must be int, not float",
        ),
        (("cuda", True), TypeError, "must be int, not bool"),
        (
            (None,),
            TypeError,
            "device\\(\\) received an invalid combination of arguments - got \\(NoneType\\)",
        ),
        ((1.5,), TypeError, "invalid combination of arguments - got \\(float\\)"),
        ((True,), TypeError, "invalid combination of arguments - got \\(bool\\)"),
    ],
)
def test_device_errors(args, exc, msg):
    with pytest.raises(exc, match=msg):
        mt.device(*args)


def test_tensors_hold_canonical_devices():
    assert tensor_device("cpu:0") is mt.device("cpu")
    assert tensor_device("cpu:1") is mt.device("cpu")
    assert tensor_device("cuda") is mt.device("cuda", 0)
    assert tensor_device("strict") is mt.device("strict")
    assert mt.ones(2, device="cpu:0").device is mt.device("cpu")
    assert mt.ones(2).to("cpu:1").device is mt.device("cpu")


# --- default device ---


def test_default_device_context(device):
    with mt.device(device):
        t = mt.zeros(2)
        assert t.device == tensor_device(device)
        assert mt.tensor([1, 2]).device == t.device
        assert mt.arange(3).device == t.device
        assert mt.rand(2).device == t.device
        assert mt.get_default_device() == t.device
        assert mt.zeros(2, device="cpu").device == mt.device("cpu")
    assert mt.zeros(2).device == mt.device("cpu")
    assert mt.get_default_device() == mt.device("cpu")


def test_set_default_device():
    try:
        mt.set_default_device("strict")
        assert mt.ones(2).device == mt.device("strict")
        assert mt.get_default_device() == mt.device("strict")
        with mt.device("cpu"):
            assert mt.ones(2).device == mt.device("cpu")
    finally:
        mt.set_default_device(None)
    assert mt.ones(2).device == mt.device("cpu")


# --- moves between devices ---


def test_mixing_devices_in_one_op_names_both():
    msg = (
        "Expected all tensors to be on the same device, but found at least two devices, cpu "
        "and strict"
    )
    with pytest.raises(RuntimeError, match=msg):
        mt.ones(2) + mt.ones(2, device="strict")
    with pytest.raises(RuntimeError, match="strict and cpu"):
        mt.ones(2, device="strict") * mt.ones(2)


def test_to_and_cpu_round_trip(device):
    x = mt.tensor([[1.0, 2.0]])
    y = x.to(device)
    assert y.device == tensor_device(device)
    assert y.to(device) is y  # no move, no copy
    back = y.cpu()
    assert back.device == mt.device("cpu")
    np.testing.assert_array_equal(back.numpy(), x.numpy())
    assert x.cpu() is x


def test_moves_are_differentiable(device):
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x.to(device)
    assert type(y.grad_fn).__name__ == "ToCopyBackward0" or device == "cpu"
    (y * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    assert x.grad.device == mt.device("cpu")


def test_device_moves_count_one_transfer():
    s = mt.ones(3, device="strict")
    with count_transfers() as c:
        s.to("cpu", mt.float64)
    assert c.count == 1
    with count_transfers() as c:
        mt.ones(3).to("strict")
        s.double()
        s.clone()
    assert c.count == 0


def test_fill_with_a_device_scalar_reads_nothing_back():
    s = mt.zeros(2, 3, device="strict")
    v = mt.tensor(2.5, device="strict")
    with count_transfers() as c:
        s.fill_(v)
        s[0].fill_(v * 2)
    assert c.count == 0
    np.testing.assert_array_equal(s.cpu().numpy(), [[5.0] * 3, [2.5] * 3])
    i = mt.zeros(2, dtype=mt.int64, device="strict").fill_(mt.tensor(3.7, device="strict"))
    assert i.cpu().tolist() == [3, 3]  # cast as torch casts: toward zero
    s.fill_(mt.tensor(1.5))  # a CPU 0-d value into a device tensor
    assert s.cpu().numpy().tolist() == [[1.5] * 3] * 2


def test_numpy_of_a_device_tensor_needs_cpu_first():
    s = mt.ones(2, device="strict")
    with pytest.raises(
        TypeError,
        match="can't convert strict device type tensor to numpy. Use "
        r"Tensor.cpu\(\) to copy the tensor to host memory first.",
    ):
        s.numpy()
    np.testing.assert_array_equal(s.numpy(force=True), [1.0, 1.0])
    with pytest.raises(TypeError, match="can't convert strict device type tensor to numpy"):
        np.asarray(s)


def test_type_names_by_device():
    assert mt.ones(2).type() == "torch.FloatTensor"
    assert mt.ones(2, device="strict").long().type() == "torch.strict.LongTensor"
    assert mt.ones(2, device="strict").type("torch.FloatTensor").device == mt.device("cpu")


# --- minitorch.cuda on a machine without a GPU ---

needs_no_gpu = pytest.mark.skipif(mt.cuda.is_available(), reason="this machine has a GPU")


@needs_no_gpu
def test_cuda_is_unavailable_without_raising():
    assert mt.cuda.is_available() is False
    assert mt.cuda.device_count() == 0
    assert mt.cuda.is_initialized() is False
    assert mt.cuda.default_generators == ()
    mt.cuda.manual_seed(1)  # no-ops, as in torch
    mt.cuda.manual_seed_all(1)
    mt.cuda.seed_all()


@needs_no_gpu
@pytest.mark.parametrize(
    "call",
    [
        lambda: mt.ones(2).cuda(),
        lambda: mt.ones(2).to("cuda"),
        lambda: mt.zeros(2, device="cuda"),
        lambda: mt.tensor([1.0], device="cuda:0"),
        lambda: mt.cuda.current_device(),
        lambda: mt.cuda.synchronize(),
        lambda: mt.cuda.get_device_name(),
        lambda: mt.cuda.init(),
        lambda: mt.cuda.set_device(0),
        lambda: mt.cuda.FloatTensor([1.0]),
    ],
)
def test_cuda_use_without_a_gpu_raises_a_clear_error(call):
    with pytest.raises(CudaUnavailableError, match="CUDA is not available: CuPy"):
        call()
    # torch raises AssertionError here; our error is also a RuntimeError
    assert issubclass(CudaUnavailableError, AssertionError)
    assert issubclass(CudaUnavailableError, RuntimeError)


def test_cuda_device_argument_checks():
    with pytest.raises(RuntimeError, match="Invalid device, must be cuda device"):
        mt.ones(2).cuda("cpu")


def test_import_minitorch_does_not_import_cupy():
    code = "import sys, minitorch; print('cupy' in sys.modules, 'ml_dtypes' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.skipif(not mt.cuda.is_available(), reason="needs a GPU")
def test_cuda_when_available():
    assert mt.cuda.device_count() >= 1
    assert isinstance(mt.cuda.get_device_name(), str)
    x = mt.ones(2).cuda()
    assert x.device == mt.device("cuda", 0) and x.is_cuda
    assert repr(x) == "tensor([1., 1.], device='cuda:0')"
    assert x.type() == "torch.cuda.FloatTensor"
    mt.cuda.synchronize()
    assert mt.cuda.current_device() == 0
    assert mt.cuda.is_initialized()
    mt.manual_seed(5)
    a = mt.rand(3, device="cuda").cpu().numpy()
    mt.manual_seed(5)
    np.testing.assert_array_equal(a, mt.rand(3, device="cuda").cpu().numpy())
    assert sorted(mt.randperm(10, device="cuda").tolist()) == list(range(10))
    assert mt.arange(5, device="cuda").tolist() == [0, 1, 2, 3, 4]
    assert mt.cuda.FloatTensor([1.0]).device == mt.device("cuda", 0)


def test_a_zero_dim_cpu_tensor_acts_as_a_number_with_a_device_tensor():
    # torch's cpu-scalar rule: x_cuda * torch.tensor(0.5) works; a 1-element vector does not
    x = mt.ones(3, device="strict", requires_grad=True)
    s = mt.tensor(0.5, requires_grad=True)
    for r in (x * s, x / s, s * x, mt.where(x > 0, x, mt.tensor(0.0)), mt.clamp(x, min=s)):
        assert r.device.type == "strict"
    assert (x > s).device.type == "strict" and (s < x).device.type == "strict"
    (x * s).sum().backward()  # the gradient reaches the CPU scalar on the CPU
    assert s.grad.device.type == "cpu" and s.grad.item() == 3.0
    with pytest.raises(RuntimeError, match="found at least two devices"):
        x * mt.tensor([0.5])


def test_more_ops_take_a_zero_dim_cpu_tensor_with_a_device_tensor():
    f = mt.tensor([3.0, 5.0, 7.0], device="strict")
    i = mt.tensor([0, 1, 2, 3], device="strict")
    b = mt.tensor([False, True, True, False], device="strict")
    two, three = mt.tensor(2.0), mt.tensor(3)
    for r in (f // two, i % three, mt.div(f, two, rounding_mode="floor"), mt.gcd(i, three),
              b & mt.tensor(True), i << three, mt.logical_or(b, mt.tensor(True)),
              mt.isclose(f, mt.tensor(3.0)), mt.heaviside(f, mt.tensor(0.5))):
        assert r.device.type == "strict"


def test_device_placement_of_type_as_and_setitem_values():
    x = mt.zeros(3, 4, device="strict")
    assert mt.ones(2, 3).type_as(x).device.type == "strict"  # torch's self.type(other.type())
    x[0] = mt.ones(4)  # a CPU value is copied across, as torch's copy_
    x[:, 1] = mt.arange(3.0)
    assert x.sum().cpu().item() == 6.0  # row 0 of ones, then column 1 = 0, 1, 2


def test_lstsq_reads_nothing_back_with_its_default_driver():
    a = mt.tensor(np.random.default_rng(0).standard_normal((4, 2)), device="strict")
    b = mt.ones(4, 1, dtype=mt.float64, device="strict")
    with count_transfers() as c:
        mt.linalg.lstsq(a, b)
    assert c.count == 0


def test_a_zero_dim_device_tensor_is_not_pulled_to_the_host():
    # the cpu-scalar rule goes one way only: heaviside moved any 0-d `values` to the input's
    # device, a hidden device-to-host copy for a CPU input
    with pytest.raises(RuntimeError, match="found at least two devices"):
        mt.heaviside(mt.tensor([1.0, 0.0]), mt.tensor(0.5, device="strict"))
