"""Session 38 (helper shapes): torch-free regression tests of the library fixes the shape/join/
split sweep of tests/reference/test_s38_shapes_reference.py found: unflatten's error for two
inferred sizes (torch.unflatten, Tensor.unflatten and nn.Unflatten wrap infer_size's message
as torch does), t_()'s error in its own name, and broadcast_tensors' TypeError for a list or a
number among its arguments. torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

INFER = "unflatten got an unexpected error:\nonly one dimension can be inferred"


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.unflatten(1, (-1, -1)),
        lambda x: mt.unflatten(x, -1, (-1, 2, -1)),
        lambda x: mt.nn.Unflatten(1, (-1, -1))(x),
    ],
)
def test_unflatten_two_inferred_sizes(fn):
    x = mt.randn(2, 3, 4, generator=mt.Generator().manual_seed(0))
    assert _message(RuntimeError, lambda: fn(x)) == INFER


def test_unflatten_inferred_size_still_works():
    x = mt.arange(24.0).reshape(2, 3, 4)
    assert x.unflatten(2, (2, -1)).shape == (2, 3, 2, 2)
    assert mt.nn.Unflatten(2, (-1, 2))(x).shape == (2, 3, 2, 2)


def test_view_two_inferred_sizes_unwrapped():
    x = mt.zeros(2, 3)
    assert _message(RuntimeError, lambda: x.view(-1, -1)) == "only one dimension can be inferred"


def test_t_inplace_names_itself():
    x = mt.zeros(2, 3, 4)
    assert _message(RuntimeError, x.t_) == (
        "t_() expects a tensor with <= 2 dimensions, but self is 3D"
    )
    assert _message(RuntimeError, x.t) == (
        "t() expects a tensor with <= 2 dimensions, but self is 3D"
    )
    y = mt.arange(6.0).reshape(2, 3)
    assert y.t_() is y and y.shape == (3, 2) and y.stride() == (1, 3)


@pytest.mark.parametrize(
    "args, message",
    [
        (lambda v: ([v, v],), "expected Tensor as element 0 in argument 0, but got list"),
        (lambda v: ((v, v),), "expected Tensor as element 0 in argument 0, but got tuple"),
        (lambda v: (v, 1.0), "expected Tensor as element 1 in argument 0, but got float"),
        (lambda v: (v, v, None), "expected Tensor as element 2 in argument 0, but got NoneType"),
    ],
)
def test_broadcast_tensors_refuses_non_tensors(args, message):
    v = mt.ones(3, 1)
    assert _message(TypeError, lambda: mt.broadcast_tensors(*args(v))) == message


def test_broadcast_tensors_still_broadcasts():
    a, b = mt.ones(3, 1), mt.zeros(4)
    out = mt.broadcast_tensors(a, b)
    assert [tuple(o.shape) for o in out] == [(3, 4), (3, 4)]
    (c,) = mt.broadcast_tensors(a)
    assert c is a
    assert mt.broadcast_tensors() == ()


def _out_grad(op):
    return (
        f"{op}(): functions with out=... arguments don't support automatic differentiation, "
        "but one of the arguments requires grad."
    )


@pytest.mark.parametrize(
    "op, fn",
    [
        ("cat", lambda v, o: mt.cat([v, v], out=o(6, 5))),
        ("cat", lambda v, o: mt.hstack([v, v], out=o(3, 10))),
        ("cat", lambda v, o: mt.dstack([v, v], out=o(3, 5, 2))),
        ("cat", lambda v, o: mt.column_stack([v, v], out=o(3, 10))),
        ("stack", lambda v, o: mt.stack([v, v], out=o(2, 3, 5))),
        ("tril", lambda v, o: mt.tril(v, out=o(3, 5))),
        ("triu", lambda v, o: mt.triu(v, 1, out=o(3, 5))),
        ("gather", lambda v, o: mt.take_along_dim(v, mt.tensor([[0]]), 1, out=o(3, 1))),
        ("narrow_copy", lambda v, o: mt.narrow_copy(v, 0, 0, 1, out=o(1, 5))),
        ("aten::permute_copy", lambda v, o: mt.permute_copy(v, (1, 0), out=o(5, 3))),
        ("aten::view_copy", lambda v, o: mt.view_copy(v, (15,), out=o(15))),
        ("aten::diagonal_copy", lambda v, o: mt.diagonal_copy(v, out=o(3))),
        ("aten::slice_scatter", lambda v, o: mt.slice_scatter(v, v, out=o(3, 5))),
    ],
)
def test_out_requiring_grad_names_the_op(op, fn):
    """Only out requires grad (the inputs make no node): torch still names its kernel."""
    v = mt.ones(3, 5)

    def o(*shape):
        return mt.empty(*shape, requires_grad=True)

    assert _message(RuntimeError, lambda: fn(v, o)) == _out_grad(op)


def test_out_without_grad_still_written():
    v = mt.arange(15.0).reshape(3, 5)
    o = mt.empty(6, 5)
    assert mt.cat([v, v], out=o) is o and o[3:].equal(v)
    p = mt.empty(5, 3)
    assert mt.permute_copy(v, (1, 0), out=p) is p and p.equal(v.t())
    with mt.no_grad():
        g = mt.empty(3, 5, requires_grad=True)
        assert mt.tril(v, out=g) is g
