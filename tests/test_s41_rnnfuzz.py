"""Recurrent layers and cells given their states in the forms torch's forward reads (hx[0] and
hx[1] of whatever hx is), the errors of the forms it refuses, and the errors of a packed LSTM's
kernel, checked without torch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck

pack = nn.utils.rnn.pack_padded_sequence


def _np(t):
    return t.detach().numpy()


def test_unbatched_lstm_takes_a_stacked_state_or_a_longer_tuple():
    lstm = nn.LSTM(2, 3, dtype=mt.float64)
    x = mt.randn(4, 2, dtype=mt.float64)
    h, c = mt.randn(1, 3, dtype=mt.float64), mt.randn(1, 3, dtype=mt.float64)
    want = lstm(x, (h, c))
    for hx in (mt.stack([h, c]), (h, c, h)):
        got = lstm(x, hx)
        np.testing.assert_array_equal(_np(got[0]), _np(want[0]))
        np.testing.assert_array_equal(_np(got[1][1]), _np(want[1][1]))


def test_stacked_state_is_differentiable_twice():
    lstm = nn.LSTM(2, 3, dtype=mt.float64)
    x = mt.randn(3, 2, dtype=mt.float64, requires_grad=True)
    hx = mt.randn(2, 1, 3, dtype=mt.float64, requires_grad=True)

    def f(x, hx):
        out, (h, c) = lstm(x, hx)
        return out.sum() + (h * c).sum()

    assert gradcheck(f, (x, hx))
    assert gradgradcheck(f, (x, hx))


def test_packed_lstm_with_sorted_indices_indexes_its_state():
    lstm = nn.LSTM(2, 3)
    x = mt.randn(4, 2, 2)
    packed = pack(x, [3, 4], enforce_sorted=False)
    h = mt.randn(1, 2, 3)
    out, (hn, cn) = lstm(packed, mt.stack([h, h]))
    ref = lstm(packed, (h, h))[1]
    np.testing.assert_array_equal(_np(hn), _np(ref[0]))
    np.testing.assert_array_equal(_np(cn), _np(ref[1]))
    with pytest.raises(AttributeError, match="^'NoneType' object has no attribute 'index_select'$"):
        lstm(packed, (h, None))


def test_lstm_kernel_errors_for_a_state_that_is_not_a_pair():
    lstm = nn.LSTM(2, 3)
    x, h = mt.zeros(4, 2, 2), mt.zeros(1, 2, 3)
    with pytest.raises(TypeError, match=r"^lstm\(\) received an invalid combination") as e:
        lstm(x, mt.stack([h, h]))
    assert "(Tensor, !Tensor!, !list of [Parameter, Parameter, Parameter, Parameter]!" in str(
        e.value
    )
    with pytest.raises(RuntimeError, match="^lstm expects two hidden states$"):
        lstm(pack(x, [4, 4]), (h, h, h))
    with pytest.raises(TypeError, match="^expected Tensor as element 1 in argument 2, but got"):
        lstm(pack(x, [4, 4]), (h, None))
    # the sizes are checked first
    with pytest.raises(RuntimeError, match=r"^Expected hidden\[0\] size \(1, 2, 3\)"):
        lstm(x, (mt.zeros(1, 3, 3),) * 3)


@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU])
def test_rnn_gru_name_the_method_torch_calls_on_a_non_tensor_state(cls):
    m = cls(2, 3)
    x = mt.zeros(4, 2, 2)
    for inp, attr in (
        (x, "dim"),
        (pack(x, [4, 3]), "size"),
        (pack(x, [3, 4], enforce_sorted=False), "index_select"),
    ):
        with pytest.raises(AttributeError, match=f"^'list' object has no attribute '{attr}'$"):
            m(inp, [mt.zeros(1, 2, 3)])


def test_cells_state_forms():
    h = mt.zeros(3)
    cell = nn.LSTMCell(2, 3)
    assert cell(mt.zeros(2), (h, h, h))[0].shape == (3,)  # unbatched: hx[0], hx[1]
    with pytest.raises(IndexError, match="^tuple index out of range$"):
        cell(mt.zeros(2), (h,))
    with pytest.raises(TypeError, match="^'int' object is not iterable$"):
        cell(mt.zeros(2), 3)
    with pytest.raises(TypeError, match="must be tuple of Tensors, not generator$"):
        cell(mt.zeros(1, 2), (t for t in (h[None], h[None])))
    with pytest.raises(ValueError, match=r"^LSTMCell: Expected hx\[0\] to be 1D or 2D, got 3D"):
        cell(mt.zeros(1, 2), (mt.zeros(1, 1, 3), None))
    with pytest.raises(AttributeError, match="^'int' object has no attribute 'dim'$"):
        nn.GRUCell(2, 3)(mt.zeros(2), 3)


def test_unbatched_cell_given_a_batch_of_states():
    x = mt.zeros(4)
    with pytest.raises(
        RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x2\)$"
    ):
        nn.RNNCell(4, 2)(x, mt.zeros(2, 3))
    with pytest.raises(
        RuntimeError,
        match=r"^The size of tensor a \(6\) must match the size of tensor b \(2\) at "
        "non-singleton dimension 2$",
    ):
        nn.GRUCell(4, 2)(x, mt.zeros(2, 2))
    assert nn.RNNCell(4, 2)(x, mt.zeros(2, 2)).shape == (2, 2)


def test_packed_lstm_dtype_and_feature_errors():
    x = mt.zeros(3, 2, 2)
    with pytest.raises(RuntimeError, match="^get_mkldnn_dtype: unsupported data type$"):
        nn.LSTM(2, 3, dtype=mt.float64)(pack(x, [3, 3]))
    with pytest.raises(RuntimeError, match="^could not create a primitive descriptor for the LSTM"):
        nn.LSTM(2, 3, dtype=mt.bfloat16)(pack(x, [3, 3]))
    with pytest.raises(
        RuntimeError, match="^expected m1 and m2 to have the same dtype, but got: float != double$"
    ):
        nn.LSTM(2, 3, bias=False, dtype=mt.float64)(pack(x, [3, 2]))
    with pytest.raises(
        RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(10x1 and 2x12\)$"
    ):
        nn.LSTM(2, 3)(pack(mt.zeros(3, 2, 2, 1), [3, 2]))


def test_unsorted_packing_orders_before_transposing_and_meta_lengths():
    with pytest.raises(IndexError, match="^Dimension out of range"):
        pack(mt.zeros(4), [3, 2], batch_first=True, enforce_sorted=False)
    lengths = mt.tensor([3, 2]).to("meta")
    with pytest.raises(NotImplementedError, match="^Cannot copy out of meta tensor; no data!$"):
        pack(mt.zeros(3, 2, 1), lengths, enforce_sorted=False)
    with pytest.raises(RuntimeError, match="but got 1D meta Long tensor$"):
        pack(mt.zeros(3, 2, 1), lengths)


def test_float32_lstm_states_of_another_dtype_give_onednn_errors():
    lstm, x = nn.LSTM(2, 3), mt.zeros(4, 1, 2)
    h = mt.zeros(1, 1, 3)
    with pytest.raises(RuntimeError, match="^get_mkldnn_dtype: unsupported data type$"):
        lstm(x, (h, h.double()))
    with pytest.raises(RuntimeError, match="^could not create a primitive descriptor"):
        lstm(x, (h.bfloat16(), h))
