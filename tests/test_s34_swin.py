"""Session 34 (helper swin): torch-free regression tests of the library fixes the windowed-
attention programs of tests/reference/test_s34_swin_reference.py found: the grad_fn._saved_*
attributes of roll, unfold, flip, masked_fill, unbind, stack and repeat (torch's names and
values, a negative shift read as torch's binding shows it, unsigned), and the double-backward
nodes of unfold (UnfoldBackwardBackward0) and masked_fill (MaskedFillBackward0, listing the
gradient alone); LayerNorm's node's _saved_input/_saved_weight/_saved_bias/
_saved_normalized_shape/_saved_result1/_saved_result2 (mean and rstd), freed after backward
with torch's message. torch's values are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _x(*shape, seed=0):
    g = mt.Generator().manual_seed(seed)
    return mt.randn(*shape, generator=g, dtype=mt.float64).requires_grad_(True)


def _saved(y):
    fn = y.grad_fn
    return {k: getattr(fn, k) for k in dir(fn) if k.startswith("_saved_")}


@pytest.mark.parametrize(
    "f, want",
    [
        (
            lambda x: mt.roll(x, (1, -1), (0, 1)),
            {"_saved_dims": (0, 1), "_saved_shifts": (1, 2**64 - 1)},
        ),
        (lambda x: mt.roll(x, 2), {"_saved_dims": (), "_saved_shifts": (2,)}),
        (lambda x: x.roll(-3, 2), {"_saved_dims": (2,), "_saved_shifts": (2**64 - 3,)}),
        (
            lambda x: x.unfold(0, 2, 2),
            {
                "_saved_dimension": 0,
                "_saved_self_sym_sizes": (4, 4, 2),
                "_saved_size": 2,
                "_saved_step": 2,
            },
        ),
        (lambda x: x.flip(0, 2), {"_saved_dims": (0, 2)}),
        (lambda x: x.unbind(1)[0], {"_saved_dim": 1}),
        (lambda x: mt.stack([x, x], 2), {"_saved_dim": 2}),
        (
            lambda x: x.repeat(2, 1, 1, 3),
            {"_saved_repeats": (2, 1, 1, 3), "_saved_self_sym_sizes": (4, 4, 2)},
        ),
    ],
)  # fmt: skip
def test_saved_attributes(f, want):
    got = _saved(f(_x(4, 4, 2)))
    assert got == want


def test_masked_fill_saves_its_mask():
    x = _x(2, 3)
    mask = mt.tensor([True, False, True])
    for value in (-100.0, mt.tensor(-100.0, dtype=mt.float64)):
        fn = x.masked_fill(mask, value).grad_fn
        assert fn._saved_mask is mask
        assert [k for k in dir(fn) if k.startswith("_saved_")] == ["_saved_mask"]


def test_double_backward_nodes():
    x = _x(4, 4, 2, seed=1)
    (g,) = mt.autograd.grad(x.unfold(0, 2, 2).pow(3).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "UnfoldBackwardBackward0"
    assert [n.name() for n, _ in g.grad_fn.next_functions] == ["MulBackward0"]
    (g,) = mt.autograd.grad(x.masked_fill(x > 0, 2.0).pow(3).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "MaskedFillBackward0"
    assert [n.name() for n, _ in g.grad_fn.next_functions] == ["MulBackward0"]


def test_masked_fill_twice_differentiable():
    x = _x(3, seed=2)
    v = mt.tensor(1.5, dtype=mt.float64, requires_grad=True)
    mask = mt.tensor([[True, False, True], [False, False, True]])
    assert mt.autograd.gradcheck(lambda x, v: x.masked_fill(mask, v), (x, v))
    assert mt.autograd.gradgradcheck(lambda x, v: x.masked_fill(mask, v), (x, v))
    assert mt.autograd.gradgradcheck(lambda x: x.masked_fill(mask, -100.0), (x,))
    assert mt.autograd.gradgradcheck(lambda x: x.unfold(0, 2, 1), (x,))


FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed when "
    "you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)


@pytest.mark.parametrize("dtype", [mt.float64, mt.float32, mt.bfloat16])
def test_layer_norm_saved_attributes(dtype):
    x = _x(2, 4, 3, seed=3).detach().to(dtype).requires_grad_(True)
    ln = mt.nn.LayerNorm((4, 3), eps=1e-6).to(dtype)
    y = ln(x)
    fn = y.grad_fn
    names = [k for k in dir(fn) if k.startswith("_saved_")]
    assert names == [
        "_saved_bias",
        "_saved_input",
        "_saved_normalized_shape",
        "_saved_result1",
        "_saved_result2",
        "_saved_weight",
    ]
    assert fn._saved_input is x and fn._saved_weight is ln.weight and fn._saved_bias is ln.bias
    assert fn._saved_normalized_shape == (4, 3)
    mean, rstd = fn._saved_result1, fn._saved_result2
    assert mean.shape == rstd.shape == (2, 1, 1)
    assert mean.dtype is rstd.dtype is dtype and not mean.requires_grad
    xf = x.detach().double()
    want_mean = xf.mean((1, 2), keepdim=True)
    want_rstd = (xf.var((1, 2), unbiased=False, keepdim=True) + 1e-6).rsqrt()
    tol = 1e-12 if dtype is mt.float64 else 1e-2
    np.testing.assert_allclose(mean.double().numpy(), want_mean.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(rstd.double().numpy(), want_rstd.numpy(), rtol=tol, atol=tol)
    y.sum().backward()
    assert fn._saved_normalized_shape == (4, 3)
    for name in ("_saved_input", "_saved_bias", "_saved_result1", "_saved_result2"):
        with pytest.raises(RuntimeError) as info:
            getattr(fn, name)
        assert str(info.value) == FREED


def test_layer_norm_saved_without_affine():
    x = _x(3, 5, seed=4)
    fn = mt.nn.functional.layer_norm(x, (5,)).grad_fn
    assert fn._saved_weight is None and fn._saved_bias is None
    assert fn._saved_result1.shape == (3, 1)
