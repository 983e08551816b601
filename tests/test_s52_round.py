"""round's decimals, given or not: torch.round(x, decimals=0) takes round's decimals overload,
recording RoundBackward1 (torch.round(x) records RoundBackward0) and refusing integer and bool
tensors ("round_vml_cpu"), in every spelling (torch.round, Tensor.round, Tensor.round_,
torch.round_), with the same values. Expected values hard-coded from torch 2.13;
tests/reference/test_s52_round_reference.py compares with torch."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import minitorch as mt

VALUES = [0.5, 1.5, 2.5, -0.5, -1.49, 3.14159, -0.0, 7.5, float("inf"), float("nan")]
ROUNDED = [0.0, 2.0, 2.0, -0.0, -1.0, 3.0, -0.0, 8.0, float("inf"), float("nan")]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def _leaf(dt):
    return mt.tensor(VALUES, dtype=getattr(mt, dt), requires_grad=True)


def _same(got, want=ROUNDED):
    got = got.detach().double().tolist()
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        if math.isnan(w):
            assert math.isnan(g)
        else:
            assert g == w and math.copysign(1, g) == math.copysign(1, w), (got, want)


SPELLINGS = {
    "function": (lambda x: mt.round(x), lambda x: mt.round(x, decimals=0)),
    "method": (lambda x: x.round(), lambda x: x.round(decimals=0)),
    "inplace method": (lambda x: x.clone().round_(), lambda x: x.clone().round_(decimals=0)),
    "inplace function": (
        lambda x: mt.round_(x.clone()),
        lambda x: mt.round_(x.clone(), decimals=0),
    ),
}


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_explicit_zero_decimals_records_round_backward1(dt, spelling):
    plain, given = SPELLINGS[spelling]
    a = plain(_leaf(dt))
    b = given(_leaf(dt))
    assert a.grad_fn.name() == "RoundBackward0"
    assert b.grad_fn.name() == "RoundBackward1"
    assert a.dtype is b.dtype is getattr(mt, dt)
    _same(a)
    _same(b)


@pytest.mark.parametrize("given", [0, -0, np.int64(0), mt.tensor(0)])
def test_any_int_like_zero_counts_as_given(given):
    x = _leaf("float32")
    assert mt.round(x, decimals=given).grad_fn.name() == "RoundBackward1"
    assert x.round(decimals=given).grad_fn.name() == "RoundBackward1"
    assert x.clone().round_(decimals=given).grad_fn.name() == "RoundBackward1"


@pytest.mark.parametrize("dt", FLOATS)
def test_values_with_out(dt):
    x = _leaf(dt).detach()
    for kwargs in ({}, {"decimals": 0}):
        out = mt.empty(len(VALUES), dtype=x.dtype)
        r = mt.round(x, out=out, **kwargs)
        assert r is out
        _same(out)
    # other decimals keep theirs
    out = mt.empty(2, dtype=x.dtype)
    mt.round(mt.tensor([1.25, -12.5], dtype=x.dtype), decimals=-1, out=out)
    assert out.tolist() == [0.0, -10.0]


def test_values_equal_plain_round_on_random_data():
    rng = np.random.default_rng(0)
    a = np.concatenate([rng.standard_normal(500) * 1000, np.arange(-8, 8) + 0.5])
    for dt in FLOATS:
        x = mt.tensor(a, dtype=getattr(mt, dt), requires_grad=True)
        want = mt.round(x).detach()
        for got in (mt.round(x, decimals=0), x.round(decimals=0), x.clone().round_(decimals=0)):
            assert mt.equal(got.detach(), want)


def test_backward_through_round_backward1_is_zero():
    x = _leaf("float64")
    y = mt.round(x, decimals=0)
    y.sum().backward()
    assert x.grad.tolist() == [0.0] * len(VALUES)
    assert not hasattr(y.grad_fn, "_saved_decimals")  # (torch's node keeps none)


def test_no_grad_and_inplace_fast_path_keep_values():
    x = _leaf("float32").detach()
    with mt.no_grad():
        _same(mt.round(x, decimals=0))
    y = x.clone()
    assert y.round_(decimals=0) is y
    _same(y)
    y = mt.tensor(VALUES, dtype=mt.float64)
    assert mt.round_(y, decimals=0) is y
    _same(y)


INTS = ["uint8", "int8", "int32", "int64", "bool"]


def _short(dt):
    return {"uint8": "Byte", "int8": "Char", "int32": "Int", "int64": "Long", "bool": "Bool"}[dt]


@pytest.mark.parametrize("dt", INTS)
def test_integer_tensors(dt):
    t = mt.tensor([1, 0], dtype=getattr(mt, dt))
    vml = f"\"round_vml_cpu\" not implemented for '{_short(dt)}'"
    if dt == "bool":
        for f in (mt.round, mt.Tensor.round, lambda s: s.clone().round_()):
            with pytest.raises(NotImplementedError, match=vml):
                f(t)
    else:  # returned as they are without decimals
        assert mt.round(t).tolist() == [1, 0]
        assert t.round().dtype is t.dtype
        assert t.clone().round_().tolist() == [1, 0]
        assert mt.round_(t.clone()).tolist() == [1, 0]
        assert mt.round(t, out=mt.empty(2, dtype=t.dtype)).tolist() == [1, 0]
    given = (
        lambda: mt.round(t, decimals=0),
        lambda: t.round(decimals=0),
        lambda: t.clone().round_(decimals=0),
        lambda: mt.round_(t.clone(), decimals=0),
        lambda: mt.round(t, decimals=0, out=mt.empty(2, dtype=t.dtype)),
    )
    for f in given:
        with pytest.raises(NotImplementedError, match=vml):
            f()
    cpu = f"\"round_cpu\" not implemented for '{_short(dt)}'"
    for f in (lambda: mt.round(t, decimals=1), lambda: t.clone().round_(decimals=-1)):
        with pytest.raises(NotImplementedError, match=cpu):
            f()


def test_bad_decimals_and_positional_errors():
    x = mt.tensor([1.5, 2.5])
    head = "round() received an invalid combination of arguments - got "
    cases = {
        lambda: mt.round(x, 2): "(Tensor, int)",
        lambda: mt.round(x, 0): "(Tensor, int)",
        lambda: mt.round(x, decimals=None): "(Tensor, decimals=NoneType)",
        lambda: mt.round(x, decimals=0.0): "(Tensor, decimals=float)",
        lambda: mt.round(x, decimals=False): "(Tensor, decimals=bool)",
    }
    for f, got in cases.items():
        with pytest.raises(TypeError) as e:
            f()
        assert str(e.value).startswith(head + got + ", but expected one of:"), str(e.value)
    with pytest.raises(TypeError, match=r"round\(\) takes from 2 to 1 positional"):
        mt.round(x, 2, decimals=0)
    with pytest.raises(TypeError, match=r"^round\(\) takes from 1 to 0 positional arguments but 1"):
        x.round(2)
    with pytest.raises(TypeError, match=r"^round\(\): argument 'decimals' must be int, not NoneT"):
        x.round(decimals=None)
    with pytest.raises(TypeError, match=r"^round_\(\): argument 'decimals' must be int, not floa"):
        x.clone().round_(decimals=0.0)
    with pytest.raises(TypeError, match=r"argument 'input' \(position 1\) must be Tensor"):
        mt.round([1.5])


def test_signatures_show_zero():
    for f in (mt.round, mt.round_, mt.Tensor.round, mt.Tensor.round_):
        assert inspect.signature(f).parameters["decimals"].default == 0
        assert "decimals=0" in str(inspect.signature(f))


def test_numpy_round_of_an_integer_tensor():
    t = mt.tensor([1, 2])
    assert np.round(t).tolist() == [1, 2]
    assert np.round(mt.tensor([1.5, 2.5])).tolist() == [2.0, 2.0]


def test_special_round_positional_error():
    x = mt.tensor([1.5])
    with pytest.raises(TypeError, match=r"^special_round\(\) takes 1 positional argument but 2"):
        mt.special.round(x, 2)
    with pytest.raises(TypeError, match=r"^special_round\(\) takes 1 positional argument but 3"):
        mt.special.round(x, 2, 3, decimals=1)
    assert mt.special.round(x.requires_grad_()).grad_fn.name() == "RoundBackward1"
