"""Session 32 (helper memnet): torch-free regression tests of the library fixes the memory-network
programs of tests/reference/test_s32_memnet_reference.py found: cosine_similarity refuses a
negative eps, baddbmm checks that its input expands to the result's shape first (in place too,
before the overlap check), and baddbmm/addbmm name their own missing bool kernels (torch's
messages, written here as literals)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional


def _raises(fn, message, kind=RuntimeError):
    with pytest.raises(kind) as info:
        fn()
    assert str(info.value) == message


@pytest.mark.parametrize(
    "eps, text", [(-1.0, "-1"), (-1.5, "-1.5"), (-1e-9, "-1e-09"), (-1e20, "-1e+20"),
                  (math.nan, "nan"), (-math.inf, "-inf"), (-2, "-2")],
)  # fmt: skip
def test_cosine_similarity_refuses_a_negative_eps(eps, text):
    x = mt.ones(2, 3)
    _raises(lambda: F.cosine_similarity(x, x, eps=eps), f"eps must be non-negative, got: {text}")
    # after the dtype check, before the shapes and the dim
    _raises(
        lambda: F.cosine_similarity(x.long(), x.long(), eps=eps),
        "expected common dtype to be floating point, yet common dtype is Long",
    )
    _raises(
        lambda: F.cosine_similarity(x, mt.ones(3, 2), eps=eps),
        f"eps must be non-negative, got: {text}",
    )
    _raises(
        lambda: F.cosine_similarity(x, x, dim=5, eps=eps),
        f"eps must be non-negative, got: {text}",
    )


def test_cosine_similarity_takes_a_zero_eps():
    x = mt.tensor([[3.0, 4.0]])
    for eps in (0.0, -0.0):
        np.testing.assert_allclose(F.cosine_similarity(x, x, eps=eps).numpy(), [1.0], rtol=1e-6)


def _expand(want, at, target, sizes):
    return (
        f"The expanded size of the tensor ({want}) must match the existing size ({at[1]}) at "
        f"non-singleton dimension {at[0]}.  Target sizes: {target}.  Tensor sizes: {sizes}"
    )


@pytest.mark.parametrize(
    "call, message, kind",
    [
        (
            lambda: mt.baddbmm(mt.ones(2, 5, 5), mt.ones(2, 5, 4), mt.ones(2, 5, 4)),
            _expand(4, (2, 5), [2, 5, 4], [2, 5, 5]),
            RuntimeError,
        ),
        (  # before the dtypes
            lambda: mt.baddbmm(mt.ones(2, 5, 5).double(), mt.ones(2, 5, 4), mt.ones(2, 5, 4)),
            _expand(4, (2, 5), [2, 5, 4], [2, 5, 5]),
            RuntimeError,
        ),
        (
            lambda: mt.baddbmm(mt.ones(2, 5, 5), mt.ones(2, 5, 4), mt.ones(2, 4, 4).double()),
            _expand(4, (2, 5), [2, 5, 4], [2, 5, 5]),
            RuntimeError,
        ),
        (  # before bmm's batch check
            lambda: mt.baddbmm(mt.ones(3, 5, 4), mt.ones(2, 5, 4), mt.ones(2, 4, 4)),
            _expand(2, (0, 3), [2, 5, 4], [3, 5, 4]),
            RuntimeError,
        ),
        (  # a 2-d batch1 still gives two sizes
            lambda: mt.baddbmm(mt.ones(2, 5, 5), mt.ones(5, 4), mt.ones(2, 4, 4)),
            _expand(4, (2, 5), [5, 4, 4], [2, 5, 5]),
            RuntimeError,
        ),
        (
            lambda: mt.baddbmm(mt.ones(2, 5, 4), mt.ones(2, 5, 4), mt.ones(4, 4)),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
            IndexError,
        ),
        (
            lambda: mt.baddbmm(mt.ones(2, 5, 4), mt.ones(4), mt.ones(2, 4, 4)),
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
            IndexError,
        ),
        (
            lambda: mt.baddbmm(mt.ones(2, 5, 4), mt.ones(()), mt.ones(2, 4, 4)),
            "Dimension specified as 0 but tensor has no dimensions",
            IndexError,
        ),
        (  # the input fits: bmm's checks
            lambda: mt.baddbmm(mt.ones(2, 5, 4), mt.ones(2, 5, 4), mt.ones(3, 4, 4, 1)),
            "batch2 must be a 3D tensor",
            RuntimeError,
        ),
        (
            lambda: mt.baddbmm(mt.ones(2, 5, 4), mt.ones(2, 5, 3), mt.ones(2, 4, 4)),
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: "
            "[2, 4].",
            RuntimeError,
        ),
        (
            lambda: mt.baddbmm(
                mt.ones(2, 5, 4).bool(), mt.ones(2, 5, 4).bool(), mt.ones(2, 4, 4).bool()
            ),
            "\"baddbmm\" not implemented for 'Bool'",
            NotImplementedError,
        ),  # fmt: skip
        (
            lambda: mt.baddbmm(
                mt.ones(2, 5, 4).bool(), mt.ones(2, 5, 4).bool(), mt.ones(2, 3, 4).bool()
            ),
            "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: "
            "[2, 3].",
            RuntimeError,
        ),  # fmt: skip
        (
            lambda: (
                mt.ones(2, 5, 4).bool().baddbmm_(mt.ones(2, 5, 4).bool(), mt.ones(2, 4, 4).bool())
            ),
            "\"baddbmm\" not implemented for 'Bool'",
            NotImplementedError,
        ),  # fmt: skip
        (
            lambda: mt.addbmm(
                mt.ones(5, 4).bool(), mt.ones(2, 5, 4).bool(), mt.ones(2, 4, 4).bool()
            ),
            "\"addmm_impl_cpu_\" not implemented for 'Bool'",
            NotImplementedError,
        ),  # fmt: skip
    ],
)
def test_baddbmm_checks_in_torchs_order(call, message, kind):
    _raises(call, message, kind)


def test_baddbmm_in_place_checks_the_shape_first():
    m = mt.ones(2, 5, 4)
    _raises(lambda: m.baddbmm_(m, m.transpose(1, 2)), _expand(5, (2, 4), [2, 5, 5], [2, 5, 4]))
    # a shape that fits passes to the product
    out = mt.ones(2, 5, 4).baddbmm_(m, mt.ones(2, 4, 4), alpha=2)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 5, 4), 9.0))


def test_baddbmm_broadcasts_its_input():
    out = mt.baddbmm(mt.ones(5, 4), mt.ones(2, 5, 3), mt.ones(2, 3, 4), beta=0.5)
    assert out.shape == (2, 5, 4)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 5, 4), 3.5))
    x = mt.ones(2, 3, 3, dtype=mt.float64, requires_grad=True)
    a = mt.ones(2, 3, 3, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda x, a: mt.baddbmm(x, a, a.transpose(1, 2)), (x, a))


VIEW_OF_LEAF = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)


def test_fill_diagonal_of_a_leaf_names_the_diagonal_view():
    p = mt.nn.Parameter(mt.ones(3, 3))
    _raises(lambda: p.fill_diagonal_(0), VIEW_OF_LEAF)
    _raises(lambda: mt.nn.Parameter(mt.ones(0, 3)).fill_diagonal_(1), VIEW_OF_LEAF)
    # the argument and shape checks come first
    _raises(lambda: mt.nn.Parameter(mt.ones(3)).fill_diagonal_(0), "dimensions must larger than 1")
    _raises(
        lambda: mt.nn.Parameter(mt.ones(2, 3, 4)).fill_diagonal_(0),
        "all dimensions of input must be of equal length",
    )
    _raises(
        lambda: p.fill_diagonal_(1, wrap=2),
        "fill_diagonal_(): argument 'wrap' must be bool, not int",
        TypeError,
    )
    with mt.no_grad():
        p.fill_diagonal_(0)
    np.testing.assert_array_equal(p.detach().numpy(), 1 - np.eye(3))
    # a non-leaf is filled with a gradient that skips the diagonal
    x = mt.ones(2, 2, requires_grad=True)
    y = (x * 2).fill_diagonal_(5.0)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 2.0], [2.0, 0.0]])


def _version_error(of):
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [torch.FloatTensor [5, 4]], which is output 0 of {of}, is at version 1; "
        "expected version 0 instead. Hint: enable anomaly detection to find the operation that "
        "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
        "check_nan=False)."
    )


@pytest.mark.parametrize(
    "other, of",
    [((4,), "AsStrided"), ((1, 4), "AsStrided"), ((5, 4), "torch::autograd::CopySlices")],
)
def test_cosine_similarity_saves_broadcast_inputs_as_views(other, of):
    m = mt.ones(5, 4, requires_grad=True).clone()
    cs = F.cosine_similarity(m, mt.ones(*other), dim=-1)
    m[0, 0] = 2.0
    _raises(lambda: cs.sum().backward(), _version_error(of))


def test_cosine_similarity_of_broadcast_inputs_is_twice_differentiable():
    a = mt.tensor([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]], dtype=mt.float64, requires_grad=True)
    b = mt.tensor([0.5, -0.2, 1.0], dtype=mt.float64, requires_grad=True)
    fn = lambda a, b: F.cosine_similarity(a, b, dim=-1)  # noqa: E731
    assert mt.autograd.gradcheck(fn, (a, b))
    assert mt.autograd.gradgradcheck(fn, (a, b))


def _dtype_error(first, second):
    return f"expected scalar type {first} but found {second}"


@pytest.mark.parametrize(
    "eq, shapes, dtypes, message",
    [
        ("ij,jk->ik", [(2, 3), (3, 4)], ["float32", "float64"], _dtype_error("Float", "Double")),
        # the right side's dims all come first in the output: torch runs bmm(right, left)
        ("ij,jk->ki", [(2, 3), (3, 4)], ["float32", "float64"], _dtype_error("Double", "Float")),
        ("bn,bm", [(2, 3), (2, 4)], ["float32", "float64"], _dtype_error("Double", "Float")),
        ("bn,bm->nm", [(2, 3), (2, 4)], ["float32", "float64"], _dtype_error("Float", "Double")),
        ("ab,bc->ca", [(2, 3), (3, 4)], ["float32", "int64"], _dtype_error("Long", "Float")),
        (
            "bij,bjk->bki",
            [(2, 3, 4), (2, 4, 5)],
            ["float32", "float64"],
            _dtype_error("Double", "Float"),
        ),
        # no dim only the left side keeps (i is summed first): no swap
        (
            "bij,bjk->bk",
            [(2, 3, 4), (2, 4, 5)],
            ["float32", "float64"],
            _dtype_error("Float", "Double"),
        ),
        # a dim of size 1 on both sides (j, summed at the first pair) counts as the right's
        (
            "ij,jk,kl->li",
            [(2, 3), (3, 4), (4, 5)],
            ["float32", "float32", "float64"],
            _dtype_error("Float", "Double"),
        ),
        (
            "ij,jk,k->ki",
            [(2, 3), (3, 4), (4,)],
            ["float32", "float64", "float64"],
            _dtype_error("Double", "Float"),
        ),
    ],
)
def test_einsum_names_mixed_dtypes_in_torchs_bmm_order(eq, shapes, dtypes, message):
    ops = [mt.ones(*s, dtype=getattr(mt, d)) for s, d in zip(shapes, dtypes, strict=True)]
    _raises(lambda: mt.einsum(eq, *ops), message)
