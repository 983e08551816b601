"""nn modules against torch 2.13's ModuleInfo error inputs: the recurrent modules' constructor
argument checks (bool flags, input_size), the recurrent cells' hidden-state rank checks, and
HuberLoss's delta type. Expected exception types and messages were printed by torch for the same
calls."""

from __future__ import annotations

import re

import pytest

import minitorch
from minitorch import nn

# --- RNN / LSTM / GRU constructors: torch's type and range checks, in torch's order ---


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
@pytest.mark.parametrize(
    "args, kwargs, exc, msg",
    [
        ((3, 5), dict(bias=0), TypeError, "bias should be of type bool, got: int"),
        ((3, 5), dict(bias="True"), TypeError, "bias should be of type bool, got: str"),
        ((3, 5), dict(bias=None), TypeError, "bias should be of type bool, got: NoneType"),
        ((3, 5), dict(batch_first=0), TypeError, "batch_first should be of type bool, got: int"),
        # bias is checked before batch_first and before the sizes
        ((3.0, 5), dict(bias=0, batch_first=0), TypeError, "bias should be of type bool, got: int"),
        ((3.0, 5), {}, TypeError, "input_size should be of type int, got: float"),
        (("10", 5), {}, TypeError, "input_size should be of type int, got: str"),
        ((3.0, 5.0), {}, TypeError, "input_size should be of type int, got: float"),
        ((0, 5), {}, ValueError, "input_size must be greater than zero"),
        ((-1, 5), {}, ValueError, "input_size must be greater than zero"),
        ((0, 5.0), {}, ValueError, "input_size must be greater than zero"),
        ((0, 0), {}, ValueError, "input_size must be greater than zero"),
    ],
)
def test_rnn_constructor_checks(cls, args, kwargs, exc, msg):
    with pytest.raises(exc, match="^" + re.escape(msg) + "$"):
        cls(*args, **kwargs)


# --- RNNCell / GRUCell / LSTMCell: hidden state rank ---


def _cell(name):
    minitorch.manual_seed(0)
    return getattr(nn, name)(10, 20)


@pytest.mark.parametrize(
    "name, x, hx, exc, msg",
    [
        (
            "RNNCell",
            (3, 10),
            (3, 1, 1, 20),
            ValueError,
            "RNNCell: Expected hidden to be 1D or 2D, got 4D instead",
        ),
        (
            "GRUCell",
            (3, 10),
            (3, 1, 1, 20),
            ValueError,
            "GRUCell: Expected hidden to be 1D or 2D, got 4D instead",
        ),
        (
            "RNNCell",
            (3, 10),
            (),
            ValueError,
            "RNNCell: Expected hidden to be 1D or 2D, got 0D instead",
        ),
        (
            "LSTMCell",
            (3, 10),
            [(3, 1, 1, 20), (3, 1, 1, 20)],
            ValueError,
            "LSTMCell: Expected hx[0] to be 1D or 2D, got 4D instead",
        ),
        (
            "LSTMCell",
            (3, 10),
            [(3, 20), (3, 1, 1, 20)],
            ValueError,
            "LSTMCell: Expected hx[1] to be 1D or 2D, got 4D instead",
        ),
        (
            "LSTMCell",
            (10,),
            [(1, 1, 20), (3, 20)],
            ValueError,
            "LSTMCell: Expected hx[0] to be 1D or 2D, got 3D instead",
        ),
        # a state whose rank differs from the input's fails on its sizes, as in torch
        (
            "RNNCell",
            (3, 10),
            (20,),
            RuntimeError,
            "Input batch size 3 doesn't match hidden0 batch size 20",
        ),
        (
            "RNNCell",
            (10,),
            (1, 20),
            RuntimeError,
            "hidden0 has inconsistent hidden_size: got 1, expected 20",
        ),
        (
            "LSTMCell",
            (3, 10),
            [(3, 20), (20,)],
            RuntimeError,
            "Input batch size 3 doesn't match hidden1 batch size 20",
        ),
        (
            "LSTMCell",
            (10,),
            [(20,), (3, 20)],
            RuntimeError,
            "hidden1 has inconsistent hidden_size: got 3, expected 20",
        ),
        (
            "GRUCell",
            (20, 10),
            (20,),
            IndexError,
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        ),
    ],
)
def test_cell_hidden_rank_errors(name, x, hx, exc, msg):
    cell = _cell(name)
    h = [minitorch.ones(s) for s in hx] if isinstance(hx, list) else minitorch.ones(hx)
    with pytest.raises(exc, match="^" + re.escape(msg) + "$"):
        cell(minitorch.ones(x), tuple(h) if isinstance(h, list) else h)


# --- HuberLoss: delta must be a Python float or int ---


@pytest.mark.parametrize(
    "delta, name",
    [(1 + 0j, "<class 'complex'>"), ("a", "<class 'str'>"), (None, "<class 'NoneType'>")],
)
def test_huber_loss_delta_type(delta, name):
    with pytest.raises(
        TypeError, match="^" + re.escape(f"delta must be a float or int, got: {name}")
    ):
        nn.HuberLoss(delta=delta)


def test_huber_loss_delta_tensor_refused_int_bool_accepted():
    with pytest.raises(TypeError, match="delta must be a float or int, got: <class"):
        nn.HuberLoss(delta=minitorch.tensor(1.0))
    assert nn.HuberLoss(delta=2).delta == 2
    assert nn.HuberLoss(delta=True).delta is True
    assert nn.HuberLoss(delta=-1.0).delta == -1.0
