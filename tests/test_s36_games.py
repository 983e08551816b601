"""Session 36 (helper games): torch-free regression tests of the library fixes the game-theory
and bandit programs of tests/reference/test_s36_games_reference.py found: torch's parser errors
for a softmax/log_softmax (torch. and special.) called without its dim or with too many
positional arguments, and for multinomial (torch. and Tensor.) called without num_samples or
with too many positional arguments. torch's messages are written here
as literals."""

from __future__ import annotations

import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _missing(op, name):
    return f'{op}() missing 1 required positional arguments: "{name}"'


X = mt.tensor([0.5, -1.0, 2.0])


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda: mt.softmax(X), "softmax"),
        (lambda: mt.log_softmax(X), "log_softmax"),
        (lambda: mt.log_softmax(X, dtype=mt.float64), "log_softmax"),
        (lambda: mt.softmax(X, dtype=mt.float64), "softmax"),
        (lambda: mt.special.softmax(X), "special_softmax"),
        (lambda: mt.special.log_softmax(X, dtype=mt.float64), "special_log_softmax"),
    ],
)
def test_softmax_without_dim(call, op):
    assert _message(TypeError, call) == _missing(op, "dim")


def test_softmax_with_dim_unchanged():
    # the policy of a regret-matching / policy-gradient program: dim given as before
    p = X.softmax(0)
    assert abs(float(p.sum()) - 1.0) < 1e-6
    lp = mt.log_softmax(X, 0, mt.float64)
    assert lp.dtype is mt.float64
    assert mt.special.softmax(X, 0).shape == (3,)
    msg = _message(TypeError, lambda: mt.softmax(X, None))
    assert msg == "softmax(): argument 'dim' (position 2) must be int, not NoneType"


@pytest.mark.parametrize(
    "call",
    [
        lambda: mt.multinomial(mt.tensor([0.5, 0.5])),
        lambda: mt.multinomial(mt.tensor([0.5, 0.5]), replacement=True),
        lambda: mt.multinomial(input=mt.tensor([0.5, 0.5])),
        lambda: mt.tensor([0.5, 0.5]).multinomial(),
        lambda: mt.tensor([0.5, 0.5]).multinomial(replacement=True),
    ],
)
def test_multinomial_without_num_samples(call):
    assert _message(TypeError, call) == _missing("multinomial", "num_samples")


def test_multinomial_arguments_unchanged():
    p = mt.tensor([0.5, 0.5])
    msg = _message(TypeError, lambda: p.multinomial(None))
    assert msg == "multinomial(): argument 'num_samples' (position 1) must be int, not NoneType"
    msg = _message(TypeError, lambda: mt.multinomial([0.5], 1))
    assert msg == "multinomial(): argument 'input' (position 1) must be Tensor, not list"
    g = mt.Generator().manual_seed(0)
    draws = mt.multinomial(mt.tensor([0.0, 1.0, 0.0]), 4, True, generator=g)
    assert draws.tolist() == [1, 1, 1, 1]
    assert p.multinomial(num_samples=2).sort().values.tolist() == [0, 1]


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: mt.softmax(X, 0, None, 5), "softmax() takes from 2 to 3 positional arguments"),
        (lambda: mt.log_softmax(X, 0, None, 5), "log_softmax() takes from 2 to 3 positional"),
        (lambda: mt.special.log_softmax(X, 0, 1), "special_log_softmax() takes 2 positional"),
        (lambda: mt.special.softmax(X, 0, 1), "special_softmax() takes 2 positional"),
        (lambda: mt.multinomial(X.abs(), 1, True, 3), "multinomial() takes from 2 to 3"),
        (lambda: X.abs().multinomial(1, True, 3), "multinomial() takes from 1 to 2"),
    ],
)
def test_too_many_positional_arguments(call, msg):
    assert _message(TypeError, call).startswith(msg)
