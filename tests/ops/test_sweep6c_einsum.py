"""Sweep 6c follow-ups for einsum: mixed dtypes follow torch's pairwise plan, one operand
without a sum is a view, diagonal gradients are +0. off the diagonal, torch's error messages."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

f16, bf16, f32, f64 = torch.float16, torch.bfloat16, torch.float32, torch.float64
i32, i64, u8, b8 = torch.int32, torch.int64, torch.uint8, torch.bool


def _ops(shapes, dtypes, seed=0):
    rng = np.random.default_rng(seed)
    return [
        torch.tensor(rng.integers(0, 3, size=s)).to(d) for s, d in zip(shapes, dtypes, strict=True)
    ]


# --- mixed dtypes: a pair that sums nothing promotes; one that sums a letter must match ---


@pytest.mark.parametrize(
    "eq, shapes, dtypes, want",
    [
        ("i,j->ij", [(4,), (3,)], [i64, f32], f32),  # RoPE's freqs = einsum(arange, inv_freq)
        ("bi,i->bi", [(2, 3), (3,)], [f64, f32], f64),
        ("i,j->", [(3,), (2,)], [f32, f64], f64),
        ("ij,k->k", [(2, 3), (4,)], [f32, f64], f64),  # a letter summed inside one operand
        ("ij,k->k", [(2, 3), (4,)], [i32, i32], i64),  # torch.sum of an int32 operand: int64
        ("ij,k->k", [(2, 3), (4,)], [b8, b8], i64),
        ("i,j->ij", [(2,), (3,)], [i32, i32], i32),
        ("i,j->ij", [(2,), (3,)], [u8, i32], i32),
        ("i,j->ij", [(2,), (3,)], [i64, f16], f16),
        ("i,j->ij", [(2,), (3,)], [f16, bf16], f32),
        ("ii,i->i", [(3, 3), (3,)], [b8, f32], f32),
        ("i,j,j->i", [(2,), (3,), (3,)], [f32, f64, f64], f64),  # mul, then a Double bmm
        ("i,j,k->ijk", [(2,), (3,), (2,)], [i32, f32, f64], f64),
    ],
)
def test_einsum_mixed_dtypes_promote_where_torch_multiplies(eq, shapes, dtypes, want):
    ops = _ops(shapes, dtypes)
    r = torch.einsum(eq, *ops)
    assert r.dtype is want, (eq, r.dtype)
    expect = np.einsum(eq, *[o.to(f64).numpy() for o in ops])
    np.testing.assert_allclose(r.to(f64).numpy(), expect, err_msg=eq)


@pytest.mark.parametrize(
    "eq, shapes, dtypes, exc, msg",
    [
        ("ij,j->i", [(2, 3), (3,)], [f32, f64], RuntimeError, "Float but found Double"),
        ("ij,j->i", [(2, 3), (3,)], [f64, b8], RuntimeError, "Double but found Bool"),
        ("ij,j->i", [(2, 3), (3,)], [b8, f32], NotImplementedError, '"bmm" not implemented'),
        ("ij,i->", [(2, 3), (2,)], [i32, i32], RuntimeError, "^expected scalar type Long but"),
        ("ij,jk,k->i", [(2, 3), (3, 4), (4,)], [f32, f32, f64], RuntimeError, "Float but found"),
        # an empty first pair comes back in the right side's dtype, then meets int32
        (
            "ij,jk,k->i",
            [(2, 0), (0, 3), (3,)],
            [f32, f64, i32],
            RuntimeError,
            "Double but found Int",
        ),
    ],
)
def test_einsum_mixed_dtypes_refused_where_torch_contracts(eq, shapes, dtypes, exc, msg):
    with pytest.raises(exc, match=msg):
        torch.einsum(eq, *_ops(shapes, dtypes))


def test_einsum_empty_contraction_takes_the_right_dtype():
    r = torch.einsum("ij,jk->ik", torch.ones(2, 0, dtype=f64), torch.ones(0, 3))
    assert r.dtype is f32 and r.tolist() == [[0.0] * 3] * 2


def test_einsum_mixed_dtype_gradients_keep_each_dtype():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = torch.tensor([0.5, -1.0], dtype=f64, requires_grad=True)
    r = torch.einsum("i,j->ij", a, b)
    assert r.dtype is f64 and type(r.grad_fn).__name__ == "MulBackward0"
    r.backward(torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=f64))
    assert a.grad.dtype is f32 and b.grad.dtype is f64
    np.testing.assert_allclose(a.grad.numpy(), [-1.5, -2.5, -3.5])
    np.testing.assert_allclose(b.grad.numpy(), [22.0, 28.0])


# --- one operand without a sum: a view of it, with torch's strides ---


@pytest.mark.parametrize(
    "eq, shape, strides",
    [
        ("ij->ji", (2, 3), (1, 3)),
        ("ji", (2, 3), (1, 3)),
        ("ij->ij", (2, 3), (3, 1)),
        ("ii->i", (3, 3), (4,)),
        ("iji->ji", (3, 2, 3), (3, 7)),
        ("jii->ij", (2, 3, 3), (4, 9)),
        ("iii->i", (2, 2, 2), (7,)),
        ("...ii->...i", (2, 3, 3), (9, 4)),
        ("iijj->ji", (2, 2, 3, 3), (4, 27)),
    ],
)
def test_einsum_one_operand_without_sum_is_a_view(eq, shape, strides):
    x = torch.arange(float(np.prod(shape))).reshape(shape).clone()  # a base of its own
    r = torch.einsum(eq, x)
    assert r._base is x and r.stride() == strides, (r._base is x, r.stride())
    np.testing.assert_array_equal(r.numpy(), np.einsum(eq, x.numpy()), err_msg=eq)
    before = x.numpy().copy()
    r.add_(1.0)  # writes through to x and bumps the version counter it shares
    assert x._version == 1
    changed = x.numpy() - before
    assert changed.sum() == r.numel() and set(np.unique(changed)) <= {0.0, 1.0}
    np.testing.assert_array_equal(r.numpy(), np.einsum(eq, before) + 1.0, err_msg=eq)


def test_einsum_diagonal_view_idioms():
    k = torch.zeros(3, 3)
    torch.einsum("ii->i", k).add_(1e-3)  # "add jitter to the diagonal"
    np.testing.assert_allclose(k.numpy(), np.eye(3) * 1e-3, rtol=1e-6)
    x = torch.arange(6.0).reshape(2, 3)
    torch.einsum("ij->ji", x)[0, 0] = 100.0
    assert x[0, 0].item() == 100.0
    y = torch.einsum("ij->ji", torch.ones(2, 3, requires_grad=True))
    assert type(y.grad_fn).__name__ == "PermuteBackward0"
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        torch.einsum("ii->i", torch.ones(2, 2, requires_grad=True)).add_(1.0)
    # in place through the view of a non-leaf: the gradient sees the multiply
    w = torch.ones(3, 3, requires_grad=True)
    h = w * 2
    torch.einsum("ii->i", h).mul_(torch.tensor([1.0, 2.0, 3.0]))
    h.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2.0 + np.diag([0.0, 2.0, 4.0]))


def test_einsum_one_operand_sum_is_row_major_new_memory():
    x = torch.arange(24.0).reshape(2, 3, 4)
    r = torch.einsum("ijk->kj", x)
    assert r._base is None and r.stride() == (3, 1)
    np.testing.assert_array_equal(r.numpy(), np.einsum("ijk->kj", x.numpy()))


# --- diagonal gradients: +0. off the diagonal, as torch's diagonal backward gives ---


@pytest.mark.parametrize(
    "eq, shapes",
    [("ii->i", [(2, 2)]), ("ii->", [(2, 2)]), ("iij->j", [(2, 2, 3)]), ("ii,i->i", [(2, 2), (2,)])],
)
def test_einsum_diagonal_gradient_has_positive_zeros(eq, shapes):
    x = torch.ones(*shapes[0], requires_grad=True)
    rest = [torch.ones(*s) for s in shapes[1:]]
    y = torch.einsum(eq, x, *rest)
    y.backward(-torch.ones_like(y))
    g = x.grad.numpy()
    off = g == 0
    assert off.any() and not np.signbit(g[off]).any(), g
    np.testing.assert_array_equal(g[~off], -np.ones((~off).sum()))


@pytest.mark.parametrize(
    "eq, shapes",
    [
        ("ii->i", [(3, 3)]),
        ("iji->ji", [(3, 2, 3)]),
        ("ii->", [(3, 3)]),
        ("ii,i->i", [(3, 3), (3,)]),
        ("ij,jj->i", [(2, 3), (3, 3)]),
        ("bii,bi->b", [(2, 3, 3), (2, 3)]),
    ],
)
def test_einsum_diagonal_gradcheck(eq, shapes):
    rng = np.random.default_rng(1)
    xs = [torch.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    assert gradcheck(lambda *a: torch.einsum(eq, *a), xs)
    assert gradgradcheck(lambda *a: torch.einsum(eq, *a), xs)


# --- error paths in torch's words ---


@pytest.mark.parametrize(
    "eq, shapes, msg",
    [
        (
            "...i,...i->...",
            [(2, 3), (4, 3)],
            "dimension 0 covered by ellipsis in operand 1has size 4 which does not broadcast "
            "with previously seen ellipsis with size 2 for the respective dimension",
        ),
        (
            "...i,...i",
            [(2, 3), (2, 4, 3)],
            "dimension 1 covered by ellipsis in operand 1has size 4",
        ),
        ("......", [(2, 3)], "found '.' for operand 0 for which an ellipsis was already found"),
        ("....", [(2, 3)], "found '.' for operand 0 for which an ellipsis was already found"),
        (".i", [(2, 3)], "found '.' for operand 0 that is not part of any ellipsis"),
        ("i,..j", [(2,), (2, 3)], "found '.' for operand 1 that is not part of any ellipsis"),
        ("...->......", [(2, 3)], r"found '.' for output but an ellipsis \(...\) was already"),
        ("...->..", [(2, 3)], r"found '.' for output that is not part of any ellipsis \(...\)"),
        (
            "ii->i",
            [(1, 3)],
            "subscript i is repeated for operand 0 but the sizes don't match, 3 != 1",
        ),
        (
            "ii->i",
            [(3, 4)],
            "subscript i is repeated for operand 0 but the sizes don't match, 4 != 3",
        ),
        (
            "iii->i",
            [(3, 3, 2)],
            "subscript i is repeated for operand 0 but the sizes don't match, 2 != 3",
        ),
        ("ii,jj->ij", [(2, 2), (1, 3)], "subscript j is repeated for operand 1 but the sizes"),
        (
            "ii,i->i",
            [(3, 3), (4,)],
            "subscript i has size 4 for operand 1 which does not broadcast",
        ),
    ],
)
def test_einsum_error_messages(eq, shapes, msg):
    with pytest.raises(RuntimeError, match="^einsum\\(\\): " + msg):
        torch.einsum(eq, *[torch.ones(*s) for s in shapes])
