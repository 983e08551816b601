"""out= on the functions that return a tuple (sort, topk, kthvalue) or wrap
another op (msort, diag, index_add, index_copy, matrix_power): the result lands in out."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _x():
    return mt.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]])


@pytest.mark.parametrize(
    "name,args,n",
    [
        ("sort", (), 2),
        ("topk", (2,), 2),
        ("kthvalue", (2,), 2),
    ],
)
def test_tuple_results_land_in_out(name, args, n):
    x = _x()
    want = getattr(mt, name)(x, *args)
    outs = tuple(mt.empty(0, dtype=w.dtype) for w in want)
    got = getattr(mt, name)(x, *args, out=outs)
    # a named result given out= is torch's `<name>_out` type (sort_out); a plain tuple stays one
    named = type(want).__module__.endswith("return_types")
    assert type(got).__name__ == type(want).__name__ + ("_out" if named else "")
    assert all(g is o for g, o in zip(got, outs, strict=True))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    # sort's two overloads both take a tuple: the parser lists them (topk's one names out)
    refused = (
        r"sort\(\) received an invalid combination of arguments - got \(Tensor, out=Tensor\)"
        if name == "sort"
        else "argument 'out' must be tuple of Tensors, not Tensor"
    )
    with pytest.raises(TypeError, match=refused):
        getattr(mt, name)(x, *args, out=mt.empty(0))


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
def test_var_mean_and_std_mean_take_no_out(name):
    # torch 2.13's argument parser refuses out= there (its docs list one)
    x = _x()
    with pytest.raises(TypeError, match="out"):
        getattr(mt, name)(x, 1, out=(mt.empty(0), mt.empty(0)))


def test_single_results_land_in_out():
    x = _x()
    cases = [
        (mt.msort, (x,)),
        (mt.diag, (x,)),
        (mt.index_add, (x, 1, mt.tensor([0, 2]), mt.ones(2, 2))),
        (mt.index_copy, (x, 1, mt.tensor([0, 2]), mt.ones(2, 2))),
        (mt.matrix_power, (mt.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)),
    ]
    for fn, args in cases:
        out = mt.empty(0)
        assert fn(*args, out=out) is out
        np.testing.assert_array_equal(out.numpy(), fn(*args).numpy(), err_msg=fn.__name__)


def test_swapaxes_takes_numpy_names():
    x = mt.zeros(2, 3)
    assert mt.swapaxes(x, axis0=0, axis1=1).shape == (3, 2)
    assert x.swapaxes(axis0=1, axis1=0).shape == (3, 2)
    with pytest.raises(TypeError):
        mt.swapaxes(x, dim0=0, dim1=1)
    assert mt.swapdims(x, dim0=0, dim1=1).shape == (3, 2)


def test_cat_and_stack_refuse_an_out_they_cannot_cast_into():
    a = mt.ones(2)
    with pytest.raises(TypeError, match="torch.cat\\(\\): input types can't be cast to .* Long"):
        mt.cat([a, a], out=mt.empty(4, dtype=mt.int64))
    with pytest.raises(TypeError, match="desired output type Long"):
        mt.stack([a, a], out=mt.empty(2, 2, dtype=mt.int64))
    assert mt.cat([a], out=mt.empty(2, dtype=mt.float64)).dtype == (mt.float64)


def test_named_results_given_out_are_torchs_out_types():
    x = mt.arange(6.0).view(2, 3)

    def pair(*s):
        return (mt.empty(*s), mt.empty(*s, dtype=mt.int64))

    cases = {
        "max_out": lambda: mt.max(x, 1, out=pair(2)),
        "min_out": lambda: mt.min(x, 1, out=pair(2)),
        "sort_out": lambda: mt.sort(x, 1, out=pair(2, 3)),
        "topk_out": lambda: mt.topk(x, 2, out=pair(2, 2)),
        "median_out": lambda: mt.median(x, 1, out=pair(2)),
        "aminmax_out": lambda: mt.aminmax(x, dim=1, out=(mt.empty(2), mt.empty(2))),
    }
    for name, call in cases.items():
        r = call()
        assert type(r).__name__ == name and repr(r).startswith(f"torch.return_types.{name}(")
    assert type(mt.max(x, 1)).__name__ == "max"
