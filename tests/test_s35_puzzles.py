"""Session 35 (helper puzzles): torch-free regression tests of the library fixes the tensor- and
autodiff-puzzle programs of tests/reference/test_s35_puzzles_reference.py found: matmul of a
vector and a batch of matrices folds into one mv as torch does (mv's size-mismatch message, an
MvBackward0 node); the gradient of pow for a tensor exponent multiplies torch's where (a nan or
inf upstream gradient stays nan at a zero base, and the second derivative of 0 ** x is nan);
torch.flip without dims raises torch's parser message; max/min/amax/amin nodes answer torch's
grad_fn._saved_* attributes; diag of a vector checks out='s dtype cast first. torch's messages
are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


# --- matmul: vector @ batch of matrices ---


@pytest.mark.parametrize(
    "sa, sb, transposed, message",
    [
        ((4,), (4, 1, 3), False, "size mismatch, got input (12), mat (12x1), vec (4)"),
        ((3,), (4, 3, 2), True, "size mismatch, got input (12), mat (12x2), vec (3)"),
        # a batch whose transpose does not fold without a copy goes to bmm, as in torch
        (
            (3,),
            (4, 2, 3),
            False,
            "Expected size for first two dimensions of batch2 tensor to be: [4, 3] but got: "
            "[4, 2].",
        ),
    ],
)
def test_vector_matmul_batch_size_error(sa, sb, transposed, message):
    b = mt.ones(*sb)
    if transposed:
        b = b.mT
    assert _message(RuntimeError, lambda: mt.ones(*sa) @ b) == message


def test_vector_matmul_batch_folds_into_mv():
    g = mt.Generator().manual_seed(0)
    a = mt.randn(3, generator=g, dtype=mt.float64, requires_grad=True)
    b = mt.randn(2, 4, 3, generator=g, dtype=mt.float64).mT.requires_grad_(True)  # (2, 3, 4)
    out = a @ b
    assert out.shape == (2, 4)
    assert type(out.grad_fn).__name__ == "UnsafeViewBackward0"
    assert [type(f).__name__ for f, _ in out.grad_fn.next_functions] == ["MvBackward0"]
    want = np.einsum("k,bkn->bn", a.detach().numpy(), b.detach().numpy())
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12, err_msg="a @ b")
    w = mt.randn(2, 4, generator=g, dtype=mt.float64)
    (out * w).sum().backward()
    np.testing.assert_allclose(
        a.grad.numpy(), np.einsum("bn,bkn->k", w.numpy(), b.detach().numpy()), rtol=1e-12
    )
    np.testing.assert_allclose(
        b.grad.numpy(), np.einsum("k,bn->bkn", a.detach().numpy(), w.numpy()), rtol=1e-12
    )


def test_vector_matmul_batch_gradcheck():
    g = mt.Generator().manual_seed(1)
    a = mt.randn(3, generator=g, dtype=mt.float64, requires_grad=True)
    b = mt.randn(2, 4, 3, generator=g, dtype=mt.float64).mT.requires_grad_(True)
    assert mt.autograd.gradcheck(mt.matmul, (a, b))
    assert mt.autograd.gradgradcheck(mt.matmul, (a, b))


# --- pow with a tensor exponent: the exponent's gradient ---


def test_pow_exponent_grad_keeps_nan_upstream_at_zero_base():
    a = mt.tensor([0.0, 0.0, 2.0], dtype=mt.float64, requires_grad=True)
    b = mt.tensor([1.0, -1.0, 2.0], dtype=mt.float64, requires_grad=True)
    up = mt.tensor([float("inf"), 1.0, float("nan")], dtype=mt.float64)
    ga, gb = mt.autograd.grad(a**b, (a, b), up)
    # torch: grad * where(a == 0 & b >= 0, 0, a ** b * log(a)): inf * 0 is nan
    np.testing.assert_array_equal(ga.numpy(), [np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(gb.numpy(), [np.nan, -np.inf, np.nan])
    (g,) = mt.autograd.grad(0.0**b, b, mt.tensor([float("inf"), 1.0, 2.0], dtype=mt.float64))
    np.testing.assert_array_equal(g.numpy(), [np.nan, -np.inf, 0.0])


def test_pow_zero_base_second_derivative_is_nan():
    x = mt.tensor([2.0, 3.0, 0.0], dtype=mt.float64, requires_grad=True)
    (g,) = mt.autograd.grad((0.0**x).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [0.0, 0.0, 0.0])
    assert type(g.grad_fn).__name__ == "MulBackward0"
    (gg,) = mt.autograd.grad(g.sum(), x)
    # the untaken branch's 0 * log(0) = nan reaches the gradient, as in torch
    assert np.isnan(gg.numpy()).all(), gg


def test_pow_tensor_exponent_gradgradcheck():
    g = mt.Generator().manual_seed(2)
    a = (mt.rand(4, generator=g, dtype=mt.float64) + 0.5).requires_grad_(True)
    b = mt.randn(4, generator=g, dtype=mt.float64).requires_grad_(True)
    assert mt.autograd.gradcheck(mt.pow, (a, b))
    assert mt.autograd.gradgradcheck(mt.pow, (a, b))


# --- flip without dims ---


def test_flip_without_dims():
    msg = 'flip() missing 1 required positional arguments: "dims"'
    assert _message(TypeError, lambda: mt.flip(mt.ones(3))) == msg
    assert _message(TypeError, lambda: mt.ones(3).flip()) == msg
    assert mt.flip(mt.arange(3), dims=[0]).tolist() == [2, 1, 0]


# --- max / min / amax / amin nodes: grad_fn._saved_<name> as torch's ---


def test_max_dim_saved_attributes():
    x = mt.tensor([[1.0, 3.0, 3.0], [0.0, -1.0, 5.0]], requires_grad=True)
    r = x.min(-1)
    node = r.values.grad_fn
    saved = sorted(k for k in dir(node) if k.startswith("_saved_"))
    assert saved == ["_saved_dim", "_saved_indices", "_saved_keepdim", "_saved_self_sym_sizes"]
    assert node._saved_dim == 2**64 - 1  # torch's binding reads the int64 -1 back unsigned
    assert node._saved_indices is r.indices
    assert node._saved_keepdim is False
    assert node._saved_self_sym_sizes == (2, 3)
    r = x.max(1, keepdim=True)
    assert (r.values.grad_fn._saved_dim, r.values.grad_fn._saved_keepdim) == (1, True)
    r.values.sum().backward()
    msg = _message(RuntimeError, lambda: r.values.grad_fn._saved_indices)
    assert msg.startswith("Trying to backward through the graph a second time"), msg


def test_amax_and_full_max_saved_attributes():
    x = mt.tensor([[1.0, 3.0, 3.0], [0.0, -1.0, 5.0]], requires_grad=True)
    y = x.amax((-1, 0))
    node = y.grad_fn
    saved = sorted(k for k in dir(node) if k.startswith("_saved_"))
    assert saved == ["_saved_dim", "_saved_keepdim", "_saved_result", "_saved_self"]
    assert node._saved_dim == (2**64 - 1, 0)
    assert node._saved_self is x
    assert node._saved_result.item() == 5.0
    assert x.amin(1, True).grad_fn._saved_dim == (1,)
    assert x.amax().grad_fn._saved_dim == ()
    node = x.max().grad_fn
    saved = sorted(k for k in dir(node) if k.startswith("_saved_"))
    assert saved == ["_saved_result", "_saved_self"]
    assert node._saved_self is x


# --- diag with out= ---


def test_diag_of_vector_checks_out_cast_first():
    msg = "diag: result type Float can't be cast to the desired out= type Bool"
    assert (
        _message(RuntimeError, lambda: mt.diag(mt.ones(2), out=mt.zeros(2, 2, dtype=mt.bool)))
        == msg
    )
    msg = "diag: result type Float can't be cast to the desired out= type Long"
    assert (
        _message(RuntimeError, lambda: mt.diag(mt.ones(2), out=mt.zeros(2, 2, dtype=mt.long)))
        == msg
    )
    # a castable dtype, and a matrix's diagonal: torch's exact-dtype message
    msg = "Expected out tensor to have dtype float, but got double instead"
    out = mt.zeros(2, 2, dtype=mt.float64)
    assert _message(RuntimeError, lambda: mt.diag(mt.ones(2), out=out)) == msg
    msg = "Expected out tensor to have dtype float, but got long int instead"
    out = mt.zeros(2, dtype=mt.long)
    assert _message(RuntimeError, lambda: mt.diag(mt.ones(2, 2), out=out)) == msg
