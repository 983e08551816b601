"""Edge cases CV models reach: interpolate with a scale_factor that leaves a size unchanged,
batch/instance norm of an empty batch, double backward through prelu and padding (zero
gradients, not None), and hardsigmoid's backward constant."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck


def _np(t):
    return t.detach().cpu().numpy()


# --- interpolate: torch's rule for a dim whose size a scale_factor leaves unchanged ---
# (NOTE [ Unchanged sizes ]): linear modes copy that dim; nearest copies it (and maps a doubled
# size to i // 2) in 2-d only; bicubic and nearest-exact always resample. The reference below
# computes torch's kernels in NumPy, indices and weights in float32 as torch does.

_F32 = np.float32


def _nearest_ref(L, o, s, n, exact):
    if not exact and n == 2 and o == L:
        return np.arange(o)
    if not exact and n == 2 and o == 2 * L:
        return np.arange(o) // 2
    i = np.arange(o, dtype=_F32) + (_F32(0.5) if exact else _F32(0))
    return np.minimum(np.floor(i * _F32(1.0 / s)).astype(np.int64), L - 1)


def _linear_ref(x, axis, L, o, s):
    if o == L:
        return x
    src = np.maximum((np.arange(o, dtype=_F32) + _F32(0.5)) * _F32(1.0 / s) - _F32(0.5), 0)
    i0 = np.floor(src).astype(np.int64)
    l1 = (src - i0).astype(_F32)
    i1 = np.minimum(i0 + 1, L - 1)
    shape = [1] * x.ndim
    shape[axis] = o
    l1 = l1.reshape(shape)
    return np.take(x, i0, axis) * (1 - l1) + np.take(x, i1, axis) * l1


def _cubic_ref(x, axis, L, o, s):
    a = -0.75
    src = (np.arange(o, dtype=_F32) + _F32(0.5)) * _F32(1.0 / s) - _F32(0.5)
    base = np.floor(src)
    t = (src - base).astype(np.float64)
    base = base.astype(np.int64)

    def near(v):
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def far(v):
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a

    shape = [1] * x.ndim
    shape[axis] = o
    out = 0.0
    for k, w in enumerate((far(t + 1), near(t), near(1 - t), far(2 - t))):
        out = out + np.take(x, np.clip(base + k - 1, 0, L - 1), axis) * w.reshape(shape)
    return out


def _interp_ref(x, mode, scales):
    n = x.ndim - 2
    out = x.astype(np.float64)
    for d in range(n - 1, -1, -1):
        axis = 2 + d
        L, s = x.shape[axis], scales[d]
        o = math.floor(L * s)
        if mode.startswith("nearest"):
            idx = _nearest_ref(L, o, s, n, mode == "nearest-exact")
            out = np.take(out, idx, axis)
        elif mode == "bicubic":
            out = _cubic_ref(out, axis, L, o, s)
        else:
            out = _linear_ref(out, axis, L, o, s)
    return out


_SCALES = (0.6, 0.95, 1.05, 1.1, 1.2, 1.3, 1.45, 1.5, 1.9, 2.1, 2.5)
_MODES = [
    ("linear", 1),
    ("bilinear", 2),
    ("trilinear", 3),
    ("bicubic", 2),
    ("nearest", 1),
    ("nearest", 2),
    ("nearest", 3),
    ("nearest-exact", 1),
    ("nearest-exact", 2),
    ("nearest-exact", 3),
]


def _scale_cases(n, seed, count=40):
    """(shape, scales): random sizes 1..9 (1..5 in 3-d) and scales, many leaving a size
    unchanged (5 at 1.1, 3 at 1.3) or doubling it (4 at 2.1)."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        shape = tuple(int(v) for v in rng.integers(1, 10 if n < 3 else 6, n))
        scales = tuple(float(rng.choice(_SCALES)) for _ in range(n))
        if all(math.floor(L * s) >= 1 for L, s in zip(shape, scales, strict=True)):
            cases.append((shape, scales))
    return cases


@pytest.mark.parametrize("mode,n", _MODES, ids=[f"{m}-{n}d" for m, n in _MODES])
def test_interpolate_scale_factor_matches_torch_rule(mode, n):
    rng = np.random.default_rng(n)
    unchanged = 0
    for shape, scales in _scale_cases(n, seed=len(mode) * 10 + n):
        x = rng.standard_normal((1, 2) + shape).astype(np.float32)
        kw = {} if mode.startswith("nearest") else {"align_corners": False}
        out = F.interpolate(mt.tensor(x), scale_factor=scales, mode=mode, **kw)
        expected = _interp_ref(x, mode, scales)
        np.testing.assert_allclose(
            _np(out), expected, rtol=1e-5, atol=1e-5, err_msg=f"{mode} {shape} {scales}"
        )
        unchanged += any(math.floor(L * s) == L for L, s in zip(shape, scales, strict=True))
    assert unchanged >= 5  # the cases this test is about are in the sample


def test_interpolate_unchanged_size_literal_values(device):
    x = mt.arange(5.0, device=device).view(1, 1, 5)
    for mode, view in (
        ("linear", (1, 1, 5)),
        ("bilinear", (1, 1, 1, 5)),
        ("trilinear", (1, 1, 1, 1, 5)),
        ("nearest", (1, 1, 1, 5)),
    ):  # torch 2.13: the dim is copied
        out = F.interpolate(x.view(view), scale_factor=1.1, mode=mode)
        np.testing.assert_array_equal(_np(out).ravel(), [0, 1, 2, 3, 4], err_msg=mode)
    for view in ((1, 1, 5), (1, 1, 1, 1, 5)):  # 1-d and 3-d nearest resample: floor(i / 1.1)
        out = F.interpolate(x.view(view), scale_factor=1.1, mode="nearest")
        np.testing.assert_array_equal(_np(out).ravel(), [0, 0, 1, 2, 3], err_msg=str(view))
    # a doubled size: 1-d nearest floor(i / 2.1), not i // 2
    out = F.interpolate(mt.arange(4.0, device=device).view(1, 1, 4), scale_factor=2.1)
    np.testing.assert_array_equal(_np(out).ravel(), [0, 0, 0, 1, 1, 2, 2, 3])


def test_interpolate_unchanged_dim_beside_a_resampled_one():
    # a 3x9 image at scale 1.3 -> 3x11: rows copied, columns resampled with 1 / 1.3
    x = np.arange(27, dtype=np.float32).reshape(1, 1, 3, 9)
    out = F.interpolate(mt.tensor(x), scale_factor=1.3, mode="bilinear")
    assert tuple(out.shape) == (1, 1, 3, 11)
    np.testing.assert_allclose(_np(out), _interp_ref(x, "bilinear", (1.3, 1.3)), atol=1e-5)
    np.testing.assert_array_equal(_np(out)[0, 0, :, 0], [0, 9, 18])


@pytest.mark.parametrize("dtype", [mt.float64, mt.float16, mt.bfloat16])
def test_interpolate_unchanged_size_other_dtypes(dtype):
    x = mt.arange(5.0).view(1, 1, 5).to(dtype)
    out = F.interpolate(x, scale_factor=1.1, mode="linear")
    assert out.dtype is dtype
    np.testing.assert_array_equal(_np(out.double()).ravel(), [0, 1, 2, 3, 4])


def test_interpolate_unchanged_size_is_a_new_tensor_with_the_node():
    x = mt.randn(1, 2, 5, dtype=mt.float64, requires_grad=True)
    before = _np(x).copy()
    out = F.interpolate(x, scale_factor=1.1, mode="linear")
    assert out is not x and out.grad_fn.name() == "UpsampleLinear1DBackward0"
    np.testing.assert_array_equal(_np(out), before)
    with mt.no_grad():
        out.add_(1)
    np.testing.assert_array_equal(_np(x), before)  # a copy: x itself unchanged


@pytest.mark.parametrize(
    "shape,mode,scales",
    [
        ((5,), "linear", (1.1,)),
        ((3, 9), "bilinear", (1.3, 1.3)),
        ((2, 5, 3), "trilinear", (1.4, 1.1, 2.0)),
        ((5,), "nearest", (1.1,)),
        ((2, 5, 4), "nearest", (1.4, 1.1, 2.1)),
    ],
)
def test_interpolate_unchanged_size_gradients(shape, mode, scales):
    x = mt.randn((1, 2) + shape, dtype=mt.float64, requires_grad=True)

    def fn(t):
        return F.interpolate(t, scale_factor=scales, mode=mode)

    assert gradcheck(fn, (x,))
    if not mode.startswith("nearest"):
        assert gradgradcheck(fn, (x,))


# --- batch/instance norm of an empty batch ---


@pytest.mark.parametrize("momentum", [0.1, None])
@pytest.mark.parametrize("shape", [(0, 3, 2, 2), (2, 3, 0, 2)])
def test_batch_norm_empty_batch_keeps_running_stats(shape, momentum):
    bn = mt.nn.BatchNorm2d(3, momentum=momentum)
    bn(mt.ones(4, 3, 2, 2))  # a normal batch: mean 1, var 0
    expected_mean = _np(bn.running_mean).copy()
    expected_var = _np(bn.running_var).copy()
    np.testing.assert_allclose(expected_mean, [0.1] * 3 if momentum else [1.0] * 3, rtol=1e-6)
    x = mt.zeros(shape, requires_grad=True)
    out = bn(x)  # a detection head's RoI batch with no positives
    assert tuple(out.shape) == shape
    np.testing.assert_array_equal(_np(bn.running_mean), expected_mean)
    np.testing.assert_array_equal(_np(bn.running_var), expected_var)
    assert int(bn.num_batches_tracked) == 2  # torch counts the empty batch
    out.sum().backward()
    assert tuple(x.grad.shape) == shape
    np.testing.assert_array_equal(_np(bn.weight.grad), [0, 0, 0])
    np.testing.assert_array_equal(_np(bn.bias.grad), [0, 0, 0])


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64, mt.float16])
def test_functional_batch_norm_empty_batch(dtype, device):
    rm = mt.tensor([0.5, -1.0, 2.0], dtype=dtype, device=device)
    rv = mt.tensor([1.5, 2.0, 3.0], dtype=dtype, device=device)
    out = F.batch_norm(mt.zeros(0, 3, 4, dtype=dtype, device=device), rm, rv, training=True)
    assert tuple(out.shape) == (0, 3, 4)
    np.testing.assert_array_equal(_np(rm.float()), [0.5, -1.0, 2.0])
    np.testing.assert_array_equal(_np(rv.float()), [1.5, 2.0, 3.0])


def test_instance_norm_empty_instances_keep_running_stats():
    rm, rv = mt.tensor([0.5, -1.0, 2.0]), mt.tensor([1.5, 2.0, 3.0])
    out = F.instance_norm(mt.zeros(2, 3, 0), rm, rv)  # empty instances: unchanged, as torch
    assert tuple(out.shape) == (2, 3, 0)
    np.testing.assert_array_equal(_np(rm), [0.5, -1.0, 2.0])
    np.testing.assert_array_equal(_np(rv), [1.5, 2.0, 3.0])
    # no instances: torch averages none of them and writes NaN
    F.instance_norm(mt.zeros(0, 3, 4), rm, rv)
    assert np.isnan(_np(rm)).all() and np.isnan(_np(rv)).all()


# --- double backward through prelu and padding: zero gradients, not None ---

_ZERO_EDGE_OPS = {
    "prelu1": lambda y, p: F.prelu(y, p[:1]),
    "prelu2": lambda y, p: F.prelu(y, p),
    "reflect": lambda y, p: F.pad(y, (1, 2, 2, 1), mode="reflect"),
    "replicate": lambda y, p: F.pad(y, (2, 1, 1, 0), mode="replicate"),
    "reflect1d": lambda y, p: F.pad(y.flatten(2), (2, 3), mode="reflect"),
    "replicate3d": lambda y, p: F.pad(y.unsqueeze(2), (1, 1, 1, 1, 1, 0), mode="replicate"),
}


@pytest.mark.parametrize("name", list(_ZERO_EDGE_OPS))
def test_gradient_penalty_reaches_input_and_bias(name, device):
    # torch's prelu / pad backward kernels take the input: a gradient penalty gives the input
    # and the conv bias before them a zero .grad (NOTE [ Zero-gradient edges ])
    conv = mt.nn.Conv2d(1, 2, 3).to(device)
    p = mt.tensor([0.25, -0.5], device=device, requires_grad=True)
    x = mt.ones(1, 1, 5, 5, device=device, requires_grad=True)
    out = _ZERO_EDGE_OPS[name](conv(x), p)
    (g,) = mt.autograd.grad(out.sum(), x, create_graph=True)
    (g**2).sum().backward()
    assert x.grad is not None and conv.bias.grad is not None
    np.testing.assert_array_equal(_np(x.grad), np.zeros((1, 1, 5, 5)))
    np.testing.assert_array_equal(_np(conv.bias.grad), [0.0, 0.0])
    assert np.abs(_np(conv.weight.grad)).sum() > 0


@pytest.mark.parametrize("name", list(_ZERO_EDGE_OPS))
def test_prelu_pad_gradients_unchanged(name):
    rng = np.random.default_rng(3)
    y = mt.tensor(rng.standard_normal((2, 2, 4, 4)), requires_grad=True)
    p = mt.tensor([0.25, -0.5], dtype=mt.float64, requires_grad=True)
    args = (y, p) if name.startswith("prelu") else (y,)

    def fn(*t):
        return _ZERO_EDGE_OPS[name](t[0], t[1] if len(t) > 1 else p)

    assert gradcheck(fn, args)
    assert gradgradcheck(fn, args)


def test_prelu_pad_first_order_values_and_nodes():
    x = mt.tensor([[-2.0, -0.5, 0.0, 1.5]], requires_grad=True)
    w = mt.tensor([0.25], requires_grad=True)
    out = F.prelu(x, w)
    assert out.grad_fn.name() == "PreluKernelBackward0"
    np.testing.assert_array_equal(_np(out), [[-0.5, -0.125, 0.0, 1.5]])
    out.backward(mt.tensor([[1.0, 2.0, 3.0, 4.0]]))
    np.testing.assert_array_equal(_np(x.grad), [[0.25, 0.5, 0.75, 4.0]])
    np.testing.assert_array_equal(_np(w.grad), [-2.0 - 1.0])
    x = mt.arange(4.0).view(1, 1, 4).requires_grad_()
    out = F.pad(x, (2, 1), mode="reflect")
    assert out.grad_fn.name() == "ReflectionPad1DBackward0"
    assert out.grad_fn.next_functions[0][0] is not None  # the edge leads to x
    np.testing.assert_array_equal(_np(out).ravel(), [2, 1, 0, 1, 2, 3, 2])
    out.sum().backward()
    np.testing.assert_array_equal(_np(x.grad).ravel(), [1, 2, 3, 1])


@pytest.mark.parametrize("mode", ["reflect", "replicate", "prelu"])
def test_input_changed_in_place_before_backward_raises(mode):
    # torch's nodes save the input: changing it in place makes backward raise
    x = mt.randn(1, 2, 4, 4, requires_grad=True)
    y = x * 1
    if mode == "prelu":
        out = F.prelu(y, mt.tensor([0.3, 0.2], requires_grad=True))
    else:
        out = F.pad(y, (1, 1, 1, 1), mode=mode)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


# --- hardsigmoid's backward: torch multiplies by 1/6 rounded to float32, in every dtype ---


def test_hardsigmoid_backward_float64_constant():
    x = mt.tensor([0.5, -2.0, 2.9, 3.0, -3.5], dtype=mt.float64, requires_grad=True)
    F.hardsigmoid(x).backward(mt.tensor([1.0, 3.0, -2.0, 1.0, 1.0], dtype=mt.float64))
    sixth = 0.1666666716337204  # float32(1 / 6), torch 2.13's x.grad for a grad of 1
    assert _np(x.grad).tolist() == [sixth, 3 * sixth, -2 * sixth, 0.0, 0.0]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_hardsigmoid_backward_rounding(dtype):
    rng = np.random.default_rng(5)
    g = (rng.standard_normal(4096) * 100).astype(dtype)
    x = mt.zeros(4096, dtype=getattr(mt, dtype), requires_grad=True)
    F.hardsigmoid(x).backward(mt.tensor(g))
    expected = (g.astype(np.float32) * np.float32(1 / 6)).astype(dtype)
    np.testing.assert_array_equal(_np(x.grad), expected)


def test_hardsigmoid_double_backward():
    x = mt.tensor([0.5, -2.0, 2.5, 4.0], dtype=mt.float64, requires_grad=True)
    assert gradgradcheck(F.hardsigmoid, (x,))
