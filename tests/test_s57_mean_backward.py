"""Mean's data-level backward divides straight into fresh memory of the input's shape, and the
relu family's gradient mask takes no dtype= (session 57): the same values, dtypes and layouts."""

import numpy as np
import pytest

import minitorch as torch

_CASES = [
    ((16,), None, False),
    ((4, 5), 1, False),
    ((4, 5), 0, False),
    ((4, 5), 0, True),
    ((4, 5), -1, True),
    ((2, 3, 4), (0, 2), False),
    ((2, 3, 4), (0, 1), False),
    ((3, 0), 1, False),
    ((0, 3), 0, False),
    ((), None, False),
]


def _expected(g, shape, dim, keepdim):
    if dim is None:
        keep = (1,) * len(shape)
    else:
        dims = {d % len(shape) for d in (dim if isinstance(dim, tuple) else (dim,))}
        keep = tuple(1 if i in dims else n for i, n in enumerate(shape))
    n = int(np.prod([s for s, k in zip(shape, keep, strict=True) if k == 1])) if shape else 1
    return np.broadcast_to(g.reshape(keep), shape) / max(n, 1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(("shape", "dim", "keepdim"), _CASES)
def test_mean_gradient_values_and_layout(shape, dim, keepdim, dtype):
    torch.manual_seed(0)
    x = torch.randn(shape, dtype=dtype, requires_grad=True)
    y = x.mean() if dim is None else x.mean(dim, keepdim=keepdim)
    g = torch.randn(y.shape, dtype=dtype)
    (gx,) = torch.autograd.grad(y, x, g)
    assert gx.shape == x.shape and gx.dtype == dtype
    d = gx.numpy()
    # a tensor of its own: writable, row-major strides (not a broadcast view's zeros)
    assert d.flags.writeable and gx.is_contiguous()
    assert gx.stride() == torch.empty(shape).stride()
    want = _expected(g.numpy().astype(np.float64), shape, dim, keepdim)
    np.testing.assert_allclose(d, want, rtol=1e-6 if dtype == torch.float32 else 1e-15)


def test_mean_gradient_divides_in_the_gradient_dtype():
    # float32: grad / n rounded once in float32, as grad.expand(shape) / n
    g = np.float32(1.0)
    x = torch.zeros(3, requires_grad=True)
    x.mean().backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), np.full(3, np.float32(g) / np.float32(3)))
    assert x.grad.dtype == torch.float32


def test_half_mean_gradient_is_rounded_once_from_float32():
    x = torch.zeros(7, dtype=torch.float16, requires_grad=True)
    x.mean().backward(torch.tensor(1.0, dtype=torch.float16))
    want = (np.float32(1.0) / np.float32(7)).astype(np.float16)
    np.testing.assert_array_equal(x.grad.numpy(), np.full(7, want))
    assert x.grad.dtype == torch.float16


def test_mean_gradient_accumulates_and_can_be_changed_in_place():
    w = torch.ones(2, 3, requires_grad=True)
    (g,) = torch.autograd.grad(w.mean(), w)
    g.mul_(2)  # a real tensor, not a read-only expand
    np.testing.assert_allclose(g.numpy(), np.full((2, 3), 2 / 6), rtol=1e-6)
    w.mean(1).sum().backward()
    w.mean(1).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.full((2, 3), 2 / 3), rtol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_relu_gradient_is_positive_zero_where_masked(dtype):
    x = torch.tensor([-1.0, 0.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
    y = torch.relu(x)
    g = torch.tensor([-5.0, -1.0, -2.0, float("nan")], dtype=dtype)
    (gx,) = torch.autograd.grad(y, x, g)
    d = gx.numpy()
    assert d.dtype == x.detach().numpy().dtype
    assert list(np.signbit(d[:2])) == [False, False] and list(d[:2]) == [0, 0]
    assert d[2] == -2 and np.isnan(d[3])


def test_relu_gradient_on_the_reused_buffer_path(monkeypatch):
    # a big enough gradient is masked in its own memory (NOTE [ Reused gradients ]): the mask
    # is taken into the gradient's buffer (out=), with the same +0. where masked
    from minitorch._ops import pointwise

    calls = []
    real = pointwise.mask_gradient

    def spy(xp, grad, keep, out=None):
        calls.append(out is grad)
        return real(xp, grad, keep, out)

    monkeypatch.setattr(pointwise, "mask_gradient", spy)
    torch.manual_seed(0)
    x = torch.randn(128, 256, requires_grad=True)  # 32768 elements: above the reuse threshold
    (x.relu() * -1.0).sum().backward()
    assert calls == [True]
    want = np.where(x.detach().numpy() > 0, -1.0, 0.0).astype(np.float32)
    np.testing.assert_array_equal(x.grad.numpy(), want)
    assert not np.signbit(x.grad.numpy()[x.detach().numpy() <= 0]).any()


@pytest.mark.parametrize(
    ("shape", "dim", "keepdim"),
    [
        ((16, 10), 1, False),
        ((16, 10), 0, True),
        ((2, 3, 4), (0, 2), False),
        ((5,), 0, False),
        ((), None, False),
        ((3, 4), -1, False),
    ],
)
def test_logsumexp_gradient_is_softmax_times_grad(shape, dim, keepdim):
    # the data backward computes exp(x - lse) in its own fresh array, then the product in place
    torch.manual_seed(1)
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    dims = tuple(range(len(shape))) if dim is None else dim
    y = torch.logsumexp(x, dims, keepdim=keepdim)
    g = torch.randn(y.shape, dtype=torch.float64)
    (gx,) = torch.autograd.grad(y, x, g)
    xd = x.detach().numpy()
    axes = dims if isinstance(dims, tuple) else (dims,)
    lse = np.log(np.exp(xd).sum(axis=axes, keepdims=True))
    gk = g.numpy()
    if not keepdim and shape:
        gk = np.expand_dims(gk, tuple(a % len(shape) for a in axes))
    np.testing.assert_allclose(gx.numpy(), gk * np.exp(xd - lse), rtol=1e-12)
    assert gx.shape == x.shape and gx.is_contiguous()


def test_keep_shape_of_one_dim_and_of_several():
    from minitorch._ops.reduction import keep_shape

    assert keep_shape((4, 5, 6), (1,)) == (4, 1, 6)
    assert keep_shape((4, 5, 6), [2]) == (4, 5, 1)
    assert keep_shape((4, 5, 6), (0, 2)) == (1, 5, 1)
    assert keep_shape((4, 5), None) == (1, 1)
