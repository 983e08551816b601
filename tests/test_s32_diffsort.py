"""Session 32 (helper diffsort): torch-free regression tests of the library fix the differentiable
sorting and ranking programs of tests/reference/test_s32_diffsort_reference.py found: torch's
argument-parser errors for a malformed tuple out= (too short or long, a non-tensor inside) of
sort, topk, kthvalue, median, mode, cummax, aminmax, max, frexp and histogram; the parser's
refusal of flags that are not Python bools (searchsorted/bucketize right= and out_int32=, isin
invert= and assume_unique=) and of a non-str quantile interpolation= (torch's messages, written
here as literals); sort/argsort/msort of a transposed or permuted (dense) tensor keep its
memory layout, as torch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

X = mt.arange(12.0).reshape(3, 4).flip(1)
E = mt.empty(0)
EI = mt.empty(0, dtype=mt.int64)


def _type_error(fn, message):
    with pytest.raises(TypeError) as info:
        fn()
    assert str(info.value) == message


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: mt.sort(X, out=(E,)), "expected tuple of 2 elements but got 1"),
        (lambda: mt.sort(X, out=(E, EI, E)), "expected tuple of 2 elements but got 3"),
        (lambda: mt.sort(X, 0, out=[E]), "expected tuple of 2 elements but got 1"),
        (lambda: mt.topk(X, 2, out=(E,)), "expected tuple of 2 elements but got 1"),
        # the parser's length check comes before the kernel's dtype check of the indices
        (lambda: mt.topk(X, 2, out=(E, E, E)), "expected tuple of 2 elements but got 3"),
        (lambda: mt.kthvalue(X, 2, out=(E,)), "expected tuple of 2 elements but got 1"),
        (lambda: mt.median(X, 0, out=(E,)), "expected tuple of 2 elements but got 1"),
        (lambda: mt.nanmedian(X, 0, out=(E,)), "expected tuple of 2 elements but got 1"),
        (lambda: mt.mode(X, 0, out=(E,)), "expected tuple of 2 elements but got 1"),
        (lambda: mt.cummax(X, 0, out=(E,)), "expected tuple of 2 elements but got 1"),
        (lambda: mt.cummin(X, 0, out=(E, EI, E)), "expected tuple of 2 elements but got 3"),
        (lambda: mt.aminmax(X, out=(E,)), "expected tuple of 2 elements but got 1"),
        (lambda: mt.min(X, 1, out=(E, EI, E)), "expected tuple of 2 elements but got 3"),
        (lambda: mt.frexp(X, out=(E,)), "expected tuple of 2 elements but got 1"),
        # before frexp's own dtype check
        (
            lambda: mt.frexp(mt.ones(2, dtype=mt.int64), out=(E,)),
            "expected tuple of 2 elements but got 1",
        ),
        (lambda: mt.histogram(X, 3, out=(E,)), "expected tuple of 2 elements but got 1"),
    ],
)
def test_out_tuple_of_the_wrong_length(call, message):
    _type_error(call, message)


def _elem(i, pos, got):
    return f"expected Tensor as element {i} in argument {pos}, but got {got}"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: mt.sort(X, out=(E, None)), _elem(1, 3, "NoneType")),
        # torch's overload with `stable` has out one argument later
        (lambda: mt.sort(X, stable=True, out=(E, None)), _elem(1, 4, "NoneType")),
        (lambda: mt.topk(X, 1, out=(E, 3)), _elem(1, 5, "int")),
        (lambda: mt.topk(X, 1, out=(E, None, None)), _elem(1, 5, "NoneType")),
        (lambda: mt.kthvalue(X, 2, 1, out=(None, EI)), _elem(0, 4, "NoneType")),
        (lambda: mt.median(X, 0, out=(E, None)), _elem(1, 3, "NoneType")),
        (lambda: mt.nanmedian(X, 1, out=(E, None)), _elem(1, 3, "NoneType")),
        (lambda: mt.mode(X, 0, out=(None, EI)), _elem(0, 3, "NoneType")),
        (lambda: mt.cummax(X, 0, out=(E, None)), _elem(1, 2, "NoneType")),
        (lambda: mt.cummin(X, 1, out=(E, None)), _elem(1, 2, "NoneType")),
        (lambda: mt.aminmax(X, out=(E, None)), _elem(1, 3, "NoneType")),
        (lambda: mt.max(X, 1, out=(E, None)), _elem(1, 3, "NoneType")),
        (lambda: mt.frexp(X, out=(E, None)), _elem(1, 1, "NoneType")),
        (lambda: mt.histogram(X, 3, out=(E, None)), _elem(1, 5, "NoneType")),
        (lambda: mt.histogram(X, mt.tensor([0.0, 1.0]), out=(E, None)), _elem(1, 4, "NoneType")),
    ],
)
def test_out_tuple_holding_a_non_tensor(call, message):
    _type_error(call, message)


def test_out_lone_tensor_and_good_tuples():
    _type_error(
        lambda: mt.topk(X, 1, out=E), "topk(): argument 'out' must be tuple of Tensors, not Tensor"
    )
    _type_error(
        lambda: mt.cummax(X, 0, out=E),
        "cummax(): argument 'out' must be tuple of Tensors, not Tensor",
    )
    v, i = mt.empty(0), mt.empty(0, dtype=mt.int64)
    r = mt.sort(X, 1, out=[v, i])
    assert r.values is v and r.indices is i
    np.testing.assert_array_equal(v.numpy(), np.sort(X.numpy(), 1))
    np.testing.assert_array_equal(i.numpy(), [[3, 2, 1, 0]] * 3)
    r = mt.topk(X, 2, out=(v.resize_(0), i.resize_(0)))
    assert r[0] is v and r[1] is i
    np.testing.assert_array_equal(v.numpy(), [[3.0, 2.0], [7.0, 6.0], [11.0, 10.0]])
    # the kernel's own dtype refusal still names the indices
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int"):
        mt.topk(X, 1, out=(mt.empty(0), mt.empty(0)))


SS_FORMS = (
    " * (Tensor sorted_sequence, Tensor input, *, bool out_int32 = False, bool right = False, "
    "str side = None, Tensor sorter = None, Tensor out = None)\n"
    " * (Tensor sorted_sequence, Number self, *, bool out_int32 = False, bool right = False, "
    "str side = None, Tensor sorter = None, Tensor out = None)\n"
)
EDGES = mt.tensor([1.0, 2.0, 3.0])


def test_searchsorted_flags_must_be_bools():
    _type_error(
        lambda: mt.searchsorted(EDGES, EDGES, right=1),
        "searchsorted() received an invalid combination of arguments - got (Tensor, Tensor, "
        "right=int), but expected one of:\n" + SS_FORMS,
    )
    _type_error(
        lambda: mt.searchsorted(EDGES, 1.5, out_int32=None),
        "searchsorted() received an invalid combination of arguments - got (Tensor, float, "
        "out_int32=NoneType), but expected one of:\n" + SS_FORMS,
    )
    _type_error(
        lambda: mt.bucketize(EDGES, EDGES, right=1),
        "bucketize() received an invalid combination of arguments - got (Tensor, Tensor, "
        "right=int), but expected one of:\n"
        " * (Tensor input, Tensor boundaries, *, bool out_int32 = False, bool right = False, "
        "Tensor out = None)\n"
        " * (Number self, Tensor boundaries, *, bool out_int32 = False, bool right = False)\n",
    )
    np.testing.assert_array_equal(mt.searchsorted(EDGES, EDGES, right=True).numpy(), [1, 2, 3])
    np.testing.assert_array_equal(mt.bucketize(EDGES, EDGES, out_int32=True).numpy(), [0, 1, 2])


def test_isin_flags_must_be_bools():
    with pytest.raises(TypeError, match=r"^isin\(\) received an invalid combination of arguments"):
        mt.isin(EDGES, EDGES, invert=1)
    with pytest.raises(TypeError, match=r"got \(Tensor, float, assume_unique=NoneType\)"):
        mt.isin(EDGES, 2.0, assume_unique=None)
    np.testing.assert_array_equal(mt.isin(EDGES, EDGES, invert=True).numpy(), [False] * 3)


def test_quantile_interpolation_must_be_a_str():
    with pytest.raises(TypeError) as info:
        mt.quantile(EDGES, 0.5, interpolation=None)
    assert str(info.value).startswith(
        "quantile() received an invalid combination of arguments - got (Tensor, float, "
        "interpolation=NoneType), but expected one of:\n"
    )


def test_sort_keeps_a_dense_inputs_layout():
    x = mt.arange(24.0).reshape(4, 6)
    xt = x.t().requires_grad_()
    v, i = xt.sort(0, descending=True)
    assert v.stride() == (1, 6) and i.stride() == (1, 6)
    assert not v.is_contiguous()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        v.view(-1)
    np.testing.assert_array_equal(v.detach().numpy(), np.sort(xt.detach().numpy(), 0)[::-1])
    np.testing.assert_array_equal(i.numpy()[0], [5] * 4)
    v.backward(mt.arange(24.0).reshape(6, 4))
    np.testing.assert_array_equal(xt.grad.numpy()[:, 3], [23.0, 19.0, 15.0, 11.0, 7.0, 3.0])
    assert mt.argsort(x.t(), 1).stride() == (1, 6)
    assert mt.msort(x.t()).stride() == (1, 6)
    x3 = mt.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)
    assert x3.sort(1).values.stride() == (1, 12, 4)
    # not dense: row-major, as torch's empty_like gives
    assert x[:, ::2].sort(1).values.stride() == (3, 1)
    assert x[:1].expand(3, 6).sort(0).values.stride() == (6, 1)
