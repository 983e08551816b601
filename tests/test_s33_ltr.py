"""Session 33 (helper ltr): torch-free regression tests of the library fixes the learning-to-rank
programs of tests/reference/test_s33_ltr_reference.py found: gather/scatter_add with dim and
index swapped name dim first (torch's parser reads dim's type before index's), the in-place
method naming itself for a dim of the wrong type; scatter's reduce= of no str is the parser's
"invalid combination"; argsort's out= belongs to its stable= overload (without stable= the
parser refuses it), and out= counts among the arguments of a sort/argsort call the parser
refuses; kthvalue's and mode's out= resized as their kernels resize them (the deprecation
warning names the shapes the kernel saw: an out unsqueezed at dim first, the keepdim shape).
torch's messages are written here as literals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt


def _raises(exc_type, fn, message):
    with pytest.raises(exc_type) as info:
        fn()
    assert str(info.value) == message


S = mt.tensor([[0.3, 0.1, 0.3, 0.9], [0.5, -0.2, 0.0, 0.5], [0.1, 0.2, 0.3, 0.4]])
IDX = mt.zeros(3, 4, dtype=mt.long)


def test_gather_swapped_dim_and_index_names_dim():
    _raises(TypeError, lambda: mt.gather(S, IDX, 1),
            "gather(): argument 'dim' (position 2) must be int, not Tensor")  # fmt: skip
    _raises(TypeError, lambda: S.gather(IDX, 1),
            "gather(): argument 'dim' (position 1) must be int, not Tensor")  # fmt: skip
    _raises(TypeError, lambda: mt.gather(S, IDX, 1, sparse_grad=True),
            "gather(): argument 'dim' (position 2) must be int, not Tensor")  # fmt: skip
    # an int-like dim (a 0-d integer tensor) is still read as one
    np.testing.assert_array_equal(S.gather(mt.tensor(1), IDX).numpy(), S.gather(1, IDX).numpy())
    # index of no tensor with a good dim: index is named
    _raises(TypeError, lambda: S.gather(1, [[0]]),
            "gather(): argument 'index' (position 2) must be Tensor, not list")  # fmt: skip


def test_scatter_add_swapped_dim_and_index_names_dim():
    _raises(TypeError, lambda: mt.scatter_add(S, IDX, 1, S),
            "scatter_add(): argument 'dim' (position 2) must be int, not Tensor")  # fmt: skip
    _raises(TypeError, lambda: S.clone().scatter_add_(IDX, 1, S),
            "scatter_add_(): argument 'dim' (position 1) must be int, not Tensor")  # fmt: skip
    _raises(TypeError, lambda: S.clone().scatter_add_(dim=IDX, index=1, src=S),
            "scatter_add_(): argument 'dim' must be int, not Tensor")  # fmt: skip


def test_scatter_reduce_of_no_str_is_invalid_combination():
    want = (
        "scatter() received an invalid combination of arguments - got (int, Tensor, Tensor, "
        "reduce=int), but expected one of:\n"
        " * (int dim, Tensor index, Tensor src)\n"
        " * (int dim, Tensor index, Tensor src, *, str reduce)\n"
        " * (int dim, Tensor index, Number value)\n"
        " * (int dim, Tensor index, Number value, *, str reduce)\n"
    )
    _raises(TypeError, lambda: S.scatter(1, IDX, S, reduce=1), want)
    _raises(TypeError, lambda: S.clone().scatter_(1, IDX, S, reduce=1),
            want.replace("scatter()", "scatter_()"))  # fmt: skip
    # a str of another value is still the kernel's RuntimeError
    _raises(RuntimeError, lambda: S.scatter(1, IDX, 2.0, reduce="mean"),
            "reduce argument must be either add or multiply.")  # fmt: skip


ARGSORT_FORMS = (
    " * (Tensor input, *, bool stable, int dim = -1, bool descending = False, Tensor out = None)\n"
    " * (Tensor input, int dim = -1, bool descending = False)\n"
)


def test_argsort_out_needs_stable():
    o = mt.empty(0, dtype=mt.long)
    head = "argsort() received an invalid combination of arguments - got "
    _raises(TypeError, lambda: mt.argsort(S, out=o),
            head + "(Tensor, out=Tensor), but expected one of:\n" + ARGSORT_FORMS)  # fmt: skip
    _raises(
        TypeError,
        lambda: mt.argsort(S, dim=1, out=o),
        head + "(Tensor, out=Tensor, dim=int), but expected one of:\n" + ARGSORT_FORMS
        + "      didn't match because some of the keywords were incorrect: out, dim\n",
    )  # fmt: skip
    _raises(TypeError, lambda: mt.argsort(S, dim=1, descending=True, out=o),
            'argsort() missing 1 required positional arguments: "stable"')  # fmt: skip
    _raises(TypeError, lambda: mt.argsort(S, 1, stable=True, out=o),
            "argsort() takes from 2 to 1 positional arguments but 2 were given")  # fmt: skip
    _raises(
        TypeError,
        lambda: mt.argsort(S, stable=1, out=o),
        head + "(Tensor, out=Tensor, stable=int), but expected one of:\n" + ARGSORT_FORMS
        + "      didn't match because some of the keywords were incorrect: out, stable\n",
    )  # fmt: skip
    # with stable= it lands in out
    got = mt.argsort(S, stable=True, dim=1, descending=True, out=o)
    assert got is o
    np.testing.assert_array_equal(o.numpy(), [[3, 0, 2, 1], [0, 3, 2, 1], [3, 2, 1, 0]])
    # without out=, argsort's second overload takes positionals
    np.testing.assert_array_equal(mt.argsort(S, 1, True).numpy(), o.numpy())


def test_sort_out_counts_among_refused_arguments():
    o = mt.empty(0, dtype=mt.long)
    want = (
        "sort() received an invalid combination of arguments - got (Tensor, out=tuple, "
        "stable=int), but expected one of:\n"
        " * (Tensor input, *, bool stable, int dim = -1, bool descending = False, tuple of "
        "Tensors out = None)\n"
        " * (Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = "
        "None)\n"
    )
    _raises(TypeError, lambda: mt.sort(S, stable=1, out=(mt.empty(0), o)), want)
    v, i = mt.sort(S, stable=True, dim=0, out=(mt.empty(0), o))
    assert i is o
    np.testing.assert_allclose(v.numpy(), np.sort(S.numpy(), axis=0, kind="stable"))
    # an out of no tuple fits neither overload: both listed, as torch's parser does
    refused = want.replace("out=tuple, stable=int", "out=Tensor")
    _raises(TypeError, lambda: mt.sort(S, out=mt.empty(0)), refused)


def _resized(had, want):
    return (
        f"An output with one or more elements was resized since it had shape {had}, which does "
        f"not match the required output shape {want}. This behavior is deprecated, and in a "
        "future PyTorch release outputs will not be resized unless they have zero elements. You "
        "can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
        "t.resize_(0)."
    )


def _warned(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


@pytest.mark.parametrize(
    "fn, dim, keepdim, shape, had, want",
    [
        # kthvalue unsqueezes an out of one dim fewer than input at dim (keepdim False)
        ("kthvalue", 1, False, (3,), [3, 1], [2, 1]),
        ("kthvalue", 0, False, (3,), [1, 3], [1, 5]),
        ("kthvalue", 1, False, (3, 2), [3, 2], [2, 1]),
        ("kthvalue", 1, False, (), [], [2, 1]),
        ("kthvalue", 1, True, (3,), [3], [2, 1]),
        ("kthvalue", 1, False, (2, 1), None, None),  # resized silently to (2,)
        # mode unsqueezes any out of at least dim dims
        ("mode", 1, False, (3,), [3, 1], [2, 1]),
        ("mode", 1, False, (2, 1), [2, 1, 1], [2, 1]),
        ("mode", 0, False, (2, 5), [1, 2, 5], [1, 5]),
        ("mode", 1, False, (), [], [2, 1]),
        ("mode", 1, False, (2,), None, None),
    ],
)
def test_kthvalue_and_mode_out_resize_warnings(fn, dim, keepdim, shape, had, want):
    x = mt.tensor([[3.0, 1.0, 2.0, 1.0, 0.5], [0.0, 0.0, -1.0, 5.0, 2.0]])
    out = (mt.empty(shape), mt.empty(shape, dtype=mt.long))
    args = (2, dim, keepdim) if fn == "kthvalue" else (dim, keepdim)
    got = _warned(lambda: getattr(mt, fn)(x, *args, out=out))
    assert got == ([] if had is None else [_resized(had, want)] * 2)
    final = [2, 1] if keepdim else ([2] if dim == 1 else [5])
    assert list(out[0].shape) == list(out[1].shape) == final
    assert out[0].stride() == ((1, 1) if keepdim else (1,))
    r = getattr(mt, fn)(x, *args)
    np.testing.assert_array_equal(out[0].numpy(), r.values.numpy())
    np.testing.assert_array_equal(out[1].numpy(), r.indices.numpy())


def test_kthvalue_and_mode_out_of_0d_input():
    out = (mt.empty(2, 2), mt.empty(2, 2, dtype=mt.long))
    got = _warned(lambda: mt.kthvalue(mt.tensor(2.0), 1, 0, out=out))
    assert got == [_resized([2, 2], [])] * 2
    out = (mt.empty(2, 2), mt.empty(2, 2, dtype=mt.long))
    assert _warned(lambda: mt.mode(mt.tensor(2.0), 0, out=out)) == []  # torch's resize_: silent
    assert out[0].shape == () and out[0].item() == 2.0 and out[1].item() == 0
