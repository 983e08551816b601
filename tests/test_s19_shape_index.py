"""Shape, view, indexing and selection ops against torch 2.13's behaviour (session 19's OpInfo
sweep): 0-d targets given as [] to the *_copy views and repeat/tile, diff with n=0, index_fill's
value gradient under a repeated index, narrow's Tensor start and narrow_copy's own checks, gather
and scatter with an empty index of any dtype, out= sharing memory with an operand, the TypeErrors
of hsplit, masked_fill with a complex value and Tensor.__rdiv__. Expected
values were printed by torch for the same calls."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

_OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single memory"
_INTERNAL = "more than one element of the written-to tensor refers to a single memory location"


# --- a 0-d target spelled [] ---


@pytest.mark.parametrize(
    "op",
    [
        lambda x: minitorch.expand_copy(x, []),
        lambda x: minitorch.view_copy(x, []),
        lambda x: minitorch.permute_copy(x, []),
        lambda x: x.repeat([]),
        lambda x: minitorch.tile(x, []),
        lambda x: x.tile(()),
    ],
)
def test_empty_size_of_a_0d_tensor_stays_0d(op):
    r = op(minitorch.tensor(2.5, dtype=minitorch.float64))
    assert tuple(r.shape) == ()
    assert r.item() == 2.5


def test_view_copy_empty_size_of_many_elements():
    with pytest.raises(RuntimeError, match=r"shape '\[\]' is invalid for input of size 2"):
        minitorch.view_copy(minitorch.tensor([1.0, 2.0]), [])
    assert tuple(minitorch.view_copy(minitorch.tensor([3.0]), []).shape) == ()


def test_repeat_empty_of_0d_gradient():
    x = minitorch.tensor(2.0, requires_grad=True)
    y = x.repeat([])
    assert type(y.grad_fn).__name__ == "RepeatBackward0"
    y.backward(minitorch.tensor(3.0))
    assert x.grad.item() == 3.0


# --- diff ---


def test_diff_n0_ignores_prepend_append():
    x = minitorch.arange(6.0).reshape(2, 3).requires_grad_()
    p = minitorch.tensor([[10.0, 20.0, 30.0]])
    for r in (minitorch.diff(x, 0, 0, p), minitorch.diff(x, 0, 0, p, p), x.diff(0, 0, None, p)):
        np.testing.assert_array_equal(r.detach().numpy(), [[0, 1, 2], [3, 4, 5]])
        assert type(r.grad_fn).__name__ == "CopyBackwards"
    r = minitorch.diff(x.detach(), 0, 1, minitorch.tensor([[1.0], [2.0]]))
    assert tuple(r.shape) == (2, 3)


@pytest.mark.parametrize("n", [0, 1])
def test_diff_checks_prepend_sizes(n):
    x = minitorch.arange(6.0).reshape(2, 3)
    msg = (
        r"diff expects the shape of tensor to prepend or append to match that of input except "
        r"along the differencing dimension; input.size\(1\) = 3, but got tensor.size\(1\) = 5"
    )
    with pytest.raises(RuntimeError, match=msg):
        minitorch.diff(x, n, 0, minitorch.ones(2, 5))
    with pytest.raises(RuntimeError, match=msg):
        minitorch.diff(x, n, 0, None, minitorch.ones(2, 5))


# --- index_fill: the value's gradient counts each filled element once ---


def test_index_fill_value_grad_with_repeated_index():
    x = minitorch.arange(12.0, dtype=minitorch.float64).reshape(3, 4).requires_grad_()
    v = minitorch.tensor(-7.5, dtype=minitorch.float64, requires_grad=True)
    g = minitorch.arange(12.0, dtype=minitorch.float64).reshape(3, 4) + 1
    y = minitorch.index_fill(x, -1, minitorch.tensor([3, 3, 1]), v)
    gx, gv = minitorch.autograd.grad(y, (x, v), g)
    assert gv.item() == 42.0
    np.testing.assert_array_equal(gx.numpy(), [[1, 0, 3, 0], [5, 0, 7, 0], [9, 0, 11, 0]])
    y = minitorch.index_fill(x, 0, minitorch.tensor([0, 0]), v)
    assert minitorch.autograd.grad(y, v, g)[0].item() == 10.0
    assert minitorch.autograd.gradgradcheck(
        lambda a, b: minitorch.index_fill(a, 1, minitorch.tensor([3, 3, 1]), b), (x, v)
    )


# --- narrow / narrow_copy ---


def test_narrow_tensor_start():
    x = minitorch.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(x.narrow(1, minitorch.tensor(1), 2).numpy(), x.numpy()[:, 1:3])
    np.testing.assert_array_equal(
        minitorch.narrow(x, 1, minitorch.tensor(1, dtype=minitorch.uint8), 2).numpy(),
        x.numpy()[:, 1:3],
    )
    for start in (
        minitorch.tensor([1]),
        minitorch.tensor(1.0),
        minitorch.tensor(True),
        minitorch.tensor([1, 2]),
    ):
        with pytest.raises(RuntimeError, match="start must be an 0-dim integral Tensor."):
            minitorch.narrow(x, 1, start, 2)
    with pytest.raises(RuntimeError, match="start must be an 0-dim integral Tensor."):
        minitorch.narrow(minitorch.tensor(3.0), 0, minitorch.tensor([1]), 1)


def test_narrow_copy_checks():
    x = minitorch.arange(12.0).reshape(3, 4)
    with pytest.raises(RuntimeError, match=r"start \(0\) \+ length \(-1\) exceeds dimension size"):
        minitorch.narrow_copy(x, 1, 0, -1)
    with pytest.raises(RuntimeError, match=r"start \(3\) \+ length \(2\) exceeds dimension size"):
        minitorch.narrow_copy(x, 1, -1, 2)
    with pytest.raises(RuntimeError, match="Expected dim < static_cast"):
        minitorch.narrow_copy(x, 2, 0, 0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        minitorch.narrow_copy(x, -3, 0, 0)
    with pytest.raises(IndexError, match=r"start out of range .* but got 5\)"):
        minitorch.narrow_copy(x, 1, 5, -2)
    with pytest.raises(TypeError, match=r"narrow_copy\(\): argument 'start' \(position 3\)"):
        minitorch.narrow_copy(x, 1, minitorch.tensor(1.0), 1)
    r = minitorch.narrow_copy(x, 1, minitorch.tensor([[1]]), minitorch.tensor([2]))
    np.testing.assert_array_equal(r.numpy(), x.numpy()[:, 1:3])


# --- gather / scatter: an empty index of any dtype ---


@pytest.mark.parametrize("dt", ["uint8", "float32", "bool", "int16"])
def test_gather_scatter_empty_index_any_dtype(dt):
    x = minitorch.arange(5.0)
    idx = minitorch.tensor([], dtype=getattr(minitorch, dt))
    assert tuple(minitorch.gather(x, 0, idx).shape) == (0,)
    assert tuple(minitorch.gather(minitorch.ones(2, 2), 0, idx.reshape(0, 5)).shape) == (0, 5)
    np.testing.assert_array_equal(minitorch.scatter(x, 0, idx, 2.0).numpy(), np.arange(5.0))
    r = x.clone().scatter_add_(0, idx, minitorch.ones(0))
    np.testing.assert_array_equal(r.numpy(), np.arange(5.0))


def test_take_along_dim_index_dtype_messages():
    x = minitorch.arange(5.0)
    idx = minitorch.tensor([], dtype=minitorch.uint8)
    assert tuple(minitorch.take_along_dim(x, idx).shape) == (0,)
    with pytest.raises(RuntimeError, match="dtype of indices should be Long but got Byte"):
        minitorch.take_along_dim(x, idx, 0)
    with pytest.raises(RuntimeError, match="dtype of indices should be Long but got Float"):
        minitorch.take_along_dim(x, minitorch.tensor([1.0]), 3)


# --- out= sharing memory with an operand ---


def _b():
    return minitorch.arange(6.0)


@pytest.mark.parametrize(
    "op",
    [
        lambda b: minitorch.gather(b, 0, minitorch.tensor([2, 1, 0]), out=b[:3]),
        lambda b: minitorch.gather(b, 0, minitorch.tensor([2, 1, 0, 3, 4, 5]), out=b),
        lambda b: minitorch.take(b, minitorch.tensor([2, 1, 0]), out=b[:3]),
        lambda b: minitorch.masked_select(b, b > 2, out=b[:3]),
        lambda b: minitorch.masked_select(b, b > -1, out=b),
        lambda b: minitorch.index_select(b, 0, minitorch.tensor([0]), out=b[5:]),
        lambda b: minitorch.kthvalue(b, 5, out=(b, minitorch.tensor(0))),
        lambda b: minitorch.kthvalue(b, 5, out=(b[3], minitorch.tensor(0))),
        lambda b: minitorch.topk(b, 2, out=(b[:2], minitorch.zeros(2, dtype=minitorch.int64))),
        lambda b: minitorch.mode(b, out=(b[0], minitorch.zeros((), dtype=minitorch.int64))),
        lambda b: minitorch.median(b, 0, out=(b[0], minitorch.zeros((), dtype=minitorch.int64))),
    ],
)
def test_out_sharing_input_memory_refused(op):
    with pytest.raises(RuntimeError, match=_OVERLAP):
        op(_b())


def test_out_index_overlaps():
    b = minitorch.tensor([2, 1, 0, 0, 1, 2])
    # gather refuses only a partial overlap with its index; take, index_select any overlap
    r = minitorch.gather(minitorch.arange(3), 0, b[:3], out=b[:3])
    np.testing.assert_array_equal(r.numpy(), [2, 1, 0])
    for op in (
        lambda b: minitorch.gather(minitorch.arange(3), 0, b[:3], out=b[1:4]),
        lambda b: minitorch.take(minitorch.arange(3), b[:3], out=b[:3]),
        lambda b: minitorch.index_select(minitorch.arange(3), 0, b[:3], out=b[:3]),
    ):
        with pytest.raises(RuntimeError, match=_OVERLAP):
            op(minitorch.tensor([2, 1, 0, 0, 1, 2]))
    # kthvalue checks its values alone: indices in input's memory are fine
    b = minitorch.arange(3)
    r = minitorch.kthvalue(b, 1, out=(minitorch.tensor(0), b[0]))
    assert r.values.item() == 0 and r.indices.item() == 0
    # disjoint parts of one tensor, and non-dense ones, are allowed
    b = _b()
    r = minitorch.gather(b[:3], 0, minitorch.tensor([2, 1, 0]), out=b[3:])
    np.testing.assert_array_equal(r.numpy(), [2.0, 1.0, 0.0])
    b = _b()
    r = minitorch.gather(b[::2], 0, minitorch.tensor([0, 1, 2]), out=b[1::2])
    np.testing.assert_array_equal(r.numpy(), [0.0, 2.0, 4.0])
    # torch's refusal of out= with autograd comes before the overlap check
    b = minitorch.arange(6.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        minitorch.gather(b, 0, minitorch.tensor([0, 1]), out=b[:2])


def test_out_expanded_refused_before_resize():
    for op in (
        lambda o: minitorch.take(minitorch.ones(3), minitorch.tensor([0, 1]), out=o),
        lambda o: minitorch.index_select(minitorch.ones(3), 0, minitorch.tensor([0, 1]), out=o),
        lambda o: minitorch.masked_select(
            minitorch.ones(3), minitorch.tensor([True, False, True]), out=o
        ),
    ):
        with pytest.raises(RuntimeError, match=_INTERNAL):
            op(minitorch.zeros(1).expand(4, 4))


# --- TypeErrors of torch's argument parser ---


def test_hsplit_wrong_argument_type():
    x = minitorch.ones(5, 5, 5)
    expected = (
        "hsplit() received an invalid combination of arguments - got (Tensor, str), but "
        "expected one of:\n * (Tensor input, int sections)\n      didn't match because some of "
        "the arguments have invalid types: (Tensor, !str!)\n * (Tensor input, tuple of ints "
        "indices)\n      didn't match because some of the arguments have invalid types: "
        "(Tensor, !str!)\n"
    )
    with pytest.raises(TypeError) as err:
        minitorch.hsplit(x, "abc")
    assert str(err.value) == expected
    with pytest.raises(TypeError, match=r"(?s)vsplit.*\(Tensor, !list of \[float, float\]!\)"):
        minitorch.vsplit(x, [1.5, 2.0])
    with pytest.raises(TypeError, match=r"(?s)dsplit\(\).*\(Tensor, !tuple of \(float,\)!\)"):
        minitorch.dsplit(x, (1.5,))
    with pytest.raises(TypeError, match=r"got \(Tensor, Tensor\)"):
        minitorch.hsplit(x, minitorch.tensor([1, 2]))
    with pytest.raises(TypeError, match=r"hsplit\(\): argument 'indices' failed to unpack"):
        minitorch.hsplit(x, (1, "a"))


# --- masked_fill / index_fill with a complex value ---


def test_fill_with_complex_value():
    x = minitorch.zeros(2)
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without"):
        x.masked_fill(minitorch.tensor(False), 1j)
    with pytest.raises(RuntimeError, match="to type int64_t without overflow"):
        minitorch.zeros(2, dtype=minitorch.int64).masked_fill(minitorch.tensor(True), 1j)
    r = x.masked_fill(minitorch.tensor([True, False]), 2 + 0j)
    np.testing.assert_array_equal(r.numpy(), [2.0, 0.0])
    r = minitorch.zeros(2, dtype=minitorch.bool).masked_fill(minitorch.tensor(True), 1j)
    assert r.tolist() == [True, True]
    with pytest.raises(RuntimeError, match="Converting complex Scalar to non-complex type"):
        x.index_fill(0, minitorch.tensor([0]), 2 + 0j)


# --- Tensor.__rdiv__ ---


def test_rdiv_alias():
    assert minitorch.Tensor.__rdiv__ is minitorch.Tensor.__rtruediv__
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    r = x.__rdiv__(3)
    np.testing.assert_array_equal(r.detach().numpy(), [3.0, 1.5])
    assert type(r.grad_fn).__name__ == "MulBackward0"
    assert minitorch.tensor([1, 2]).__rdiv__("a") is NotImplemented
