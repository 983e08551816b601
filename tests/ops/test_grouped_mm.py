"""torch._grouped_mm / F.grouped_mm: the four operand layouts, gradients, torch's checks."""

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch._ops.grouped_mm import GroupedMm


def _t(a, dtype=mt.float32, requires_grad=False):
    return mt.tensor(a, dtype=dtype, requires_grad=requires_grad)


def _offs(*v):
    return mt.tensor(list(v), dtype=mt.int32)


def _rng():
    return np.random.default_rng(0)


def test_tokens_by_expert_with_an_empty_expert():
    rng = _rng()
    a, b = rng.standard_normal((12, 8)), rng.standard_normal((3, 8, 16))
    out = F.grouped_mm(_t(a), _t(b), offs=_offs(4, 4, 10))
    want = np.zeros((12, 16))  # rows past offs[-1] belong to no group (zeros here)
    want[:4], want[4:10] = a[:4] @ b[0], a[4:10] @ b[2]
    assert out.shape == (12, 16) and out.dtype == mt.float32
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)


def test_the_other_layouts():
    rng = _rng()
    # 2d x 2d: offs cuts K, one output matrix per group (an empty group gives zeros)
    a, b = rng.standard_normal((8, 12)), rng.standard_normal((12, 16))
    out = mt._grouped_mm(_t(a), _t(b), _offs(4, 4, 12))
    want = np.stack([a[:, :4] @ b[:4], np.zeros((8, 16)), a[:, 4:] @ b[4:]])
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)
    # 3d x 2d: offs cuts N
    a, b = rng.standard_normal((3, 8, 8)), rng.standard_normal((8, 12))
    out = mt._grouped_mm(_t(a), _t(b), _offs(4, 4, 12))
    want = np.concatenate([a[0] @ b[:, :4], a[2] @ b[:, 4:]], 1)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)
    # 3d x 3d: a batched product, no offs
    a, b = rng.standard_normal((3, 5, 8)), rng.standard_normal((3, 8, 16))
    out = F.grouped_mm(_t(a), _t(b))
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-5, atol=1e-5)


def test_gradients_and_node_name():
    rng = _rng()
    a = _t(rng.standard_normal((12, 8)), requires_grad=True)
    b = _t(rng.standard_normal((3, 8, 16)), requires_grad=True)
    out = F.grouped_mm(a, b, offs=_offs(4, 4, 12))
    assert out.grad_fn.name() == "GroupedMmBackward0"
    g = rng.standard_normal((12, 16))
    out.backward(_t(g))
    an, bn = a.detach().numpy(), b.detach().numpy()
    want_a = np.concatenate([g[:4] @ bn[0].T, g[4:] @ bn[2].T])
    want_b = np.stack([an[:4].T @ g[:4], np.zeros((8, 16)), an[4:].T @ g[4:]])
    np.testing.assert_allclose(a.grad.numpy(), want_a, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(b.grad.numpy(), want_b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "sa, sb, bounds",
    [
        ((7, 3), (3, 3, 2), [2, 2, 6]),  # row 6 in no group
        ((3, 7), (7, 2), [3, 3, 7]),
        ((3, 2, 3), (3, 5), [1, 1, 5]),
        ((2, 3, 4), (2, 4, 2), None),
    ],
)
def test_gradcheck_float64(sa, sb, bounds):
    # torch refuses float64 in the public call; the math is checked through the Function
    rng = _rng()
    a = _t(rng.standard_normal(sa), mt.float64, True)
    b = _t(rng.standard_normal(sb), mt.float64, True)

    def fn(a, b):
        return GroupedMm.apply(a, b, bounds=bounds)

    assert mt.autograd.gradcheck(fn, (a, b))
    assert mt.autograd.gradgradcheck(fn, (a, b))


def test_half_dtypes_keep_their_dtype():
    rng = _rng()
    a, b = rng.standard_normal((12, 8)), rng.standard_normal((3, 8, 16))
    out = mt._grouped_mm(_t(a, mt.float16), _t(b, mt.float16), _offs(6, 12, 12))
    assert out.dtype == mt.float16
    want = np.concatenate([a[:6] @ b[0], a[6:] @ b[1]])
    np.testing.assert_allclose(out.float().numpy(), want, rtol=2e-2, atol=2e-2)


def _err(match, *args, **kwargs):
    with pytest.raises(RuntimeError, match=match):
        mt._grouped_mm(*args, **kwargs)


def test_torchs_checks():
    a, b, offs = mt.randn(12, 8), mt.randn(3, 8, 16), _offs(4, 4, 12)
    _err("Expected mat_a to be Float32, BFloat16 or Float16 matrix, got Double", a.double(), b)
    _err("Expected mat_b to be Float32, BFloat16 or Float16 matrix, got Long", a, b.long())
    _err("mat_a has to be 2 or 3d", mt.randn(8), b, offs)
    _err("mat_b has to be 2 or 3d", a, mt.randn(1, 3, 8, 16), offs)
    _err("contraction dimension of mat_a and mat_b must match", mt.randn(12, 4), b, offs)
    _err("strides should be multiple of 16 bytes", mt.randn(12, 6), mt.randn(3, 6, 16), offs)
    _err(r"Invalid strides/sizes, got \[256, 32, 2\]", a, mt.randn(3, 8, 32)[:, :, ::2], offs)
    _err("Have to provide offsets if there is a 2d matrix", a, b)
    _err("Have to provide offsets", mt.randn(3, 4, 8), b, offs)
    _err("offs has to be 1D", a, b, offs[None])
    _err("Offsets have to be int32", a, b, offs.long())
    _err("Bias not supported yet", a, b, offs, bias=mt.randn(16))
    _err("output dtype must match `mat_a` dtype", a, b, offs, out_dtype=mt.float16)
    _err("matrix batch sizes have to match", a, b, _offs(4, 12))
    _err("batched dimension has to match", mt.randn(2, 4, 8), b)
    _err("same dtype, but got: float != c10::Half", a, b.half(), offs)
    _err(r"shapes cannot be multiplied \(8x8 and 4x16\)", mt.randn(8, 12), mt.randn(8, 16), offs)
    # column-major operands are fine (torch's kernels take either layout)
    out = mt._grouped_mm(mt.randn(8, 12).t(), mt.randn(3, 16, 8).mT, offs, out_dtype=mt.float32)
    assert out.shape == (12, 16)


def test_argument_types():
    a, b = mt.randn(12, 8), mt.randn(3, 8, 16)
    with pytest.raises(TypeError, match="argument 'offs' .* must be Tensor, not list"):
        mt._grouped_mm(a, b, [4, 4, 12])
    with pytest.raises(TypeError, match="argument 'input' .* must be Tensor, not float"):
        mt._grouped_mm(1.0, b)
    with pytest.raises(TypeError, match="positional"):  # F's options are keyword-only
        F.grouped_mm(a, b, _offs(4, 4, 12))


@pytest.mark.parametrize(
    "sa, sb, offs",
    [
        ((8, 4), (3, 4, 8), [2, 2, 6]),
        ((3, 8, 4), (4, 12), [3, 3, 8]),
        ((8, 12), (12, 4), [4, 4, 9]),
    ],
)
def test_every_device_gives_the_cpu_values_and_gradients(device, sa, sb, offs):
    # off the CPU offs stays on the device (no read back): masked whole-operand products
    rng = _rng()
    an, bn = rng.standard_normal(sa), rng.standard_normal(sb)
    ref_a, ref_b = _t(an, requires_grad=True), _t(bn, requires_grad=True)
    ref = mt._grouped_mm(ref_a, ref_b, _offs(*offs))
    a = _t(an).to(device).requires_grad_()
    b = _t(bn).to(device).requires_grad_()
    out = mt._grouped_mm(a, b, _offs(*offs).to(device))
    assert out.grad_fn.name() == "GroupedMmBackward0"
    g = rng.standard_normal(tuple(ref.shape))
    ref.backward(_t(g))
    out.backward(_t(g).to(device))
    for got, want in ((out, ref), (a.grad, ref_a.grad), (b.grad, ref_b.grad)):
        np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), atol=1e-5)
