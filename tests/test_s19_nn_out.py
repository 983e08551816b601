"""nn.functional against torch 2.13's behaviour: `out=` on avg_pool2d/avg_pool3d, linear and
normalize; 1-d pools' argument sizes; lp_pool's kernel_size unpacking; transposed convolutions
with empty inputs or outputs; pdist's CPU half-precision refusal; max pooling's saved input and
indices version-checked. Expected values and messages were printed by torch for the same calls."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F

_NO_AUTOGRAD = "functions with out=... arguments don't support automatic differentiation"
_MODIFIED = "modified by an inplace operation"
_FLOAT_OUT_DOUBLE = "^Expected out tensor to have dtype float, but got double instead$"


# --- avg_pool2d / avg_pool3d out= ---


def test_avg_pool_out_written_and_returned():
    x = minitorch.arange(16.0).view(1, 1, 4, 4)
    out = minitorch.zeros(0)
    assert F.avg_pool2d(x, 2, out=out) is out
    np.testing.assert_allclose(out.numpy(), [[[[2.5, 4.5], [10.5, 12.5]]]], err_msg="avg2d")
    out = minitorch.zeros(1, 1, 1, 1, 1)
    assert F.avg_pool3d(minitorch.arange(8.0).view(1, 1, 2, 2, 2), 2, out=out) is out
    np.testing.assert_allclose(out.numpy(), [[[[[3.5]]]]], err_msg="avg3d")
    out = minitorch.zeros(1, 1, 2, 2, dtype=minitorch.int64)  # an integer pool, integer out
    F.avg_pool2d(x.long(), 2, out=out)
    np.testing.assert_array_equal(out.numpy(), [[[[2, 4], [10, 12]]]])


@pytest.mark.parametrize("op", ["avg_pool2d", "avg_pool3d"])
def test_avg_pool_out_errors(op):
    x = minitorch.ones(1, 1, 2, 2, 2) if op == "avg_pool3d" else minitorch.ones(1, 1, 4, 4)
    pool = getattr(F, op)
    with pytest.raises(RuntimeError, match=_FLOAT_OUT_DOUBLE):
        pool(x, 2, out=minitorch.zeros(0, dtype=minitorch.float64))
    with pytest.raises(RuntimeError, match=f"^{op}\\(\\): {_NO_AUTOGRAD}"):
        pool(x.clone().requires_grad_(), 2, out=minitorch.zeros(0))
    with pytest.raises(TypeError, match=f"^{op}\\(\\): argument 'out' must be Tensor, not list$"):
        pool(x, 2, out=[1])


# --- linear out= ---


def test_linear_out():
    x = minitorch.arange(8.0).view(2, 4)
    w = minitorch.ones(3, 4)
    b = minitorch.tensor([1.0, 2.0, 3.0])
    out = minitorch.zeros(2, 3)
    assert F.linear(x, w, b, out=out) is out
    np.testing.assert_allclose(out.numpy(), [[7.0, 8.0, 9.0], [23.0, 24.0, 25.0]])
    out = minitorch.zeros(0)
    assert F.linear(x, w, out=out) is out
    np.testing.assert_allclose(out.numpy(), [[6.0, 6.0, 6.0], [22.0, 22.0, 22.0]])
    out = minitorch.zeros(0)  # a batch: matmul into out, then the bias added in place
    F.linear(minitorch.ones(2, 2, 4), w, b, out=out)
    np.testing.assert_allclose(out.numpy(), np.tile([5.0, 6.0, 7.0], (2, 2, 1)))
    out = minitorch.zeros(0)  # a vector input
    F.linear(minitorch.ones(4), w, b, out=out)
    np.testing.assert_allclose(out.numpy(), [5.0, 6.0, 7.0])


def test_linear_out_errors():
    x, w = minitorch.ones(2, 4), minitorch.ones(3, 4)
    with pytest.raises(RuntimeError, match=_FLOAT_OUT_DOUBLE):
        F.linear(x, w, out=minitorch.zeros(2, 3, dtype=minitorch.float64))
    with pytest.raises(RuntimeError, match=f"^linear\\(\\): {_NO_AUTOGRAD}"):
        F.linear(x, w.clone().requires_grad_(), out=minitorch.zeros(2, 3))
    with pytest.raises(RuntimeError, match=f"^linear\\(\\): {_NO_AUTOGRAD}"):
        F.linear(x, w, out=minitorch.zeros(2, 3, requires_grad=True))
    with pytest.raises(TypeError, match="^linear\\(\\): argument 'out' must be Tensor, not list$"):
        F.linear(x, w, out=[1])
    with minitorch.no_grad():  # no autograd: allowed
        F.linear(x, w.clone().requires_grad_(), out=minitorch.zeros(2, 3))


def test_linear_out_not_autocast():
    # torch's out= variant is not on autocast's list: it runs in the inputs' dtype
    x, w, b = minitorch.ones(2, 4), minitorch.ones(3, 4), minitorch.ones(3)
    with minitorch.autocast("cpu"):
        out = F.linear(x, w, b, out=minitorch.zeros(0))
        assert out.dtype is minitorch.float32
        assert F.linear(x, w, b).dtype is minitorch.bfloat16
        with pytest.raises(RuntimeError, match="dtype float, but got c10::BFloat16 instead"):
            F.linear(x, w, b, out=minitorch.zeros(0, dtype=minitorch.bfloat16))


# --- normalize out=: torch divides into out ---


def test_normalize_out():
    x = minitorch.tensor([[3.0, 4.0], [0.0, 1.0]])
    out = minitorch.zeros(0)  # resized as div's out= is
    assert F.normalize(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), [[0.6, 0.8], [0.0, 1.0]], rtol=1e-6)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to .* type Long$"):
        F.normalize(x, out=minitorch.zeros(2, 2, dtype=minitorch.int64))
    with pytest.raises(RuntimeError, match=f"^div\\(\\): {_NO_AUTOGRAD}"):
        F.normalize(x.clone().requires_grad_(), out=minitorch.zeros(2, 2))


# --- 1-d pools: a sequence argument holds exactly one int ---


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda x: F.avg_pool1d(x, (2, 2)), "avg_pool1d() argument 'kernel_size' should contain "
         "one int (got 2)"),
        (lambda x: F.avg_pool1d(x, ()), "avg_pool1d() argument 'kernel_size' should contain one "
         "int (got 0)"),
        (lambda x: F.avg_pool1d(x, 2, (1, 1)), "avg_pool1d() argument 'stride' should contain "
         "one int (got 2)"),
        (lambda x: F.avg_pool1d(x, 2, 2, (0, 0)), "avg_pool1d() argument 'padding' should "
         "contain one int (got 2)"),
        (lambda x: F.max_pool1d(x, (2, 2)), "max_pool1d() kernel_size must be an int, list of "
         "ints or tuple of ints of size 1 but got size 2"),
        (lambda x: F.max_pool1d(x, 2, (1, 1)), "max_pool1d() stride must be None, an int, list "
         "of ints, or tuple of ints of size 1 but got size 2"),
        (lambda x: F.max_pool1d(x, 2, 2, ()), "max_pool1d() padding must be an int, list of "
         "ints, or tuple of ints of size 1 but got size 0"),
        (lambda x: F.max_pool1d(x, 2, 2, 0, (1, 1)), "max_pool1d() dilation must be an int, "
         "list of ints or tuple of ints of size 1 but got size 2"),
        (lambda x: F.max_pool1d(x, (2, 2), return_indices=True), "max_pool1d() argument "
         "'kernel_size' should contain one int (got 2)"),
        (lambda x: minitorch.nn.AvgPool1d((2, 2))(x), "avg_pool1d() argument 'kernel_size' "
         "should contain one int (got 2)"),
        (lambda x: F.lp_pool1d(x, float("inf"), (2, 2)), "max_pool1d() kernel_size must be an "
         "int, list of ints or tuple of ints of size 1 but got size 2"),
    ],
)  # fmt: skip
def test_pool1d_sequence_sizes(call, message):
    with pytest.raises(RuntimeError) as info:
        call(minitorch.ones(1, 2, 4))
    assert str(info.value) == message


def test_pool1d_argument_types():
    x = minitorch.ones(1, 2, 4)
    with pytest.raises(TypeError) as info:
        F.avg_pool1d(x, 2.0)
    assert str(info.value) == (
        "avg_pool1d(): argument 'kernel_size' (position 2) must be tuple of ints, not float"
    )
    with pytest.raises(TypeError) as info:
        F.max_pool1d(x, 2, 1.0, return_indices=True)
    assert str(info.value) == (
        "max_pool1d_with_indices(): argument 'stride' (position 3) must be tuple of ints, not float"
    )
    # a rank error comes before the sizes'
    with pytest.raises(RuntimeError, match="^Expected 2 to 3 dimensions, but got 4-dimensional"):
        F.avg_pool1d(minitorch.ones(1, 1, 4, 4), (2, 2))
    # a one-int sequence, an empty stride (None) and a 1-element tensor are fine
    np.testing.assert_allclose(F.avg_pool1d(x, [2], ()).numpy(), np.ones((1, 2, 2)))
    np.testing.assert_allclose(F.max_pool1d(x, minitorch.tensor([2])).numpy(), np.ones((1, 2, 2)))


# --- lp_pool: torch multiplies by kernel_size itself (1d), unpacks it first (2d/3d) ---


def test_lp_pool1d_sequence_kernel_refused():
    x = minitorch.arange(1.0, 9.0).view(1, 2, 4)
    with pytest.raises(TypeError, match="^mul\\(\\): argument 'other'"):
        F.lp_pool1d(x, 2, (2,))
    with pytest.raises(TypeError, match="^mul\\(\\): argument 'other'"):
        minitorch.nn.LPPool1d(2, [2])(x)
    expected = [[[2.2360680103, 5.0], [7.8102498055, 10.6301460266]]]
    np.testing.assert_allclose(F.lp_pool1d(x, 2, 2).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(F.lp_pool1d(x, float("inf"), (2,)).numpy(), [[[2, 4], [6, 8]]])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: F.lp_pool2d(minitorch.ones(1, 1, 4, 4), 2, (2,)),
         "not enough values to unpack (expected 2, got 1)"),
        (lambda: F.lp_pool2d(minitorch.ones(1, 1, 4, 4), float("inf"), (2,)),
         "not enough values to unpack (expected 2, got 1)"),
        (lambda: F.lp_pool2d(minitorch.ones(1, 1, 4, 4), 2, (2, 2, 2)),
         "too many values to unpack (expected 2)"),
        (lambda: minitorch.nn.LPPool3d(2, (2,))(minitorch.ones(1, 1, 2, 2, 2)),
         "not enough values to unpack (expected 3, got 1)"),
        (lambda: F.lp_pool3d(minitorch.ones(1, 1, 2, 2, 2), 2, (2, 2)),
         "not enough values to unpack (expected 3, got 2)"),
    ],
)  # fmt: skip
def test_lp_pool_kernel_unpacked(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


# --- transposed convolutions: empty inputs and outputs ---


def test_conv_transpose_empty_batch_gives_empty_output():
    x = minitorch.ones(0, 1, 1, requires_grad=True)
    w = minitorch.ones(1, 1, 2, requires_grad=True)
    y = F.conv_transpose1d(x, w, padding=1)  # output length 0: fine with no batch
    assert tuple(y.shape) == (0, 1, 0)
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((1, 1, 2)))
    y = F.conv_transpose2d(minitorch.ones(0, 1, 1, 1), minitorch.ones(1, 1, 2, 2), padding=1)
    assert tuple(y.shape) == (0, 1, 0, 0)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: F.conv_transpose1d(minitorch.ones(1, 1, 1), minitorch.ones(1, 1, 2), padding=1),
         "Given input size per channel: (1 x 1). Calculated output size per channel: (1 x 0). "
         "Output size is too small"),
        (lambda: minitorch.nn.ConvTranspose1d(1, 1, 1, padding=2)(minitorch.ones(1, 1, 1)),
         "Given input size per channel: (1 x 1). Calculated output size per channel: (1 x -3). "
         "Output size is too small"),
        (lambda: F.conv_transpose1d(minitorch.ones(1, 1, 0), minitorch.ones(1, 1, 2)),
         "Only zero batch or zero channel inputs are supported, but got input shape: "
         "[1, 1, 1, 0]"),
        (lambda: F.conv_transpose2d(minitorch.ones(1, 0, 1), minitorch.ones(1, 1, 2, 2)),
         "Only zero batch or zero channel inputs are supported, but got input shape: "
         "[1, 1, 0, 1]"),
        (lambda: F.conv_transpose3d(minitorch.ones(1, 1, 0, 1, 1), minitorch.ones(1, 1, 2, 2, 2)),
         "Only zero batch or zero channel inputs are supported, but got input shape: "
         "[1, 1, 0, 1, 1]"),
    ],
)  # fmt: skip
def test_conv_transpose_size_errors(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


# --- pdist: torch's CPU kernel has no half-precision version ---


@pytest.mark.parametrize("dt, name", [("float16", "Half"), ("bfloat16", "BFloat16")])
def test_pdist_half_refused(dt, name):
    dtype = getattr(minitorch, dt)
    with pytest.raises(NotImplementedError) as info:
        F.pdist(minitorch.ones(3, 2, dtype=dtype))
    assert str(info.value) == f"\"pdist\" not implemented for '{name}'"
    # not reached without a pair of non-empty rows
    assert tuple(F.pdist(minitorch.ones(1, 2, dtype=dtype)).shape) == (0,)
    np.testing.assert_array_equal(F.pdist(minitorch.ones(3, 0, dtype=dtype)).float().numpy(), 0)
    with pytest.raises(RuntimeError, match="^pdist only supports floating-point dtypes$"):
        F.pdist(minitorch.ones(3, 2, dtype=minitorch.int64), -1.0)


# --- max pooling saves its input and its indices (torch's version checks) ---


def _pooled(n, return_indices):
    x = minitorch.arange(6.0).view(2, 3).requires_grad_()
    a = x * 1
    if n == 1:
        out = F.max_pool1d(a.unsqueeze(0), 2, return_indices=return_indices)
    else:
        out = F.max_pool2d(a.view(1, 1, 2, 3), 2, return_indices=return_indices)
    return x, a, out


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("retain", [False, True])
def test_max_pool_saved_input_checked(n, retain):
    x, a, out = _pooled(n, True)
    a.add_(0)  # the input changed in place before backward
    with pytest.raises(RuntimeError, match=_MODIFIED):
        minitorch.autograd.grad(out[0].sum(), x, retain_graph=retain)
    x, a, out = _pooled(n, False)
    a.add_(0)
    with pytest.raises(RuntimeError, match=_MODIFIED):
        out.sum().backward()


@pytest.mark.parametrize("n, shape", [(1, [1, 2, 1, 1]), (2, [1, 1, 1, 1])])
def test_max_pool_saved_indices_checked(n, shape):
    x, _, (values, indices) = _pooled(n, True)
    indices.add_(0)
    with pytest.raises(RuntimeError) as info:
        values.sum().backward()
    assert f"[torch.LongTensor {shape}] is at version 1; expected version 0" in str(info.value)
    x, _, (values, _) = _pooled(n, True)
    values.add_(0)  # the values are not saved: fine
    (g,) = minitorch.autograd.grad(values.sum(), x)
    expected = [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]] if n == 1 else [[0, 0, 0], [0, 1, 0]]
    np.testing.assert_array_equal(g.numpy(), expected)
