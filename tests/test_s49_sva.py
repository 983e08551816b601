"""grad_fn introspection of pointwise and special ops: node names, next_functions and the
_saved_* attributes torch 2.13 shows (values hard-coded here, checked against torch once;
tests/reference/test_s49_sva_reference.py compares with torch), plus gradcheck and
gradgradcheck of every op whose node changed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck


def _t(values, grad=True, dtype=None):
    return mt.tensor(values, dtype=dtype or mt.float64, requires_grad=grad)


def _saved(node) -> dict:
    return {k: getattr(node, k) for k in dir(node) if k.startswith("_saved_")}


def _edges(node) -> tuple:
    return tuple(None if f is None else f.name() for f, _ in node.next_functions)


def _close(a, b, err_msg=""):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=0, err_msg=err_msg)


X = [0.5, -1.25, 2.0]
Y = [0.75, 1.5, -0.25]
ACC = "torch::autograd::AccumulateGrad"


# --- unary nodes ---


@pytest.mark.parametrize(
    "op, name", [("deg2rad", "Deg2RadBackward0"), ("rad2deg", "Rad2DegBackward0")]
)
def test_degree_conversions_save_nothing(op, name):
    x = _t(X)
    y = getattr(mt, op)(x)
    assert y.grad_fn.name() == name
    assert _saved(y.grad_fn) == {}
    assert _edges(y.grad_fn) == (ACC,)
    assert (
        y.grad_fn.next_functions[0][0] is x.grad_fn or y.grad_fn.next_functions[0][0].variable is x
    )
    y.sum().backward()
    y.sum().backward()  # torch's node saves nothing: a second backward runs it again
    factor = math.pi / 180 if op == "deg2rad" else 180 / math.pi
    _close(x.grad, [2 * factor] * 3)


@pytest.mark.parametrize(
    "fn, name, keys",
    [
        (mt.angle, "AngleBackward0", {"_saved_self"}),
        (mt.sgn, "SgnBackward0", {"_saved_self", "_saved_result"}),
        (mt.special.entr, "SpecialEntrBackward0", {"_saved_self"}),
        (mt.special.erfcx, "SpecialErfcxBackward0", {"_saved_self", "_saved_result"}),
        (mt.special.log_ndtr, "SpecialLogNdtrBackward0", {"_saved_self", "_saved_result"}),
        (mt.special.i0e, "SpecialI0EBackward0", {"_saved_self", "_saved_result"}),
        (mt.special.i1, "SpecialI1Backward0", {"_saved_self", "_saved_result"}),
        (mt.special.i1e, "SpecialI1EBackward0", {"_saved_self", "_saved_result"}),
        (mt.nn.functional.logsigmoid, "LogSigmoidBackward0", {"_saved_self", "_saved_buffer"}),
    ],
)
def test_unary_saved_values(fn, name, keys):
    x = _t([0.5, 0.25, 2.0])
    y = fn(x)
    node = y.grad_fn
    assert node.name() == name
    saved = _saved(node)
    assert set(saved) == keys
    assert _edges(node) == (ACC,)
    if "_saved_self" in keys:
        _close(saved["_saved_self"].detach(), x.detach())
        assert "_raw_saved_self" in dir(node)
    if "_saved_result" in keys:
        _close(saved["_saved_result"].detach(), y.detach())
        assert saved["_saved_result"].grad_fn is node  # the output itself, as torch's
    if "_saved_buffer" in keys:  # torch's CPU kernel's exp(-|x|)
        _close(saved["_saved_buffer"], np.exp(-np.abs([0.5, 0.25, 2.0])))
        assert not saved["_saved_buffer"].requires_grad


def test_ndtri_saves_its_result():
    x = _t([0.1, 0.5, 0.975])
    y = mt.special.ndtri(x)
    assert y.grad_fn.name() == "SpecialNdtriBackward0"
    saved = _saved(y.grad_fn)
    assert set(saved) == {"_saved_result"}
    _close(saved["_saved_result"].detach(), [-1.2815515655446004, 0.0, 1.959963984540054])


@pytest.mark.parametrize("fn", [mt.sgn, mt.angle])
def test_zero_gradient_nodes_check_what_they_saved(fn):
    """sgn and angle save tensors, as torch's nodes: backward twice, or after an in-place change
    of the input, raises as there."""
    x = _t(X)
    y = fn(x)
    y.sum().backward()
    _close(x.grad, [0.0, 0.0, 0.0])
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()
    h = x * 1
    y = fn(h)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# --- binary nodes ---


def test_hypot_saves_each_input_for_its_own_gradient():
    x = _t(X)
    y = mt.hypot(x, mt.tensor(2.0, dtype=mt.float64))
    saved = _saved(y.grad_fn)
    assert set(saved) == {"_saved_self", "_saved_other", "_saved_result"}
    assert saved["_saved_other"] is None  # other needs no gradient (torch's None)
    _close(saved["_saved_self"].detach(), X)
    y = mt.hypot(mt.tensor(X, dtype=mt.float64), _t(Y))
    saved = _saved(y.grad_fn)
    assert saved["_saved_self"] is None
    _close(saved["_saved_other"].detach(), Y)
    _close(saved["_saved_result"].detach(), np.hypot(X, Y))


@pytest.mark.parametrize("other, name", [(_t(Y), "CopysignBackward0"), (-1.0, "CopysignBackward1")])
def test_copysign_saves_self_and_result(other, name):
    x = _t(X)
    y = mt.copysign(x, other)
    node = y.grad_fn
    assert node.name() == name
    saved = _saved(node)
    assert set(saved) == {"_saved_self", "_saved_result"}
    assert "_raw_saved_other" not in dir(node)
    _close(saved["_saved_self"].detach(), X)
    _close(
        saved["_saved_result"].detach(),
        np.copysign(X, np.asarray(other.detach() if isinstance(other, mt.Tensor) else other)),
    )
    y = mt.copysign(mt.tensor(X, dtype=mt.float64), _t(Y))
    assert _saved(y.grad_fn)["_saved_self"] is None  # (torch's: self's gradient not computed)


def test_nextafter_saves_self_and_other_for_self_gradient():
    y = mt.nextafter(_t(X), _t(Y))
    saved = _saved(y.grad_fn)
    assert set(saved) == {"_saved_self", "_saved_other"}
    _close(saved["_saved_self"].detach(), X)
    _close(saved["_saved_other"].detach(), Y)
    y = mt.nextafter(mt.tensor(X, dtype=mt.float64), _t(Y))
    assert _saved(y.grad_fn) == {"_saved_self": None, "_saved_other": None}


def test_ldexp_float_exponent_is_one_node():
    x, e = _t(X), _t(Y)
    y = mt.ldexp(x, e)
    node = y.grad_fn
    assert node.name() == "LdexpBackward0"
    assert _edges(node) == (ACC, ACC)  # no Exp2Backward0 between the node and the exponent
    saved = _saved(node)
    assert set(saved) == {"_saved_other", "_saved_result"}
    assert saved["_saved_other"] is e
    _close(saved["_saved_result"].detach(), np.multiply(X, np.exp2(Y)))
    y.sum().backward()
    _close(x.grad, np.exp2(Y))
    _close(e.grad, np.multiply(X, np.exp2(Y)) * math.log(2))
    y = mt.ldexp(mt.tensor(X, dtype=mt.float64), e)  # other saved only for input's gradient
    assert _saved(y.grad_fn)["_saved_other"] is None
    _close(_saved(y.grad_fn)["_saved_result"].detach(), np.multiply(X, np.exp2(Y)))


def test_ldexp_integer_exponent_saves_it_as_given():
    x, e = _t(X), mt.tensor([1, -2, 40])
    y = mt.ldexp(x, e)
    saved = _saved(y.grad_fn)
    assert set(saved) == {"_saved_other", "_saved_result"}
    assert saved["_saved_other"] is e and e.dtype is mt.int64
    _close(saved["_saved_result"].detach(), np.ldexp(X, [1, -2, 40]))
    y.sum().backward()
    _close(x.grad, np.ldexp(1.0, [1, -2, 40]))


# --- number operands of xlog1py and zeta ---


def test_xlog1py_number_other():
    x = _t(X)
    y = mt.special.xlog1py(x, 2)
    node = y.grad_fn
    assert node.name() == "SpecialXlog1PyBackward2"
    assert _edges(node) == (ACC,)
    saved = _saved(node)
    assert set(saved) == {"_saved_self", "_saved_other"}
    assert saved["_saved_other"] == 2 and type(saved["_saved_other"]) is int  # as given
    assert saved["_saved_self"] is x
    assert "_raw_saved_other" not in dir(node) and "_raw_saved_self" in dir(node)


def test_xlog1py_number_self_and_tensors():
    y = _t(Y).abs()
    out = mt.special.xlog1py(2.5, y)
    assert out.grad_fn.name() == "SpecialXlog1PyBackward1"
    assert _edges(out.grad_fn) == ("AbsBackward0",)
    saved = _saved(out.grad_fn)
    assert saved["_saved_self"] == 2.5 and saved["_saved_other"] is y
    out = mt.special.xlog1py(_t(X), y)
    assert set(_saved(out.grad_fn)) == {"_saved_self", "_saved_other"}


def test_zeta_nodes():
    s, q = _t([2.0, 3.0, 4.0]), _t([0.5, 1.0, 2.0])
    saved = _saved(mt.special.zeta(s, q.detach()).grad_fn)
    assert saved == {"_saved_self": None, "_saved_other": None}  # only q's gradient reads them
    out = mt.special.zeta(3.0, q)
    assert out.grad_fn.name() == "SpecialZetaBackward1"
    assert _edges(out.grad_fn) == (ACC,)
    saved = _saved(out.grad_fn)
    assert saved["_saved_self"] == 3.0 and saved["_saved_other"] is q
    out = mt.special.zeta(s, 2.0)
    assert out.grad_fn.name() == "SpecialZetaBackward2"
    assert _edges(out.grad_fn) == (ACC,)
    assert _saved(out.grad_fn) == {}


# --- special.round ---


def test_special_round_is_round_with_decimals():
    y = mt.special.round(_t([0.5, 1.5, -2.5]))
    assert y.grad_fn.name() == "RoundBackward1"
    _close(y.detach(), [0.0, 2.0, -2.0])
    with pytest.raises(NotImplementedError, match="\"round_vml_cpu\" not implemented for 'Long'"):
        mt.special.round(mt.tensor([1, 2]))
    assert mt.special.round(_t([0.25]), decimals=1).grad_fn.name() == "RoundBackward1"


# --- gradients (float64) ---

_POS = [0.3, 0.7, 1.6]
GRAD_CASES = {
    "deg2rad": (mt.deg2rad, [X]),
    "rad2deg": (mt.rad2deg, [X]),
    "angle": (mt.angle, [X]),
    "sgn": (mt.sgn, [X]),
    "copysign": (mt.copysign, [X, Y]),
    "copysign_number": (lambda a: mt.copysign(a, -1.0), [X]),
    "nextafter": (mt.nextafter, [X, Y]),
    "hypot": (mt.hypot, [X, Y]),
    "ldexp_float": (mt.ldexp, [X, Y]),
    "ldexp_int": (lambda a: mt.ldexp(a, mt.tensor([1, -2, 3])), [X]),
    "erfcx": (mt.special.erfcx, [X]),
    "ndtri": (mt.special.ndtri, [[0.1, 0.5, 0.8]]),
    "log_ndtr": (mt.special.log_ndtr, [X]),
    "i0e": (mt.special.i0e, [X]),
    "i1": (mt.special.i1, [X]),
    "i1e": (mt.special.i1e, [X]),
    "entr": (mt.special.entr, [_POS]),
    "xlog1py": (mt.special.xlog1py, [X, _POS]),
    "xlog1py_number_other": (lambda a: mt.special.xlog1py(a, 2), [X]),
    "xlog1py_number_self": (lambda b: mt.special.xlog1py(2.5, b), [_POS]),
    "zeta_number_self": (lambda q: mt.special.zeta(3.0, q), [_POS]),
    "special_round": (mt.special.round, [[0.3, -1.2, 2.1]]),
    "logsigmoid": (mt.nn.functional.logsigmoid, [X]),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_gradcheck_and_gradgradcheck(case):
    fn, values = GRAD_CASES[case]
    inputs = tuple(_t(v) for v in values)
    assert gradcheck(fn, inputs, eps=1e-6, atol=1e-5)
    assert gradgradcheck(fn, inputs, eps=1e-6, atol=1e-5)
