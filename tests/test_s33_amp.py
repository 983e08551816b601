"""Session 33 (helper amp): torch-free regression tests of the library fixes the mixed-precision
programs of tests/reference/test_s33_amp_reference.py found: MultiheadAttention's weights under
CPU autocast (torch's baddbmm lowers the mask with the scores), TransformerEncoderLayer's output
dtype on torch's eval fast path under CPU autocast, the autocast state functions' argument
errors and device strings with an index, out= and in-place variants of listed ops left uncast
(torch lists functional overloads only), and torch.device's message for an unknown type with an
index. torch's messages and dtypes are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

nn = mt.nn


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _seeded(module, seed):
    g = mt.Generator().manual_seed(seed)
    with mt.no_grad():
        for p in module.parameters():
            p.copy_(mt.randn(p.shape, generator=g) * 0.3)
    return module


def _x(seed, *shape):
    return mt.randn(*shape, generator=mt.Generator().manual_seed(seed))


# --- MultiheadAttention's weights: one baddbmm of the mask, lowered by autocast ---


@pytest.mark.parametrize("low", [mt.bfloat16, mt.float16])
def test_mha_weights_with_a_mask_have_the_autocast_dtype(low):
    mha = _seeded(nn.MultiheadAttention(8, 2, batch_first=True), 1)
    q, kv = _x(2, 2, 3, 8), _x(3, 2, 4, 8)
    mask = mt.tensor([[False, False, True, False], [False, True, False, False]])
    want_out, want_w = mha(q, kv, kv, key_padding_mask=mask)
    with mt.autocast("cpu", dtype=low):
        out, w = mha(q, kv, kv, key_padding_mask=mask)
        _, w_attn = mha(q, kv, kv, attn_mask=mt.zeros(3, 4))
    assert (out.dtype, w.dtype, w_attn.dtype) == (low, low, low)
    tol = 2e-2 if low is mt.bfloat16 else 4e-3
    np.testing.assert_allclose(w.float().detach().numpy(), want_w.detach().numpy(), atol=tol)
    np.testing.assert_allclose(out.float().detach().numpy(), want_out.detach().numpy(), atol=tol)
    assert float(w[0, :, 2].detach().abs().max()) == 0.0  # the masked key gets no weight


def test_mha_weights_gradient_flows_through_the_float_mask():
    mha = _seeded(nn.MultiheadAttention(4, 2, dtype=mt.float64), 4)
    x = _x(5, 3, 1, 4).double()
    mask = mt.zeros(3, 3, dtype=mt.float64, requires_grad=True)
    _, w = mha(x, x, x, attn_mask=mask)
    (w * _x(6, 1, 3, 3).double()).sum().backward()
    assert mask.grad is not None and mask.grad.shape == (3, 3)
    assert float(mask.grad.abs().sum()) > 0

    def weights(q, m):
        return mha(q, x, x, attn_mask=m)[1]

    q = _x(7, 3, 1, 4).double().requires_grad_(True)
    m = (_x(8, 3, 3) * 0.5).double().requires_grad_(True)
    assert mt.autograd.gradcheck(weights, (q, m))
    assert mt.autograd.gradgradcheck(weights, (q, m))


# --- TransformerEncoderLayer: torch's eval fast path gives the autocast dtype ---


def _layer(norm_first=False):
    layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True, norm_first=norm_first)
    return _seeded(layer, 7).eval()


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("low", [mt.bfloat16, mt.float16])
def test_encoder_layer_fast_path_under_cpu_autocast(low, norm_first):
    layer, x = _layer(norm_first), _x(8, 2, 5, 8)
    with mt.no_grad():
        want = layer(x)
        with mt.autocast("cpu", dtype=low):
            got = layer(x)
            enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)(x)
    assert (got.dtype, enc.dtype) == (low, low)
    tol = 5e-2 if low is mt.bfloat16 else 1e-2
    np.testing.assert_allclose(got.float().numpy(), want.numpy(), atol=tol)


def test_encoder_layer_off_the_fast_path_stays_float32():
    layer, x = _layer(), _x(9, 2, 5, 8)
    with mt.autocast("cpu", dtype=mt.bfloat16):
        assert layer(x).dtype is mt.float32  # grad enabled, parameters require grad
        with mt.no_grad():
            hook = layer.register_forward_pre_hook(lambda m, a: None)
            assert layer(x).dtype is mt.float32  # a hook: torch's composed path
            hook.remove()
            layer.train()
            assert layer(x).dtype is mt.float32
            layer.eval()
            mt.backends.mha.set_fastpath_enabled(False)
            try:
                assert layer(x).dtype is mt.float32
            finally:
                mt.backends.mha.set_fastpath_enabled(True)
            assert layer(x).dtype is mt.bfloat16
            assert layer(x[0]).dtype is mt.float32  # unbatched


# --- the autocast state functions ---


def test_state_functions_argument_errors():
    assert _message(TypeError, lambda: mt.set_autocast_enabled("cpu", 1)) == (
        "set_autocast_enabled(): argument 'enabled' (position 2) must be bool, not int"
    )
    assert _message(TypeError, lambda: mt.set_autocast_enabled(None)) == (
        "set_autocast_enabled(): argument 'enabled' (position 1) must be bool, not NoneType"
    )
    assert _message(TypeError, lambda: mt.set_autocast_enabled("cpu")) == (
        "set_autocast_enabled(): argument 'enabled' (position 1) must be bool, not str"
    )
    assert _message(TypeError, lambda: mt.set_autocast_dtype("cpu", "bfloat16")) == (
        "set_autocast_dtype(): argument 'dtype' (position 2) must be torch.dtype, not str"
    )
    assert _message(TypeError, lambda: mt.set_autocast_cache_enabled(1)) == (
        "enabled must be a bool (got int)"
    )
    assert _message(TypeError, lambda: mt.is_autocast_enabled(None)) == (
        "is_autocast_enabled(): argument 'device_type' (position 1) must be str, not NoneType"
    )
    assert mt.is_autocast_enabled("cpu") is False and mt.is_autocast_cache_enabled() is True


def test_entering_autocast_checks_its_arguments_in_torchs_order():
    def enter(ac):
        with ac:
            pass

    msg = _message(TypeError, lambda: enter(mt.autocast("cpu", enabled=1)))
    assert msg == "set_autocast_enabled(): argument 'enabled' (position 2) must be bool, not int"
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        ac = mt.autocast("cpu", dtype="bfloat16")
    msg = _message(TypeError, lambda: enter(ac))
    assert msg == "set_autocast_dtype(): argument 'dtype' (position 2) must be torch.dtype, not str"
    nesting = mt.autocast_increment_nesting() - 1
    mt.autocast_decrement_nesting()
    try:
        msg = _message(TypeError, lambda: enter(mt.autocast("cpu", cache_enabled=0)))
        assert msg == "enabled must be a bool (got int)"
        # as torch: the setters before the failing one have run
        assert mt.is_autocast_enabled("cpu") is True
        assert mt.autocast_decrement_nesting() == nesting
    finally:
        mt.set_autocast_enabled("cpu", False)
        mt.set_autocast_cache_enabled(True)


def test_device_strings_with_an_index():
    x = mt.ones(2, 2)
    with mt.autocast("cpu:0", dtype=mt.float16):
        assert mt.is_autocast_enabled("cpu") and mt.is_autocast_enabled("cpu:1")
        assert mt.get_autocast_dtype("cpu:0") is mt.float16
        assert (x @ x).dtype is mt.float16
    assert not mt.is_autocast_enabled("cpu")
    assert mt.get_autocast_dtype("cpu") is mt.bfloat16
    ac = mt.autocast("cuda:0")  # torch warns only for the plain "cuda"
    assert ac.device == "cuda:0" and ac.fast_dtype is mt.float16
    with ac:
        assert mt.is_autocast_enabled("cuda") and not mt.is_autocast_enabled("cpu")
    assert not mt.is_autocast_enabled()
    assert _message(RuntimeError, lambda: mt.is_autocast_enabled("cpu:x")) == (
        "Invalid device string: 'cpu:x'"
    )
    assert _message(RuntimeError, lambda: mt.is_autocast_enabled("meta:0")) == (
        "unknown device type for autocast in get_autocast_dispatch_key_from_device_type"
    )
    mt.set_autocast_enabled(True)  # the one-argument form: CUDA's
    try:
        assert mt.is_autocast_enabled() and mt.is_autocast_enabled("cuda")
    finally:
        mt.set_autocast_enabled(enabled=False)
    assert not mt.is_autocast_enabled("cuda")


def test_unknown_device_type_with_an_index_names_the_type():
    want = (
        "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
        "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of "
        "device string: gpu"
    )
    assert _message(RuntimeError, lambda: mt.device("gpu:0")) == want
    assert _message(RuntimeError, lambda: mt.autocast("gpu:1")) == want
    assert _message(RuntimeError, lambda: mt.device("Cuda:0")).endswith("device string: Cuda")


# --- out= and in-place variants: not on torch's autocast lists ---


def _exact(got, want):
    assert got.dtype is mt.float32
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-6)


def test_out_and_inplace_variants_are_not_cast():
    a, b, c = _x(10, 3, 4), _x(11, 4, 3), _x(12, 3, 3)
    ba, bb = _x(13, 2, 3, 4), _x(14, 2, 4, 3)
    want = {
        "mm": a @ b, "addmm": mt.addmm(c, a, b, beta=0.5), "bmm": mt.bmm(ba, bb),
        "baddbmm": mt.baddbmm(c, ba, bb, alpha=2.0), "addbmm": mt.addbmm(c, ba, bb),
        "addmv": mt.addmv(c[0], a, b[:, 0]), "prod": c.prod(0),
    }  # fmt: skip
    with mt.autocast("cpu", dtype=mt.bfloat16):
        assert (a @ b).dtype is mt.bfloat16  # the functional overload is cast
        _exact(mt.mm(a, b, out=mt.empty(3, 3)), want["mm"])
        _exact(mt.matmul(a, b, out=mt.empty(3, 3)), want["mm"])
        _exact(mt.bmm(ba, bb, out=mt.empty(2, 3, 3)), want["bmm"])
        _exact(mt.addmm(c, a, b, beta=0.5, out=mt.empty(3, 3)), want["addmm"])
        _exact(mt.baddbmm(c, ba, bb, alpha=2.0, out=mt.empty(2, 3, 3)), want["baddbmm"])
        _exact(mt.prod(c, 0, out=mt.empty(3)), want["prod"])
        _exact(c.clone().addmm_(a, b, beta=0.5), want["addmm"])
        _exact(c.expand(2, 3, 3).clone().baddbmm_(ba, bb, alpha=2.0), want["baddbmm"])
        _exact(c.clone().addbmm_(ba, bb), want["addbmm"])
        _exact(c[0].clone().addmv_(a, b[:, 0]), want["addmv"])
        msg = _message(RuntimeError, lambda: mt.mm(a, b, out=mt.empty(3, 3, dtype=mt.bfloat16)))
        assert msg == "Expected out tensor to have dtype float, but got c10::BFloat16 instead"
        assert (a @ b).dtype is mt.bfloat16  # autocast is back on after the in-place ops
        _exact(mt.linalg.multi_dot([a, b], out=mt.empty(3, 3)), want["mm"])
        out = mt.empty(3, 3, dtype=mt.bfloat16)
        msg = _message(RuntimeError, lambda: mt.linalg.multi_dot([a, b], out=out))
        assert msg == "multi_dot(): expected out tensor to have dtype float but got c10::BFloat16"
        # tensordot's and inner's out= kernels call the functional op, which autocast casts
        low = mt.empty(3, 3, dtype=mt.bfloat16)
        assert mt.tensordot(a, b, 1, out=low) is low
        msg = _message(RuntimeError, lambda: mt.inner(a, a, out=mt.empty(3, 3)))
        assert msg == (
            "tensordot: Expected the output tensor to have dtype BFloat16, but got an output "
            "tensor with dtype Float"
        )


def test_inplace_addmm_under_autocast_records_an_exact_gradient():
    a, b, c = _x(15, 3, 4).double(), _x(16, 4, 3).double(), _x(17, 3, 3)
    w = c.clone().requires_grad_(True)
    with mt.autocast("cpu", dtype=mt.float16):
        y = w * 1.0
        y.addmm_(a.float(), b.float())
    assert y.dtype is mt.float32 and type(y.grad_fn).__name__ == "AddmmBackward0"
    g = _x(18, 3, 3)
    y.backward(g)
    _exact(w.grad, g)
