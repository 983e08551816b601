"""Session 23 (amp): autocast and GradScaler mismatches found by differential fuzzing against
torch 2.13 on the CPU. Expected values are literals obtained by running torch."""

import re

import pytest

import minitorch as torch

F = torch.nn.functional


def _raises(exc, msg, fn):
    with pytest.raises(exc, match="^" + re.escape(msg) + "$"):
        fn()


# --- the promote policy (index_copy): torch's prioritize, not the widest dtype ---

_PRIORITIZE = "Unexpected floating ScalarType in at::autocast::prioritize"


def _index_copy(self_dtype, source_dtype):
    x = torch.zeros(4, 3, dtype=self_dtype)
    return x.index_copy(0, torch.tensor([0, 2]), torch.ones(2, 3, dtype=source_dtype))


@pytest.mark.parametrize(
    "low, self_dtype, source_dtype",
    [
        (torch.bfloat16, torch.float16, torch.float32),
        (torch.bfloat16, torch.float16, torch.float16),
        (torch.float16, torch.bfloat16, torch.bfloat16),
    ],
)
def test_index_copy_other_low_dtype_raises_prioritize_error(low, self_dtype, source_dtype):
    with torch.autocast("cpu", dtype=low):
        _raises(RuntimeError, _PRIORITIZE, lambda: _index_copy(self_dtype, source_dtype))


def test_index_copy_float64_is_not_promoted_to():
    # torch passes float64 over: the float32 source stays float32 and the kernel refuses the mix
    msg = (
        "index_copy_(): self and source expected to have the same dtype, but got (self) Double "
        "and (source) Float"
    )
    with torch.autocast("cpu"):
        _raises(RuntimeError, msg, lambda: _index_copy(torch.float64, torch.float32))


def test_in_place_index_copy_is_not_autocast():
    x = torch.zeros(4, 3)
    src = torch.ones(2, 3, dtype=torch.bfloat16)
    msg = (
        "index_copy_(): self and source expected to have the same dtype, but got (self) Float "
        "and (source) BFloat16"
    )
    with torch.autocast("cpu"):
        _raises(RuntimeError, msg, lambda: x.index_copy_(0, torch.tensor([0, 2]), src))
        h = torch.zeros(4, 3, dtype=torch.float16)
        h.index_copy_(0, torch.tensor([0, 2]), torch.ones(2, 3, dtype=torch.float16))
    assert h.dtype is torch.float16 and h.sum().item() == 6.0


# --- tensordot / inner: torch checks the dtypes before the mm it lowers ---


def test_tensordot_inner_mixed_dtypes_raise_under_autocast():
    a = torch.ones(3, 4)
    b = torch.ones(2, 4, dtype=torch.float16)
    with torch.autocast("cpu"):
        _raises(RuntimeError, "both inputs should have same dtype", lambda: torch.inner(a, b))
        _raises(RuntimeError, "both inputs should have same dtype", lambda: torch.inner(b, a))
        _raises(
            RuntimeError, "both inputs should have same dtype", lambda: torch.tensordot(a, b.t(), 1)
        )
        assert torch.inner(a, a[:2]).dtype is torch.bfloat16


def test_tensordot_out_float32_raises_under_autocast():
    a, b = torch.ones(3, 4), torch.ones(4, 2)
    out = torch.zeros(3, 2)
    msg = (
        "tensordot: Expected the output tensor to have dtype BFloat16, but got an output tensor "
        "with dtype Float"
    )
    with torch.autocast("cpu"):
        _raises(RuntimeError, msg, lambda: torch.tensordot(a, b, 1, out=out))
        low = torch.zeros(3, 2, dtype=torch.bfloat16)
        assert torch.tensordot(a, b, 1, out=low) is low
    assert low.sum().item() == 24.0


# --- ops of torch's CPU float32 list that were missing ---


def test_soft_margin_loss_runs_in_float32():
    x = torch.tensor([[0.5, -2.0, 1.5]], dtype=torch.bfloat16)
    y = torch.tensor([[1.0, -1.0, 1.0]])
    with torch.autocast("cpu"):
        loss = F.soft_margin_loss(x, y)
    assert loss.dtype is torch.float32
    assert loss.item() == pytest.approx(0.2674727737903595, rel=1e-6)


def test_fractional_max_pool_and_max_unpool1d_run_in_float32():
    x = torch.arange(25.0).reshape(1, 1, 5, 5).bfloat16()
    x3 = torch.arange(125.0).reshape(1, 1, 5, 5, 5).bfloat16()
    x1 = torch.arange(8.0).reshape(1, 2, 4).bfloat16()
    u = torch.full((1, 1, 2), 0.5, dtype=torch.bfloat16)
    u3 = torch.full((1, 1, 3), 0.5, dtype=torch.bfloat16)
    with torch.autocast("cpu"):
        r2 = F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=u)
        r2i = F.fractional_max_pool2d(x, 2, output_size=3, return_indices=True)[0]
        r3 = F.fractional_max_pool3d(x3, 2, output_size=3, _random_samples=u3)
        o, i = F.max_pool1d(x1, 2, return_indices=True)
        un = F.max_unpool1d(o, i, 2)
    assert (r2.dtype, r2i.dtype, r3.dtype) == (torch.float32,) * 3
    assert o.dtype is torch.bfloat16 and un.dtype is torch.float32
    assert un.tolist() == [[[0.0, 1.0, 0.0, 3.0], [0.0, 5.0, 0.0, 7.0]]]


# --- bilinear on the CPU: torch's _trilinear lowers (through bmm), then keeps the dtype ---

_A = [[0.1, 0.2, 0.3]]
_B = [[0.7, -0.3]]


def _bilinear(bias=None, dtype=torch.float32):
    w = torch.arange(12.0).reshape(2, 3, 2) / 7
    args = (torch.tensor(_A), torch.tensor(_B), w)
    args = tuple(t.to(dtype) for t in args)
    return F.bilinear(*args, None if bias is None else bias.to(dtype))


def test_bilinear_lowers_under_cpu_autocast_and_keeps_input_dtype():
    with torch.autocast("cpu"):
        r = _bilinear()
        rb = _bilinear(torch.tensor([0.01, 0.02]))
        r16 = _bilinear(dtype=torch.float16)
    assert r.dtype is torch.float32 and rb.dtype is torch.float32
    assert r.tolist() == [[0.0654296875, 0.26953125]]  # torch's bfloat16 rounding, two steps
    assert rb.tolist()[0] == pytest.approx([0.07542968541383743, 0.28953126072883606], rel=1e-7)
    assert r16.dtype is torch.float16 and r16.tolist() == [[0.0654296875, 0.26953125]]
    with torch.autocast("cpu", dtype=torch.float16):
        assert _bilinear().tolist() == [[0.06573486328125, 0.271484375]]
    assert _bilinear().tolist()[0] == pytest.approx([0.0657142922282219, 0.27142858505249023])

    a = torch.tensor(_A, requires_grad=True)
    w = torch.ones(2, 3, 2, requires_grad=True)
    with torch.autocast("cpu"):
        out = F.bilinear(a, torch.tensor(_B), w)
    out.sum().backward()
    assert out.dtype is torch.float32
    assert a.grad.dtype is torch.float32 and w.grad.dtype is torch.float32


# --- GradScaler: the scale's products are taken in double, as torch's kernel ---


def _scaler_run(init, backoff, growth, inf_first):
    p = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=0.1)
    s = torch.amp.GradScaler(
        "cpu", init_scale=init, backoff_factor=backoff, growth_factor=growth, growth_interval=1
    )
    scales = []
    for k in range(3):
        opt.zero_grad()
        loss = (p * (float("inf") if (k == 0 and inf_first) else 1.0)).sum()
        s.scale(loss).backward()
        s.step(opt)
        s.update()
        scales.append(s.get_scale())
    return scales, p.tolist()


def test_grad_scaler_backoff_rounds_once():
    scales, params = _scaler_run(3.5, 0.9, 2.0, True)
    assert scales == [3.1500000953674316, 6.300000190734863, 12.600000381469727]
    assert params == [0.7999999523162842, 0.7999999523162842]


def test_grad_scaler_growth_rounds_once():
    scales, params = _scaler_run(3.0, 0.5, 1.1, False)
    assert scales == [3.299999952316284, 3.629999876022339, 3.992999792098999]
    assert params == [0.6999999284744263, 0.6999999284744263]


def test_grad_scaler_update_with_int_fails_on_device_attribute():
    p = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=0.1)
    s = torch.amp.GradScaler("cpu")
    s.scale(p.sum()).backward()
    s.step(opt)
    _raises(AttributeError, "'int' object has no attribute 'device'", lambda: s.update(3))


# --- device types torch knows but autocast does not (meta, mkldnn, ...) ---


def test_autocast_state_functions_on_non_autocast_device_type():
    unknown = "unknown device type for autocast in get_autocast_dispatch_key_from_device_type"
    _raises(RuntimeError, unknown, lambda: torch.is_autocast_enabled("meta"))
    _raises(RuntimeError, unknown, lambda: torch.set_autocast_enabled("mkldnn", True))
    _raises(RuntimeError, "unsupported scalarType", lambda: torch.get_autocast_dtype("lazy"))
    _raises(RuntimeError, "unsupported scalarType", lambda: torch.autocast("vulkan"))
    msg = "User specified an unsupported autocast device_type 'meta'"
    _raises(RuntimeError, msg, lambda: torch.autocast("meta", dtype=torch.bfloat16))
    assert torch.set_autocast_dtype("opengl", torch.float16) is None  # stored, as torch
    assert torch.get_autocast_dtype("opengl") is torch.float16
