"""Session 27, recommenders / time series / audio: the library fixes, each checked against
torch 2.13's output (literals obtained by running torch)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import minitorch as mt
from minitorch import nn
from minitorch.nn import functional as F

# --- interpolate on integer input: torch's CPU kernel refuses the dtype in its own words ---

_INT_KERNELS = [
    ("nearest", 1, False, "compute_indices_weights_nearest"),
    ("nearest-exact", 1, False, "compute_indices_weights_nearest"),
    ("linear", 1, False, "compute_indices_weights_linear"),
    ("nearest", 2, False, "upsample_nearest2d_channels_last"),
    ("nearest-exact", 2, False, "upsample_nearest2d_channels_last"),
    ("bilinear", 2, False, "upsample_bilinear2d_channels_last"),
    ("bicubic", 2, False, "compute_indices_weights_cubic"),
    ("bilinear", 2, True, "compute_index_ranges_weights"),
    ("bicubic", 2, True, "compute_index_ranges_weights"),
    ("nearest", 3, False, "compute_indices_weights_nearest"),
    ("trilinear", 3, False, "compute_indices_weights_linear"),
    ("area", 1, False, "adaptive_avg_pool2d"),
    ("area", 2, False, "adaptive_avg_pool2d"),
    ("area", 3, False, "adaptive_avg_pool3d_cpu"),
]


@pytest.mark.parametrize("mode,n,antialias,kernel", _INT_KERNELS)
@pytest.mark.parametrize("dt,name", [("int64", "Long"), ("int32", "Int"), ("bool", "Bool")])
def test_interpolate_integer_input_message(mode, n, antialias, kernel, dt, name):
    x = mt.zeros((1, 1) + (4,) * n, dtype=getattr(mt, dt))
    msg = f"\"{kernel}\" not implemented for '{name}'"
    with pytest.raises(NotImplementedError) as e:
        F.interpolate(x, size=(3,) * n, mode=mode, antialias=antialias)
    assert str(e.value) == msg


def test_interpolate_uint8_modes():
    # uint8 runs the nearest and 2-d modes; linear, trilinear and area refuse it
    x = mt.arange(4, dtype=mt.uint8).view(1, 1, 4)
    assert F.interpolate(x, size=3, mode="nearest").tolist() == [[[0, 1, 2]]]
    with pytest.raises(NotImplementedError) as e:
        F.interpolate(x, size=3, mode="linear")
    assert str(e.value) == "\"compute_indices_weights_linear\" not implemented for 'Byte'"
    with pytest.raises(NotImplementedError) as e:
        F.interpolate(x, size=3, mode="area")
    assert str(e.value) == "\"adaptive_avg_pool2d\" not implemented for 'Byte'"


# --- GRU / RNN given a hidden state of another dtype: torch's CPU matmul message ---


@pytest.mark.parametrize("cls", ["GRU", "RNN"])
def test_gru_rnn_hidden_dtype_message(cls):
    m = getattr(nn, cls)(3, 4)
    x = mt.randn(5, 2, 3)
    with pytest.raises(RuntimeError) as e:
        m(x, mt.zeros(1, 2, 4, dtype=mt.float64))
    assert str(e.value) == "mat1 and mat2 must have the same dtype, but got Double and Float"
    with pytest.raises(RuntimeError) as e:
        m.double()(x.double(), mt.zeros(1, 2, 4, dtype=mt.float16))
    assert str(e.value) == "mat1 and mat2 must have the same dtype, but got Half and Double"
    with pytest.raises(RuntimeError) as e:  # unbatched
        m.float()(x[:, 0], mt.zeros(1, 4, dtype=mt.bfloat16))
    assert str(e.value) == "mat1 and mat2 must have the same dtype, but got BFloat16 and Float"


def test_lstm_hidden_dtype_message():
    # torch's float32 LSTM fails inside oneDNN on a float64 state, with its words
    with pytest.raises(RuntimeError, match="^get_mkldnn_dtype: unsupported data type$"):
        nn.LSTM(3, 4)(mt.randn(5, 2, 3), (mt.zeros(1, 2, 4), mt.zeros(1, 2, 4).double()))


# --- Conv's padding string: torch prints a set, so its order is the process's hash order ---


@pytest.mark.parametrize(
    "seed,want", [("0", "{'same', 'valid'}"), ("1", "{'valid', 'same'}")]
)  # (what torch 2.13 prints under PYTHONHASHSEED=0 and 1)
def test_conv_padding_string_message_follows_hash_order(seed, want):
    code = (
        "import minitorch\n"
        "try:\n"
        "    minitorch.nn.Conv1d(2, 3, 3, padding='causal')\n"
        "except ValueError as e:\n"
        "    print(e)\n"
    )
    env = dict(os.environ, PYTHONHASHSEED=seed)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == f"Invalid padding string 'causal', should be one of {want}"


# --- LSTMCell given a tuple of other than two states ---


@pytest.mark.parametrize("n", [0, 1, 3])
def test_lstm_cell_state_count_message(n):
    h = mt.zeros(4, 3)
    for hx in ((h,) * n, [h] * n):
        with pytest.raises(RuntimeError) as e:
            nn.LSTMCell(2, 3)(mt.zeros(4, 2), hx)
        assert str(e.value) == "lstm_cell expects two hidden states"
