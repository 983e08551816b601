"""Sweep 6d follow-ups: norm gradients at a zero norm with a NaN/inf upstream gradient, keepdim
without dim (and dim=None) in the reductions whose torch overloads refuse it, and the
weights_only allowlist (no slice or frozenset; protocol 2's __builtin__ names)."""

from __future__ import annotations

import io
import math
import pickle

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

NAN, INF = math.nan, math.inf


# --- norm backward: a NaN/inf upstream gradient survives the zero-norm mask (as torch) ---


def _norm_grad(p, row, g, dim):
    x = mt.tensor([row], dtype=mt.float64, requires_grad=True)
    if dim:
        n = mt.linalg.vector_norm(x, p, dim=1)
        n.backward(mt.tensor([g], dtype=mt.float64))
    else:
        n = mt.linalg.vector_norm(x, p)
        n.backward(mt.tensor(g, dtype=mt.float64))
    return x.grad.numpy()[0]


# torch's values (p, input row, upstream gradient, gradient)
_NORM_CASES = [
    (2, [0.0, 0.0, 0.0], NAN, [NAN, NAN, NAN]),
    (2, [0.0, 0.0, 0.0], INF, [NAN, NAN, NAN]),
    (2, [0.0, 0.0, 0.0], 1.0, [0.0, 0.0, 0.0]),
    (2, [0.0, 3.0, 4.0], 1.0, [0.0, 0.6, 0.8]),
    (0.5, [0.0, 0.0, 0.0], NAN, [NAN, NAN, NAN]),
    (0.5, [0.0, 0.0, 3.0], NAN, [NAN, NAN, NAN]),
    (0.5, [0.0, 0.0, 3.0], INF, [NAN, NAN, INF]),
    (0.5, [0.0, 0.0, 3.0], 1.0, [0.0, 0.0, 1.0]),
    (-1, [0.0, 2.0, -1.0], NAN, [NAN, NAN, NAN]),
    (-1, [0.0, 2.0, -1.0], 1.0, [0.0, 0.0, 0.0]),
    # p > 1 (not 2): torch zeroes the scale itself at a zero norm, NaN or not
    (1.5, [0.0, 0.0, 0.0], NAN, [0.0, 0.0, 0.0]),
    (3, [0.0, 0.0, 0.0], INF, [0.0, 0.0, 0.0]),
    (1.5, [0.0, 0.0, 3.0], INF, [NAN, NAN, INF]),
    (3, [0.0, 2.0, -1.0], NAN, [NAN, NAN, NAN]),
    (1, [0.0, 0.0, 0.0], NAN, [NAN, NAN, NAN]),
    (INF, [0.0, 0.0, 0.0], NAN, [NAN, NAN, NAN]),
]


@pytest.mark.parametrize("dim", [False, True])
@pytest.mark.parametrize("p, row, g, expected", _NORM_CASES)
def test_vector_norm_grad_keeps_nonfinite_upstream_at_zero(p, row, g, expected, dim):
    np.testing.assert_allclose(
        _norm_grad(p, row, g, dim), expected, rtol=1e-12, err_msg=f"p={p} x={row} g={g}"
    )


def test_normalising_a_zero_row_by_hand_gives_nan_gradient():
    # the splatting idiom q / q.norm(dim=-1, keepdim=True) on a degenerate quaternion
    for norm in (
        lambda q: q.norm(dim=-1, keepdim=True),
        lambda q: mt.norm(q, dim=-1, keepdim=True),
        lambda q: mt.linalg.norm(q, dim=-1, keepdim=True),
    ):
        q = mt.tensor([[1.0, 0, 0, 0], [0, 0, 0, 0]], requires_grad=True)
        (q / norm(q)).sum().backward()
        np.testing.assert_array_equal(q.grad.numpy(), [[0, 1, 1, 1], [NAN] * 4])


def test_full_norm_of_zeros_with_nan_upstream():
    q = mt.zeros(4, requires_grad=True)
    q.norm().backward(mt.tensor(NAN))
    assert np.isnan(q.grad.numpy()).all()


def test_norm_underflow_to_zero_still_gives_zero_gradient():
    # |x|**2 underflows: the norm is 0 with x != 0; torch masks x / 0 to 0
    x = mt.tensor([1e-200, 0.0], dtype=mt.float64, requires_grad=True)
    mt.linalg.vector_norm(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


@pytest.mark.parametrize("p", [2, 3, 1.5, 0.5, -1.5])
def test_vector_norm_gradients_still_check(p):
    gen = np.random.default_rng(0)
    x = mt.tensor(gen.uniform(0.5, 2.0, (3, 4)) * gen.choice([-1, 1], (3, 4)))
    x.requires_grad_(True)
    assert gradcheck(lambda t: mt.linalg.vector_norm(t, p, dim=1), (x,))
    assert gradgradcheck(lambda t: mt.linalg.vector_norm(t, p, dim=1), (x,))


# --- keepdim without dim / dim=None where torch's overloads refuse it ---

_X = mt.arange(6.0).view(2, 3)

_REFUSED = [
    ("x.sum(keepdim=True)", lambda x: x.sum(keepdim=True)),
    ("sum(x, keepdims=True)", lambda x: mt.sum(x, keepdims=True)),
    ("mean(x, keepdim=True)", lambda x: mt.mean(x, keepdim=True)),
    ("x.mean(keepdims=False)", lambda x: x.mean(keepdims=False)),
    ("prod(x, keepdim=True)", lambda x: mt.prod(x, keepdim=True)),
    ("x.prod(None)", lambda x: x.prod(None)),
    ("prod(x, dim=None)", lambda x: mt.prod(x, dim=None)),
    ("x.max(keepdim=True)", lambda x: x.max(keepdim=True)),
    ("min(x, keepdim=False)", lambda x: mt.min(x, keepdim=False)),
    ("x.max(dim=None)", lambda x: x.max(dim=None)),
    ("x.min(None)", lambda x: x.min(None)),
    ("x.max(keepdims=True)", lambda x: x.max(keepdims=True)),
    ("median(x, keepdim=True)", lambda x: mt.median(x, keepdim=True)),
    ("x.nanmedian(keepdim=False)", lambda x: x.nanmedian(keepdim=False)),
    ("mode(x, dim=None)", lambda x: mt.mode(x, dim=None)),
    ("x.mode(None)", lambda x: x.mode(None)),
]


def test_sum_and_mean_take_an_explicit_keepdim_false_without_dim():
    # torch refuses it too; minitorch accepts it on its two hottest reductions (the full
    # reduction is what the right call gives): NOTE [ keepdim without dim ]
    assert _X.sum(keepdim=False).item() == 15.0 and _X.mean(keepdim=False).item() == 2.5


@pytest.mark.parametrize("name, call", _REFUSED, ids=[r[0] for r in _REFUSED])
def test_reduction_refuses_keepdim_without_dim(name, call):
    with pytest.raises(TypeError) as info:
        call(_X)
    msg = str(info.value)
    op = name.split("(")[0].split(".")[-1]
    assert msg.startswith(op), msg
    assert "invalid combination" in msg or "dim" in msg, msg


def test_keepdim_with_dim_none_or_axis_still_works():
    x = _X
    assert x.sum(None, True).shape == (1, 1) and x.sum(None, True).item() == 15.0
    assert mt.sum(x, dim=None, keepdim=True).shape == (1, 1)
    assert mt.mean(x, None, True).shape == (1, 1)
    assert x.sum(axis=0, keepdim=True).shape == (1, 3)
    assert x.max(axis=0, keepdims=True).values.shape == (1, 3)
    assert x.sum(dim=None).shape == () and x.mean(dim=None).item() == 2.5
    assert x.max(dim=1, keepdim=True).values.shape == (2, 1)
    assert mt.prod(x + 1, 1, keepdim=True).shape == (2, 1)
    assert x.median(1, keepdim=True).values.shape == (2, 1)
    assert x.mode(keepdim=True).values.shape == (2, 1)  # mode's dim defaults to -1
    # the full forms
    assert x.sum().item() == 15.0 and x.max().item() == 5.0 and (x + 1).prod().item() == 720.0
    assert x.median().item() == 2.0


def test_keepdim_refusal_lists_the_overloads():
    with pytest.raises(TypeError) as info:
        mt.prod(_X, keepdim=True)
    msg = str(info.value)
    assert "got (Tensor, keepdim=bool)" in msg
    assert "int dim, bool keepdim = False" in msg


# --- weights_only allowlist ---


def _saved(obj, protocol=2):
    buf = io.BytesIO()
    mt.save({"x": obj}, buf, pickle_protocol=protocol)
    buf.seek(0)
    return buf


@pytest.mark.parametrize("obj, shown", [(slice(1, 2), "slice"), (frozenset({1}), "frozenset")])
def test_weights_only_refuses_slice_and_frozenset(obj, shown):
    with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {shown} was not an allowed"):
        mt.load(_saved(obj), weights_only=True)
    assert mt.serialization.get_unsafe_globals_in_checkpoint(_saved(obj)) == [f"builtins.{shown}"]
    # the user may allow them, and weights_only=False loads anything
    with mt.serialization.safe_globals([type(obj)]):
        assert mt.load(_saved(obj), weights_only=True)["x"] == obj
    assert mt.load(_saved(obj), weights_only=False)["x"] == obj


def test_unsafe_globals_use_python3_names():
    # protocol 2 names __builtin__.set; set is allowed, so nothing is unsafe
    assert mt.serialization.get_unsafe_globals_in_checkpoint(_saved({1, 2})) == []
    assert mt.serialization.get_unsafe_globals_in_checkpoint(_saved(1 + 2j)) == []
    assert mt.serialization.get_unsafe_globals_in_checkpoint(_saved(range(2))) == ["builtins.range"]
    assert mt.load(_saved({1, 2}), weights_only=True)["x"] == {1, 2}


def test_numpy_axis_none_names_the_dim_overload():
    # axis=None is a dim given (torch takes it), unlike an omitted dim
    x = mt.ones(2, 3)
    assert x.sum(axis=None, keepdim=True).shape == (1, 1)
    assert x.mean(axis=None, keepdim=True).shape == (1, 1)
    assert mt.sum(x, axis=None).shape == ()
    with pytest.raises(TypeError):
        x.sum(keepdim=True)
