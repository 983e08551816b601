"""Session 36 (helper init): torch-free regression tests of the library fixes the weight
initialisation programs of tests/reference/test_s36_init_reference.py found: orthogonal_ of a
chunk of a weight whose sibling chunk was filled; the deprecated aliases in nn.init.__all__;
normal_'s check of a NaN std; the float arguments of uniform_/normal_ (a complex, a NumPy
array); trunc_normal_ refusing an expanded tensor before it draws, and returning a meta
tensor as it is; the AttributeError of a non-tensor given to eye_/dirac_/orthogonal_/sparse_/
trunc_normal_. torch's messages are written here as literals."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch as mt

init = mt.nn.init


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def test_orthogonal_of_chunks_after_a_sibling_was_filled():
    # torch's orthogonal_ copies through a view taken under no_grad: a GRU's per-gate init
    mt.manual_seed(0)
    p = mt.nn.Parameter(mt.zeros(6, 2))
    for w in p.chunk(3, 0):
        init.orthogonal_(w)
    for i in range(3):
        q = p[2 * i : 2 * i + 2].detach()
        np.testing.assert_allclose((q @ q.T).numpy(), np.eye(2), atol=1e-6)
    assert p.grad_fn is None and p.is_leaf
    # the chunks may no longer be used with grad enabled, as in torch
    a, b, _ = p.chunk(3, 0)
    with mt.no_grad():
        a.fill_(1)
    msg = _message(RuntimeError, lambda: b * 2)
    assert msg.startswith("Output 1 of Split is a view and its base or another view")


def test_orthogonal_gain_on_a_chunk():
    mt.manual_seed(1)
    p = mt.nn.Parameter(mt.zeros(4, 4))
    for w in p.chunk(2, 1):
        init.orthogonal_(w, gain=2.0)
    q = p[:, :2].detach()
    np.testing.assert_allclose((q.T @ q).numpy(), 4 * np.eye(2), atol=1e-5)


def test_deprecated_aliases_are_exported():
    names = ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
             "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]  # fmt: skip
    for n in names:
        assert n in init.__all__
        assert n + "_" in init.__all__
    assert len(init.__all__) == 26


@pytest.mark.parametrize(
    "fn",
    [
        lambda: mt.empty(3).normal_(0.0, math.nan),
        lambda: init.normal_(mt.empty(3), 0.0, math.nan),
        lambda: mt.empty(0, dtype=mt.int64).normal_(0.0, math.nan),
        lambda: mt.normal(0.0, math.nan, (3,)),
        lambda: mt.normal(mt.zeros(2), math.nan),
        lambda: mt.normal(0.0, math.nan, (3,), out=mt.empty(3)),
    ],
)
def test_normal_refuses_a_nan_std(fn):
    assert _message(RuntimeError, fn) == "normal expects std >= 0.0, but found std nan"


def test_normal_nan_std_draws_nothing():
    mt.manual_seed(2)
    want = mt.rand(3)
    mt.manual_seed(2)
    with pytest.raises(RuntimeError):
        init.normal_(mt.empty(5), 0.0, math.nan)
    np.testing.assert_array_equal(mt.rand(3).numpy(), want.numpy())


@pytest.mark.parametrize(
    "fn, msg",
    [
        (lambda: init.uniform_(mt.empty(3), "a", 1.0),
         "uniform_(): argument 'from' (position 1) must be float, not str"),
        (lambda: init.uniform_(mt.empty(3), 0.0, "b"),
         "uniform_(): argument 'to' (position 2) must be float, not str"),
        (lambda: init.uniform_(mt.empty(3), None, 1.0),
         "uniform_(): argument 'from' (position 1) must be float, not NoneType"),
        (lambda: init.uniform_(mt.empty(3), 1j, 2.0),
         "uniform_(): argument 'from' (position 1) must be float, not complex"),
        (lambda: mt.empty(3).uniform_(0.0, 2j),
         "uniform_(): argument 'to' (position 2) must be float, not complex"),
        (lambda: mt.empty(3).normal_(1j),
         "normal_(): argument 'mean' (position 1) must be float, not complex"),
        (lambda: mt.empty(3).uniform_(np.array(0.5), 1.0),
         "uniform_(): argument 'from' (position 1) must be float, not numpy.ndarray"),
        (lambda: init.uniform_(mt.empty(3, dtype=mt.int64), "a", 1.0),
         "uniform_(): argument 'from' (position 1) must be float, not str"),
    ],
)  # fmt: skip
def test_fill_float_arguments(fn, msg):
    assert _message(TypeError, fn) == msg


def test_uniform_checks_stay_in_order():
    t = mt.empty(3, dtype=mt.int64)
    assert _message(NotImplementedError, lambda: init.uniform_(t, 2.0, 1.0)) == (
        "\"check_uniform_bounds\" not implemented for 'Long'"
    )
    assert _message(RuntimeError, lambda: init.uniform_(mt.empty(3), 2.0, 1.0)) == (
        "uniform_ expects to return a [from, to) range, but found from=2 > to=1"
    )
    assert _message(AttributeError, lambda: init.uniform_([1.0])) == (
        "'list' object has no attribute 'uniform_'"
    )
    assert _message(AttributeError, lambda: init.uniform_(mt.zeros(2).numpy())) == (
        "'numpy.ndarray' object has no attribute 'uniform_'"
    )


@pytest.mark.parametrize("kw", [{}, {"a": 2.0, "b": 3.0}])
def test_trunc_normal_refuses_an_expanded_tensor_before_drawing(kw):
    mt.manual_seed(3)
    want = mt.rand(3)
    mt.manual_seed(3)
    t = mt.zeros(1, 4).expand(3, 4)
    msg = _message(RuntimeError, lambda: init.trunc_normal_(t, **kw))
    assert msg.startswith("unsupported operation: more than one element of the written-to")
    np.testing.assert_array_equal(mt.rand(3).numpy(), want.numpy())


def test_trunc_normal_returns_a_meta_tensor_without_warning():
    t = mt.empty(3, 4, device="meta")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert init.trunc_normal_(t, mean=5.0, a=-1.0, b=1.0) is t


@pytest.mark.parametrize(
    "fn, attr",
    [
        (lambda x: init.eye_(x), "ndimension"),
        (lambda x: init.dirac_(x), "ndimension"),
        (lambda x: init.orthogonal_(x), "ndimension"),
        (lambda x: init.sparse_(x, 0.1), "ndimension"),
        (lambda x: init.trunc_normal_(x), "is_meta"),
    ],
)
def test_non_tensor_attribute_errors(fn, attr):
    assert _message(AttributeError, lambda: fn([[1.0]])) == (
        f"'list' object has no attribute '{attr}'"
    )
    assert _message(AttributeError, lambda: fn(1.0)) == f"'float' object has no attribute '{attr}'"
