"""minitorch.autocast: the state functions, nesting, decorators, and each op's dtype under it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import _autocast_state

LOW = {"cpu": (minitorch.bfloat16, minitorch.float16), "strict": (minitorch.float16,)}
CASES = [(d, dt) for d, dts in LOW.items() for dt in dts]


def _t(*shape, device="cpu", dtype=minitorch.float32, grad=False):
    return minitorch.randn(*shape, dtype=dtype, device=device).requires_grad_(grad)


def test_defaults_and_state_functions():
    assert minitorch.get_autocast_dtype("cpu") is minitorch.bfloat16
    assert minitorch.get_autocast_dtype("cuda") is minitorch.float16
    assert minitorch.get_autocast_cpu_dtype() is minitorch.bfloat16
    assert minitorch.get_autocast_gpu_dtype() is minitorch.float16
    assert not minitorch.is_autocast_enabled("cpu") and not minitorch.is_autocast_enabled()
    assert not minitorch.is_autocast_cpu_enabled() and minitorch.is_autocast_cache_enabled()
    assert not _autocast_state.state.any_enabled
    minitorch.set_autocast_enabled("cpu", True)
    try:
        assert _autocast_state.state.any_enabled and minitorch.is_autocast_enabled("cpu")
    finally:
        minitorch.set_autocast_enabled("cpu", False)
    assert not _autocast_state.state.any_enabled
    assert minitorch.autocast_increment_nesting() == 1
    assert minitorch.autocast_decrement_nesting() == 0


def test_nesting_restores_every_field():
    with minitorch.autocast("cpu", dtype=minitorch.float16, cache_enabled=False) as ac:
        assert isinstance(ac, minitorch.autocast)
        assert minitorch.get_autocast_dtype("cpu") is minitorch.float16
        assert not minitorch.is_autocast_cache_enabled()
        with minitorch.autocast("cpu", enabled=False):
            assert not minitorch.is_autocast_enabled("cpu")
            assert minitorch.mm(_t(2, 3), _t(3, 2)).dtype is minitorch.float32
            with minitorch.autocast("cpu"):  # dtype None: the current default, float16 here
                assert minitorch.get_autocast_dtype("cpu") is minitorch.float16
                assert minitorch.mm(_t(2, 3), _t(3, 2)).dtype is minitorch.float16
        assert minitorch.is_autocast_enabled("cpu")
    assert not minitorch.is_autocast_enabled("cpu")
    assert minitorch.get_autocast_dtype("cpu") is minitorch.bfloat16
    assert minitorch.is_autocast_cache_enabled() and not _autocast_state.state.any_enabled


def test_state_is_restored_after_an_exception():
    with pytest.raises(ValueError, match="boom"):
        with minitorch.autocast("cpu"):
            raise ValueError("boom")
    assert not minitorch.is_autocast_enabled("cpu") and not _autocast_state.state.any_enabled
    assert _autocast_state.state.nesting == 0


def test_an_op_that_raises_leaves_autocast_on():
    with minitorch.autocast("cpu"):
        with pytest.raises(RuntimeError, match="cannot be multiplied|shapes"):
            minitorch.mm(_t(2, 3), _t(4, 2))
        assert _autocast_state.state.any_enabled
    assert not _autocast_state.state.any_enabled


def test_the_state_is_per_thread():
    import threading

    seen = []
    with minitorch.autocast("cpu"):
        t = threading.Thread(target=lambda: seen.append(minitorch.is_autocast_enabled("cpu")))
        t.start()
        t.join()
        assert minitorch.is_autocast_enabled("cpu")
    assert seen == [False]


def test_decorator_on_functions():
    @minitorch.autocast("cpu", dtype=minitorch.float16)
    def f(a, b):
        assert minitorch.is_autocast_enabled("cpu")
        return a @ b

    assert f(_t(2, 3), _t(3, 4)).dtype is minitorch.float16
    assert not minitorch.is_autocast_enabled("cpu")
    with pytest.raises(TypeError, match="requires a callable"):
        minitorch.autocast("cpu")(3)


def test_bad_arguments():
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        minitorch.autocast(minitorch.device("cpu"))
    with pytest.raises(RuntimeError, match="device type at start of device string: tpu"):
        minitorch.autocast("tpu")
    with pytest.raises(TypeError, match="argument 'device_type' .* must be str, not int"):
        minitorch.get_autocast_dtype(3)
    assert minitorch.amp.is_autocast_available("cpu")
    with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported"):
        ac = minitorch.autocast("cpu", dtype=minitorch.float64)
    with ac:
        assert not minitorch.is_autocast_enabled("cpu")


@pytest.mark.skipif(minitorch.cuda.is_available(), reason="checks the CPU-only behaviour")
def test_cuda_autocast_without_cuda_warns_and_disables():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        ac = minitorch.autocast("cuda")
    with ac:
        assert not minitorch.is_autocast_enabled("cuda")
        assert not _autocast_state.state.any_enabled


def test_deprecated_spellings_warn():
    with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
        ac = minitorch.cpu.amp.autocast()
    with ac:
        assert minitorch.get_autocast_dtype("cpu") is minitorch.bfloat16
        assert minitorch.is_autocast_enabled("cpu")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        minitorch.cuda.amp.autocast(enabled=False)
    assert w[0].category is FutureWarning and "torch.cuda.amp.autocast" in str(w[0].message)


# --- dtypes of the ops under autocast ---

LOWER_OPS = {
    "matmul": lambda d: minitorch.matmul(_t(2, 3, 4, device=d), _t(4, 5, device=d)),
    "@": lambda d: _t(3, 4, device=d) @ _t(4, 5, device=d),
    "mm": lambda d: minitorch.mm(_t(3, 4, device=d), _t(4, 5, device=d)),
    "bmm": lambda d: minitorch.bmm(_t(2, 3, 4, device=d), _t(2, 4, 5, device=d)),
    "addmm": lambda d: minitorch.addmm(_t(5, device=d), _t(3, 4, device=d), _t(4, 5, device=d)),
    "baddbmm": lambda d: minitorch.baddbmm(
        _t(2, 3, 5, device=d), _t(2, 3, 4, device=d), _t(2, 4, 5, device=d)
    ),
    "addbmm": lambda d: minitorch.addbmm(
        _t(3, 5, device=d), _t(2, 3, 4, device=d), _t(2, 4, 5, device=d)
    ),
    "linear": lambda d: F.linear(_t(2, 3, 4, device=d), _t(5, 4, device=d), _t(5, device=d)),
    "prelu": lambda d: F.prelu(_t(2, 3, 4, device=d), _t(3, device=d)),
}

FP32_OPS = {  # given low-precision inputs, these run in float32 on every device type
    "cross_entropy": lambda d, dt: F.cross_entropy(
        _t(4, 3, device=d, dtype=dt), minitorch.tensor([0, 2, 1, 0], device=d)
    ),
    "nll_loss": lambda d, dt: F.nll_loss(
        _t(4, 3, device=d, dtype=dt), minitorch.tensor([0, 2, 1, 0], device=d)
    ),
    "mse_loss": lambda d, dt: F.mse_loss(_t(4, 3, device=d, dtype=dt), _t(4, 3, device=d)),
    "l1_loss": lambda d, dt: F.l1_loss(_t(4, 3, device=d, dtype=dt), _t(4, 3, device=d)),
    "smooth_l1_loss": lambda d, dt: F.smooth_l1_loss(
        _t(4, 3, device=d, dtype=dt), _t(4, 3, device=d, dtype=dt)
    ),
    "huber_loss": lambda d, dt: F.huber_loss(_t(4, device=d, dtype=dt), _t(4, device=d)),
    "bce_with_logits": lambda d, dt: F.binary_cross_entropy_with_logits(
        _t(4, device=d, dtype=dt), minitorch.rand(4, device=d).to(dt)
    ),
    "kl_div": lambda d, dt: F.kl_div(
        _t(4, device=d, dtype=dt), minitorch.rand(4, device=d).to(dt), reduction="sum"
    ),
    "poisson_nll_loss": lambda d, dt: F.poisson_nll_loss(
        _t(4, device=d, dtype=dt), minitorch.rand(4, device=d).to(dt)
    ),
}

FP32_CUDA_OPS = {  # float32 on CUDA-like device types, unchanged on the CPU (as torch)
    "softmax": lambda d, dt: F.softmax(_t(2, 3, device=d, dtype=dt), dim=-1),
    "log_softmax": lambda d, dt: F.log_softmax(_t(2, 3, device=d, dtype=dt), dim=-1),
    "softmin": lambda d, dt: F.softmin(_t(2, 3, device=d, dtype=dt), dim=-1),
}


@pytest.mark.parametrize("name", sorted(LOWER_OPS))
@pytest.mark.parametrize(("device", "low"), CASES)
def test_lower_precision_ops(name, device, low):
    assert LOWER_OPS[name](device).dtype is minitorch.float32
    with minitorch.autocast(device, dtype=low):
        out = LOWER_OPS[name](device)
    assert out.dtype is low, name
    assert out.device.type == device


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_vector_products_are_lowered_on_cuda_like_devices_only(device):
    with minitorch.autocast(device, dtype=minitorch.float16):
        mv = minitorch.mv(_t(3, 4, device=device), _t(4, device=device))
        addmv = minitorch.addmv(_t(3, device=device), _t(3, 4, device=device), _t(4, device=device))
    want = minitorch.float16 if device == "strict" else minitorch.float32
    assert mv.dtype is want and addmv.dtype is want


@pytest.mark.parametrize("name", sorted(FP32_OPS))
@pytest.mark.parametrize(("device", "low"), CASES)
def test_float32_ops(name, device, low):
    with minitorch.autocast(device, dtype=low):
        out = FP32_OPS[name](device, low)
    assert out.dtype is minitorch.float32, name


@pytest.mark.parametrize("name", sorted(FP32_CUDA_OPS))
@pytest.mark.parametrize(("device", "low"), CASES)
def test_softmax_family(name, device, low):
    with minitorch.autocast(device, dtype=low):
        out = FP32_CUDA_OPS[name](device, low)
        given = F.softmax(_t(2, 3, device=device, dtype=low), dim=-1, dtype=low)
    assert out.dtype is (minitorch.float32 if device == "strict" else low), name
    assert given.dtype is low  # an explicit dtype is never overridden


def test_binary_cross_entropy_refused_on_cuda_like_devices_only():
    p = minitorch.rand(4, device="strict").to(minitorch.float16)
    with minitorch.autocast("strict"):
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            F.binary_cross_entropy(p, p)
    with minitorch.autocast("cpu"):
        q = minitorch.rand(4).to(minitorch.bfloat16)
        assert F.binary_cross_entropy(q, q).dtype is minitorch.float32


def test_float64_and_integer_inputs_are_not_cast():
    with minitorch.autocast("cpu"):
        assert minitorch.mm(_t(2, 3).double(), _t(3, 2).double()).dtype is minitorch.float64
        i = minitorch.ones(2, 2, dtype=minitorch.int64)
        assert minitorch.mm(i, i).dtype is minitorch.int64


def test_other_device_types_are_untouched():
    with minitorch.autocast("cpu"):
        assert minitorch.mm(_t(2, 3, device="strict"), _t(3, 2, device="strict")).dtype is (
            minitorch.float32
        )
    with minitorch.autocast("strict"):
        assert minitorch.mm(_t(2, 3), _t(3, 2)).dtype is minitorch.float32


@pytest.mark.parametrize(("device", "low"), CASES)
def test_gradients_come_back_in_the_parameters_dtype(device, low):
    x = _t(4, 3, device=device, grad=True)
    w = _t(5, 3, device=device, grad=True)
    b = _t(5, device=device, grad=True)
    with minitorch.autocast(device, dtype=low):
        out = F.linear(x, w, b)
        loss = F.mse_loss(out, minitorch.zeros(4, 5, device=device))
    assert out.dtype is low and loss.dtype is minitorch.float32
    loss.backward()
    for t in (x, w, b):
        assert t.grad is not None and t.grad.dtype is minitorch.float32
    # the value matches float32 within the low dtype's precision
    ref = ((x.detach() @ w.detach().t() + b.detach()) ** 2).mean()
    tol = 5e-2 if low is minitorch.bfloat16 else 1e-2
    np.testing.assert_allclose(
        loss.detach().cpu().numpy(), ref.cpu().numpy(), rtol=tol, err_msg=str(low)
    )


def test_weights_are_cast_once_per_region_and_the_cache_is_cleared():
    w = _t(3, 3, grad=True)
    with minitorch.autocast("cpu"):
        a = minitorch.mm(_t(2, 3), w)
        b = minitorch.mm(_t(2, 3), w)
        assert len(_autocast_state.state.cache) == 1
        # both products hang off the same cast node
        assert a.grad_fn.next_functions[1][0] is b.grad_fn.next_functions[1][0]
    assert len(_autocast_state.state.cache) == 0
    (a.float().sum() + b.float().sum()).backward()
    assert w.grad.dtype is minitorch.float32
    with minitorch.autocast("cpu", cache_enabled=False):
        minitorch.mm(_t(2, 3), w)
        assert len(_autocast_state.state.cache) == 0
    with minitorch.autocast("cpu"), minitorch.no_grad():
        minitorch.mm(_t(2, 3), w)
        assert len(_autocast_state.state.cache) == 0


def test_custom_fwd_and_bwd():
    seen = {}

    class Square(minitorch.autograd.Function):
        @staticmethod
        @minitorch.amp.custom_fwd(device_type="cpu", cast_inputs=minitorch.float32)
        def forward(ctx, x):
            seen["fwd"] = (x.dtype, minitorch.is_autocast_enabled("cpu"))
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @minitorch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            seen["bwd"] = minitorch.is_autocast_enabled("cpu")
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = _t(3, dtype=minitorch.bfloat16, grad=True)
    with minitorch.autocast("cpu"):
        y = Square.apply(x)
    assert seen["fwd"] == (minitorch.float32, False) and y.dtype is minitorch.float32
    y.sum().backward()
    assert seen["bwd"] is False and x.grad.dtype is minitorch.bfloat16
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        minitorch.amp.custom_fwd(device_type=None)


def test_disabled_autocast_is_a_pass_through():
    a, b = _t(3, 4), _t(4, 2)
    with minitorch.autocast("cpu", enabled=False):
        out = a @ b
        assert not _autocast_state.state.any_enabled
    np.testing.assert_array_equal(out.numpy(), (a @ b).numpy())


def test_import_minitorch_does_not_import_amp():
    import subprocess
    import sys

    code = "import sys, minitorch; print('minitorch.amp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_deprecated_cuda_custom_fwd_bwd_warn_and_work():
    with pytest.warns(FutureWarning, match=r"torch.cuda.amp.custom_fwd\(args...\)` is deprecated"):
        fwd = minitorch.cuda.amp.custom_fwd(lambda ctx, x: x * 2)
    with pytest.warns(FutureWarning, match=r"torch.cuda.amp.custom_bwd\(args...\)` is deprecated"):
        bwd = minitorch.cuda.amp.custom_bwd(lambda ctx, g: g * 2)

    class Ctx:
        pass

    ctx = Ctx()
    assert fwd(ctx, 3) == 6 and ctx._fwd_used_autocast is False
    assert bwd(ctx, 4) == 8
