"""Session 35 (helper scatter): torch-free regression tests of the library fixes the scatter and
gather programs of tests/reference/test_s35_scatter_reference.py found: expand's error names a
tensor of a dtype without a legacy class by its backend type (CPUBoolType), as masked_scatter_'s
mask check shows it; the grad_fn._saved_<name> attributes of scatter_reduce, index_reduce,
scatter and scatter(value=); masked_scatter's node saves the mask as given, so the version error
of a broadcast mask changed in place names its own shape. torch's texts are written here as
literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

U64_MINUS_1 = 2**64 - 1  # a dim of -1 as torch's binding reads it back


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize(
    "dtype, label",
    [
        (mt.bool, "CPUBoolType"),
        (mt.bfloat16, "CPUBFloat16Type"),
        (mt.uint16, "CPUUInt16Type"),
        (mt.float32, "torch.FloatTensor"),
        (mt.int8, "torch.CharTensor"),
        (mt.float16, "torch.HalfTensor"),
    ],
)
def test_expand_error_type_names(dtype, label):
    msg = _message(RuntimeError, lambda: mt.ones(4, 3, dtype=dtype).expand(3))
    assert msg == (
        f"expand({label}{{[4, 3]}}, size=[3]): the number of sizes provided (1) must be greater "
        "or equal to the number of dimensions in the tensor (2)"
    )


def test_masked_scatter_inplace_mask_too_big():
    x = mt.zeros(3)
    msg = _message(
        RuntimeError, lambda: x.masked_scatter_(mt.ones(4, 3, dtype=mt.bool), mt.ones(12))
    )
    assert msg.startswith("expand(CPUBoolType{[4, 3]}, size=[3]): the number of sizes")


def _saved_names(node):
    return sorted(k for k in dir(node) if k.startswith("_saved_"))


def _inputs(seed=0):
    g = mt.Generator().manual_seed(seed)
    x = mt.randn(3, 4, generator=g, dtype=mt.float64, requires_grad=True)
    s = mt.randn(3, 5, generator=g, dtype=mt.float64, requires_grad=True)
    idx = mt.tensor([[0, 0, 3, 1, 3], [2, 2, 2, 0, 1], [1, 3, 1, 3, 0]])
    return x, s, idx


@pytest.mark.parametrize(
    "reduce, dim, include_self, shown_dim",
    [("amax", -1, False, U64_MINUS_1), ("max", 1, True, 1), ("prod", 1, False, 1)],
)
def test_scatter_reduce_saved(reduce, dim, include_self, shown_dim):
    x, s, idx = _inputs()
    out = x.scatter_reduce(dim, idx, s, reduce, include_self=include_self)
    n = out.grad_fn
    assert _saved_names(n) == [
        "_saved_dim", "_saved_include_self", "_saved_index", "_saved_reduce", "_saved_result",
        "_saved_self", "_saved_src",
    ]  # fmt: skip
    assert n._saved_dim == shown_dim
    assert n._saved_reduce == reduce  # as given: "max", not its alias "amax"
    assert n._saved_include_self is include_self
    assert n._saved_self is x and n._saved_src is s
    assert mt.equal(n._saved_index, idx)
    np.testing.assert_array_equal(n._saved_result.detach().numpy(), out.detach().numpy())


@pytest.mark.filterwarnings("ignore:index_reduce")
def test_index_reduce_saved_source():
    x, s, _ = _inputs(1)
    out = x.index_reduce(-1, mt.tensor([0, 3, 3, 1, 0]), s, "mean", include_self=False)
    n = out.grad_fn
    assert type(n).__name__ == "IndexReduceBackward0"
    assert _saved_names(n) == [
        "_saved_dim", "_saved_include_self", "_saved_index", "_saved_reduce", "_saved_result",
        "_saved_self", "_saved_source",
    ]  # fmt: skip
    assert (n._saved_dim, n._saved_reduce, n._saved_include_self) == (U64_MINUS_1, "mean", False)
    assert n._saved_source is s
    assert mt.equal(n._saved_index, mt.tensor([0, 3, 3, 1, 0]))


@pytest.mark.parametrize("value", [False, True])
def test_scatter_saved(value):
    x, s, _ = _inputs(2)
    perm = mt.tensor([[3, 0], [2, 1], [0, 2]])
    out = x.scatter(-1, perm, 2.0) if value else x.scatter(-1, perm, s[:, :2])
    n = out.grad_fn
    assert type(n).__name__ == ("ScatterBackward1" if value else "ScatterBackward0")
    assert _saved_names(n) == ["_saved_dim", "_saved_index"]
    assert n._saved_dim == U64_MINUS_1
    assert mt.equal(n._saved_index, perm)


@pytest.mark.parametrize(
    "mask, inplace, shown",
    [
        ([True, False, True], False, "[3]"),
        ([[True], [False]], False, "[2, 1]"),
        ([[True, False, True]], True, "[1, 3]"),
    ],
)
def test_masked_scatter_saves_mask_as_given(mask, inplace, shown):
    x = mt.ones(2, 3, requires_grad=True)
    s = mt.arange(1.0, 7.0, requires_grad=True)
    m = mt.tensor(mask)
    y = (x * 1).masked_scatter_(m, s) if inplace else x.masked_scatter(m, s)
    m.logical_not_()
    msg = _message(RuntimeError, lambda: y.sum().backward())
    assert msg.startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [CPUBoolType {shown}] is at version 1; expected version 0 instead."
    )


def test_masked_scatter_broadcast_mask_gradients():
    # the un-broadcast mask still gives the broadcast result and its gradients
    x = mt.ones(2, 3, dtype=mt.float64, requires_grad=True)
    s = mt.arange(1.0, 7.0, dtype=mt.float64, requires_grad=True)
    y = x.masked_scatter(mt.tensor([True, False, True]), s)
    (y * mt.arange(6.0, dtype=mt.float64).view(2, 3)).sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), [[1.0, 1.0, 2.0], [3.0, 1.0, 4.0]])
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 1.0, 0.0], [0.0, 4.0, 0.0]])
    np.testing.assert_array_equal(s.grad.numpy(), [0.0, 2.0, 3.0, 5.0, 0.0, 0.0])


SCATTER_FORMS = (
    " * (int dim, Tensor index, Tensor src)\n"
    "      didn't match because some of the arguments have invalid types: "
    "(int, Tensor, !src=float!)\n"
    " * (int dim, Tensor index, Tensor src, *, str reduce)\n"
    " * (int dim, Tensor index, Number value)\n"
    "      didn't match because some of the keywords were incorrect: src\n"
    " * (int dim, Tensor index, Number value, *, str reduce)\n"
)


def test_scatter_number_by_keyword_src():
    x = mt.zeros(2, 3)
    i = mt.tensor([[0, 1], [2, 2]])
    for op, call in (("scatter", lambda: x.scatter(1, i, src=2.0)),
                     ("scatter_", lambda: x.scatter_(1, i, src=2.0))):  # fmt: skip
        msg = _message(TypeError, call)
        assert msg == (
            f"{op}() received an invalid combination of arguments - got (int, Tensor, "
            "src=float), but expected one of:\n" + SCATTER_FORMS
        )
    # a number by position (or as value=) is the value overload
    np.testing.assert_array_equal(x.scatter(1, i, 2.0).numpy(), [[2, 2, 0], [0, 0, 2]])
    np.testing.assert_array_equal(x.scatter(1, i, value=2.0).numpy(), [[2, 2, 0], [0, 0, 2]])


@pytest.mark.filterwarnings("ignore:index_reduce")
def test_index_reduce_argument_types():
    x = mt.zeros(2, 3)
    i = mt.tensor([0, 0])
    s = mt.ones(2, 2)
    cases = [
        (lambda: x.index_reduce(1, i, s, None),
         "index_reduce(): argument 'reduce' (position 4) must be str, not NoneType"),
        (lambda: mt.index_reduce(x, 1, i, s, None),
         "index_reduce(): argument 'reduce' (position 5) must be str, not NoneType"),
        (lambda: x.index_reduce_(1, i, s, 5),
         "index_reduce_(): argument 'reduce' (position 4) must be str, not int"),
        (lambda: x.index_reduce(1, i, s, "prod", include_self=None),
         "index_reduce(): argument 'include_self' must be bool, not NoneType"),
        (lambda: x.index_reduce_(1, i, s, "prod", include_self="a"),
         "index_reduce_(): argument 'include_self' must be bool, not str"),
        (lambda: x.index_reduce(1.5, i, s, "prod"),
         "index_reduce(): argument 'dim' (position 1) must be int, not float"),
        (lambda: x.index_reduce(1, [0, 0], s, "prod"),
         "index_reduce(): argument 'index' (position 2) must be Tensor, not list"),
        (lambda: x.index_reduce_(1, i, [1.0], "prod"),
         "index_reduce_(): argument 'source' (position 3) must be Tensor, not list"),
        (lambda: mt.index_reduce([1.0], 1, i, s, "prod"),
         "index_reduce(): argument 'input' (position 1) must be Tensor, not list"),
    ]  # fmt: skip
    for call, want in cases:
        assert _message(TypeError, call) == want
    msg = _message(RuntimeError, lambda: x.index_reduce(1, i, s, "foo"))
    assert msg == (
        "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got foo."
    )


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_keeps_leading_ones(accumulate):
    # index_put_ broadcasts values to the indexing result as they are (setitem drops their
    # leading 1s first)
    i = mt.tensor([0, 1])
    cases = [
        ((i,), mt.ones(1, 2, 4), "[1, 2, 4]", "[2, 4]"),
        ((i,), mt.ones(1, 1, 1, 1), "[1, 1, 1, 1]", "[2, 4]"),
        ((i, i), mt.ones(1, 2), "[1, 2]", "[2]"),
    ]
    for key, v, vs, rs in cases:
        for put in (mt.zeros(3, 4).index_put_, mt.zeros(3, 4).index_put):
            msg = _message(RuntimeError, lambda p=put, k=key, v=v: p(k, v, accumulate=accumulate))
            assert msg == (
                f"shape mismatch: value tensor of shape {vs} cannot be broadcast to indexing "
                f"result of shape {rs}"
            )
    x = mt.zeros(3, 4)
    x[i] = mt.ones(1, 2, 4)  # setitem drops the leading 1
    np.testing.assert_array_equal(x.numpy()[:, 0], [1, 1, 0])
    x = mt.zeros(3, 4)
    x.index_put_((i,), mt.full((1, 4), 2.0), accumulate=accumulate)  # broadcasts as it is
    np.testing.assert_array_equal(x.numpy()[:, 0], [2, 2, 0])


def test_index_put_one_value_at_a_mask():
    # one value at one bool mask, no accumulation: torch's masked_fill_ path takes any shape
    m = mt.tensor([[True, False, True, True]] * 3)
    x = mt.zeros(3, 4).index_put_((m,), mt.ones(1, 1))
    np.testing.assert_array_equal(x.numpy(), m.numpy().astype("float32"))
    msg = _message(RuntimeError, lambda: mt.zeros(3, 4).index_put_((m,), mt.ones(1, 1), True))
    assert msg == (
        "shape mismatch: value tensor of shape [1, 1] cannot be broadcast to indexing result of "
        "shape [9]"
    )
