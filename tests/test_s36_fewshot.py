"""Session 36 (helper fewshot): torch-free regression tests of the library fixes the few-shot
programs of tests/reference/test_s36_fewshot_reference.py found: Module.zero_grad and
Module._apply read a parameter's .grad as torch's do, so a non-leaf tensor in _parameters (a
learn2learn-style MAML clone) gives torch's warning. torch's message is written here as a
literal."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt

NON_LEAF = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If "
    "you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. "
    "See github.com/pytorch/pytorch/pull/30531 for more information."
)


def _clone_updated(module):
    """A learn2learn-style adapted module: its weight a non-leaf tensor in _parameters."""
    mt.manual_seed(0)
    x = mt.randn(4, 3)
    loss = module(x).pow(2).sum()
    (gw,) = mt.autograd.grad(loss, [module.weight], create_graph=True)
    module._parameters["weight"] = module.weight - 0.1 * gw
    return module


def _caught(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_warns_for_a_non_leaf_parameter(set_to_none):
    m = _clone_updated(mt.nn.Linear(3, 2))
    assert _caught(lambda: m.zero_grad(set_to_none=set_to_none)) == [NON_LEAF]
    assert m.weight.grad_fn is not None  # the non-leaf stays in place


def test_zero_grad_of_leaves_gives_no_warning():
    m = mt.nn.Linear(3, 2)
    m(mt.randn(2, 3)).sum().backward()
    assert _caught(m.zero_grad) == []
    assert m.weight.grad is None


@pytest.mark.parametrize("fn", [lambda m: m._apply(lambda t: t), lambda m: m.float()])
def test_apply_warns_for_a_non_leaf_parameter(fn):
    m = _clone_updated(mt.nn.Linear(3, 2))
    assert _caught(lambda: fn(m)) == [NON_LEAF]
    assert m.weight.grad_fn is not None


def test_lstm_clone_apply_warns_per_non_leaf_parameter():
    mt.manual_seed(1)
    rnn = mt.nn.LSTM(3, 2)
    clone = mt.nn.LSTM(3, 2)
    for k, p in rnn._parameters.items():
        clone._parameters[k] = p.clone()
    assert _caught(lambda: clone._apply(lambda t: t)) == [NON_LEAF] * 4
