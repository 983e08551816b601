"""Sweep 18: error texts that match torch's word for word (users search for them)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn
from minitorch.autograd import gradcheck

F = nn.functional


def _raises(exc, text: str):
    """pytest.raises for exactly `text` (no op-name prefix, nothing appended)."""
    return pytest.raises(exc, match="^" + re.escape(text) + "$")


# --- a float in a size (torch.zeros((n / 2, 3))) ---


def test_float_first_in_a_size_tuple_names_its_type_at_pos_0():
    text = (
        "argument 'size' (position 1) must be tuple of ints, but found element of type float at "
        "pos 0"
    )
    with _raises(TypeError, "zeros(): " + text):
        mt.zeros((4.0, 3))
    with _raises(TypeError, "empty(): " + text):
        nn.Embedding(8 / 2, 3)
    with _raises(TypeError, "empty(): " + text):
        nn.Conv2d(3, 8 / 2, 3)
    with _raises(TypeError, "full(): " + text):
        mt.full([4.0, 3], 1.0)
    with _raises(TypeError, "zeros(): " + text.replace("float", "NoneType")):
        mt.zeros((None, 3))
    with _raises(TypeError, "zeros(): " + text.replace("float", "numpy.float64")):
        mt.zeros((np.float64(2.0), 3))


def test_float_later_in_a_size_still_fails_to_unpack():
    with _raises(
        TypeError,
        "zeros(): argument 'size' failed to unpack the object at pos 2 with error "
        '"type must be tuple of ints,but got float"',
    ):
        mt.zeros((2, 3.0))


def test_size_keyword_with_a_bad_first_element_names_the_sequence():
    with _raises(TypeError, "zeros(): argument 'size' must be tuple of ints, not tuple"):
        mt.zeros(size=(4.0, 3))
    with _raises(TypeError, "zeros(): argument 'size' must be tuple of ints, not list"):
        mt.zeros(size=[4.0, 3])


def test_varargs_that_do_not_start_with_an_int_match_no_signature():
    with _raises(TypeError, "zeros() takes 1 positional argument but 2 were given"):
        mt.zeros(8 / 2, 3)
    with _raises(TypeError, "ones() takes 1 positional argument but 3 were given"):
        mt.ones(None, 3, 4)
    with _raises(TypeError, "empty() takes 1 positional argument but 2 were given"):
        mt.empty(True, 2)
    with pytest.raises(TypeError) as info:
        mt.randn(4.0, 3)
    assert str(info.value).startswith(
        "randn() received an invalid combination of arguments - got (float, int), but expected "
        "one of:\n * (tuple of ints size, *, torch.Generator generator, Tensor out = None, "
    ), str(info.value)


def test_a_bool_after_the_first_size_element_reads_as_an_int():
    assert mt.zeros((2, True)).shape == (2, 1)
    assert mt.zeros(2, 3, True).shape == (2, 3, 1)
    with _raises(
        TypeError,
        "zeros(): argument 'size' (position 1) must be tuple of ints, but found element of "
        "type bool at pos 0",
    ):
        mt.zeros((True, 2))


# --- no op-name prefix where torch has none ---


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_"])
def test_inplace_broadcast_error_has_no_prefix(name):
    img = mt.zeros(1, 2, 2)
    with _raises(
        RuntimeError, "output with shape [1, 2, 2] doesn't match the broadcast shape [3, 2, 2]"
    ):
        getattr(img, name)(mt.ones(3, 1, 1))


@pytest.mark.parametrize(
    "pool, shape",
    [(F.max_pool2d, (1, 1, 2, 2)), (F.avg_pool2d, (1, 1, 2, 2)), (F.max_pool3d, (1, 1, 2, 2, 2))],
)
def test_pool_output_too_small_has_no_prefix(pool, shape):
    size = "x".join(["1"] + ["2"] * (len(shape) - 2))
    out = "x".join(["1"] + ["0"] * (len(shape) - 2))
    with _raises(
        RuntimeError,
        f"Given input size: ({size}). Calculated output size: ({out}). Output size is too small",
    ):
        pool(mt.zeros(*shape), 3)


def test_pool_other_texts_without_prefix():
    with _raises(
        RuntimeError,
        "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
        "got:[1, 0, 2, 2]",
    ):
        F.max_pool2d(mt.zeros(1, 0, 2, 2), 1)
    with _raises(NotImplementedError, "\"adaptive_max_pool2d\" not implemented for 'Long'"):
        F.adaptive_max_pool2d(mt.zeros(1, 2, 2, dtype=mt.int64), 2)
    with _raises(RuntimeError, "pad must be non-negative, but got pad: -1"):
        F.avg_pool2d(mt.zeros(1, 1, 4, 4), 3, padding=-1)


def test_loss_texts_without_prefix():
    x = mt.zeros(3, 4)
    with _raises(RuntimeError, "expected scalar type Long but found Float"):
        F.multi_margin_loss(x, mt.tensor([1.0, 2.0, 0.0]))
    with _raises(RuntimeError, "expected scalar type Long but found Int"):
        F.multilabel_margin_loss(x, mt.ones(3, 4, dtype=mt.int32))
    with _raises(
        RuntimeError, "Expected floating point type for target with class probabilities, got Long"
    ):
        F.cross_entropy(mt.zeros(()), mt.tensor(1))
    with _raises(RuntimeError, "ignore_index is not supported for floating point target"):
        F.cross_entropy(x, mt.ones(3, 4), ignore_index=1)
    with _raises(RuntimeError, "result type Float can't be cast to the desired output type Long"):
        F.binary_cross_entropy_with_logits(mt.zeros(3), mt.ones(3, dtype=mt.int64))
    with _raises(
        TypeError,
        "binary_cross_entropy_with_logits(): argument 'weight' (position 3) must be Tensor, not "
        "numpy.ndarray",
    ):
        F.binary_cross_entropy_with_logits(mt.zeros(3), mt.ones(3), weight=np.ones(3))


def test_norm_mixed_dtype_texts_are_torchs():
    x32, x64 = mt.zeros(2, 4), mt.zeros(2, 4, dtype=mt.float64)
    p32, p64 = mt.ones(4), mt.ones(4, dtype=mt.float64)
    param = "mixed dtype (CPU): expect parameter to have scalar type of Float"
    share = "mixed dtype (CPU): all inputs must share same datatype."
    with _raises(RuntimeError, param):
        F.batch_norm(x32, p64 * 0, p64)
    with _raises(RuntimeError, share):
        F.batch_norm(x64, p32 * 0, p32)
    with _raises(RuntimeError, param):
        F.layer_norm(x32, (4,), weight=p64)
    with _raises(RuntimeError, share):
        nn.LayerNorm(4)(x64)
    with _raises(RuntimeError, param):
        F.group_norm(x32, 2, weight=p64)
    with _raises(RuntimeError, share):
        nn.GroupNorm(2, 4)(x64)
    # half input, float32 parameters: still allowed, output stays half
    out = F.layer_norm(x32.half(), (4,), weight=p32, bias=p32)
    assert out.dtype is mt.float16


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
def test_rnn_dtype_mismatch_says_rnn(cls):
    with _raises(
        ValueError,
        "RNN input dtype (torch.float64) does not match weight dtype (torch.float32). Convert "
        "input: input.to(torch.float32), or convert model: model.to(torch.float64)",
    ):
        cls(4, 5)(mt.zeros(3, 2, 4, dtype=mt.float64))
    with _raises(RuntimeError, "Expected sequence length to be larger than 0 in RNN"):
        cls(4, 5)(mt.zeros(0, 2, 4))


# --- where, index_add, relu ---


@pytest.mark.parametrize(
    "dt, name", [(mt.int64, "Long"), (mt.float32, "Float"), (mt.int8, "Char"), (mt.float16, "Half")]
)
def test_where_names_the_condition_dtype_as_torch(dt, name):
    x = mt.zeros(3)
    with _raises(
        RuntimeError,
        f"where expected condition to be a boolean tensor, but got a tensor with dtype {name}",
    ):
        mt.where(mt.tensor([1, 0, 1], dtype=dt), x, -x)


def test_index_add_shape_checks_in_torchs_order():
    z = mt.zeros(3, 4)
    with _raises(
        RuntimeError,
        "source tensor shape must match self tensor shape, excluding the specified dimension. "
        "Got self.shape = [3, 4] source.shape = [1, 3]",
    ):
        z.index_add(0, mt.tensor([0]), mt.ones(1, 3))
    with _raises(
        RuntimeError,
        "source tensor shape must match self tensor shape, excluding the specified dimension. "
        "Got self.shape = [3, 4] source.shape = [2, 4, 1]",
    ):
        z.index_add(0, mt.tensor([0, 1]), mt.ones(2, 4, 1))
    with _raises(
        RuntimeError,
        "index_add_(): Number of indices (1) should be equal to source.size(dim): (2), for dim: 0",
    ):
        z.index_add(0, mt.tensor([0]), mt.ones(2, 3))
    with _raises(
        RuntimeError,
        "index_add_(): Indexing dim 1 is out of bounds of the source tensor with dim 1",
    ):
        z.index_add(1, mt.tensor([0]), mt.ones(3))
    # shapes are checked before the index bounds, as in torch
    with pytest.raises(RuntimeError, match="^source tensor shape must match"):
        z.index_add(0, mt.tensor([5]), mt.ones(1, 3))


def test_index_add_values_and_gradient_unchanged():
    z = mt.zeros(3, 4, dtype=mt.float64)
    src = mt.tensor(np.arange(8.0).reshape(2, 4))
    out = z.index_add(0, mt.tensor([2, 0]), src)
    want = np.zeros((3, 4))
    want[2], want[0] = np.arange(4.0), np.arange(4.0, 8.0)
    np.testing.assert_allclose(out.numpy(), want, err_msg="index_add values")
    zero_d_index = z.index_add(0, mt.tensor(1), mt.ones(1, 4, dtype=mt.float64))
    np.testing.assert_allclose(zero_d_index.numpy()[1], np.ones(4), err_msg="0-d index")
    a = mt.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
    b = mt.tensor(np.linspace(0, 2, 8).reshape(2, 4), requires_grad=True)
    assert gradcheck(lambda a, b: a.index_add(0, mt.tensor([2, 0]), b, alpha=1.5), (a, b))


def test_relu_on_bool_says_so_as_torch():
    t = mt.tensor([True, False])
    for f in (mt.relu, F.relu, lambda x: x.relu(), lambda x: x.relu_()):
        with _raises(RuntimeError, "Boolean inputs not supported for relu"):
            f(t)


# --- type names and broadcast order ---


def test_numpy_array_named_as_numpy_ndarray():
    with _raises(
        TypeError,
        "leaky_relu(): argument 'negative_slope' (position 2) must be Number, not numpy.ndarray",
    ):
        F.leaky_relu(mt.ones(3), np.ones(1))


def test_soft_margin_loss_names_input_as_tensor_a():
    with _raises(
        RuntimeError,
        "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 1",
    ):
        F.soft_margin_loss(mt.zeros(3, 4), mt.ones(3, 5))


def test_soft_margin_loss_values_and_gradient():
    x = mt.tensor(np.linspace(-2, 2, 12).reshape(3, 4), requires_grad=True)
    y = mt.tensor(np.sign(np.linspace(-1, 1.1, 12)).reshape(3, 4))
    got = F.soft_margin_loss(x, y, reduction="none")
    want = np.log1p(np.exp(-y.numpy() * x.detach().numpy()))
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12, err_msg="soft margin")
    assert gradcheck(lambda x: F.soft_margin_loss(x, y), (x,))
