"""Audio-pipeline differences from torch found by a sweep: window lengths given as NumPy or 0-d
tensor ints, pad_sequence over any iterable (and its element errors), and ctc_loss's argument
checks (length values, concatenated target sizes, CPU dtypes)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn import functional as F
from minitorch.nn.utils.rnn import pad_sequence

_WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
_WHERE = "(while checking arguments for ctc_loss_allocate_outputs)"


# --- window functions: int-like window_length ---


@pytest.mark.parametrize("name", _WINDOWS)
@pytest.mark.parametrize(
    "length", [np.int64(7), np.int32(7), mt.tensor(7), mt.tensor(7, dtype=mt.uint8)], ids=repr
)
def test_window_accepts_int_like_length(name, length):
    fn = getattr(mt, name)
    out = fn(length, dtype=mt.float64)
    expected = fn(7, dtype=mt.float64).numpy()
    assert out.shape == (7,)
    np.testing.assert_array_equal(out.numpy(), expected, err_msg=f"{name}({length!r})")


@pytest.mark.parametrize("name", _WINDOWS)
@pytest.mark.parametrize(
    "length, shown",
    [
        (7.0, "float"),
        (True, "bool"),
        (np.float64(7), "numpy.float64"),
        (np.bool_(True), "numpy.bool"),
        (np.array(7), "numpy.ndarray"),
        (mt.tensor(7.0), "Tensor"),
        (mt.tensor(True), "Tensor"),
        (mt.tensor([7]), "Tensor"),
    ],
    ids=repr,
)
def test_window_refuses_non_int_length(name, length, shown):
    msg = f"{name}(): argument 'window_length' (position 1) must be int, not {shown}"
    with pytest.raises(TypeError, match=re.escape(msg) + "$"):
        getattr(mt, name)(length)


def test_window_negative_tensor_length_is_the_value_error():
    with pytest.raises(RuntimeError, match="requires non-negative window_length, got "):
        mt.hann_window(mt.tensor(-1))


# --- pad_sequence: any iterable ---


def _rows():
    return [[1, 2, 3], [4], [5, 6]]


@pytest.mark.parametrize("kind", ["generator", "map", "dict_values"])
def test_pad_sequence_takes_any_iterable(kind):
    if kind == "generator":
        seqs = (mt.tensor(r) for r in _rows())
    elif kind == "map":
        seqs = map(mt.tensor, _rows())
    else:
        seqs = {i: mt.tensor(r) for i, r in enumerate(_rows())}.values()
    out = pad_sequence(seqs, batch_first=True, padding_value=-1)
    assert out.dtype is mt.int64
    assert out.tolist() == [[1, 2, 3], [4, -1, -1], [5, 6, -1]]


def test_pad_sequence_generator_gradient():
    rng = np.random.default_rng(0)
    a = mt.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    b = mt.tensor(rng.standard_normal((1, 2)), requires_grad=True)

    def f(x, y):
        return pad_sequence((s * 2 for s in (x, y)), padding_side="left")

    assert gradcheck(f, (a, b))
    assert gradgradcheck(f, (a, b))


def test_pad_sequence_empty_iterable():
    with pytest.raises(RuntimeError, match="^received an empty list of sequences$"):
        pad_sequence(x for x in [])


@pytest.mark.parametrize("value, shown", [(5, "<class 'int'>"), (None, "<class 'NoneType'>")])
def test_pad_sequence_not_iterable(value, shown):
    msg = f"pad_sequence: Expected iterable for input sequences, but got arg of type: {shown}"
    with pytest.raises(RuntimeError, match=re.escape(msg) + "$"):
        pad_sequence(value)


@pytest.mark.parametrize(
    "seqs, pos, shown",
    [
        ([[1, 2], [3]], 0, "list"),
        ([mt.tensor([1]), [3]], 1, "list"),
        ([np.array([1, 2])], 0, "numpy.ndarray"),
        ("ab", 0, "str"),
    ],
    ids=["lists", "second", "ndarray", "str"],
)
def test_pad_sequence_non_tensor_element(seqs, pos, shown):
    msg = f"expected Tensor as element {pos} in argument 0, but got {shown}"
    with pytest.raises(TypeError, match=re.escape(msg) + "$"):
        pad_sequence(seqs, batch_first=True)


def test_pad_sequence_zero_dim_tensor():
    with pytest.raises(TypeError, match="^iteration over a 0-d tensor$"):
        pad_sequence(mt.tensor(3))


# --- ctc_loss: argument checks ---


def _lp(dtype=np.float64, requires_grad=False):
    x = np.random.default_rng(0).standard_normal((10, 3, 4)).astype(dtype)
    return mt.tensor(x, requires_grad=requires_grad).log_softmax(-1)


def _ctc_error(lp, targets, il, tl, message, exc=RuntimeError):
    with pytest.raises(exc, match="^" + re.escape(message) + "$"):
        F.ctc_loss(lp, targets, il, tl, reduction="none")


@pytest.mark.parametrize("as_tensor", [False, True])
@pytest.mark.parametrize("tl, want", [([3, 2, 1], 6), ([1, 1, 1], 3), ([0, 1, 0], 1)])
def test_ctc_concatenated_targets_must_sum_to_lengths(as_tensor, tl, want):
    il = [10, 7, 3]
    if as_tensor:
        il, tl = mt.tensor(il), mt.tensor(tl)
    msg = (
        f"Expected tensor to have size {want} at dimension 0, but got size 4 for argument #2 "
        f"'targets' {_WHERE}"
    )
    _ctc_error(_lp(), mt.tensor([1, 3, 2, 2]), il, tl, msg)


@pytest.mark.parametrize("as_tensor", [False, True])
def test_ctc_negative_input_length(as_tensor):
    il, tl = [10, -1, 3], [2, 1, 1]
    if as_tensor:
        il, tl = mt.tensor(il), mt.tensor(tl)
    msg = f"Expected input_lengths to have value at least 0, but got value -1 {_WHERE}"
    _ctc_error(_lp(), mt.tensor([1, 3, 2, 2]), il, tl, msg)


@pytest.mark.parametrize("targets", [[1, 3, 2, 2], [[1, 3, 2], [2, 1, 1], [3, 3, 3]]])
def test_ctc_negative_target_length(targets):
    # checked before the targets' size (4 > 3 columns here) and before input_lengths (-1)
    msg = f"Expected target_lengths to have value at least 0, but got value -1 {_WHERE}"
    _ctc_error(_lp(), mt.tensor(targets), [10, -1, 3], [4, 3, -1], msg)


def test_ctc_input_lengths_checked_in_order():
    at_least = f"Expected input_lengths to have value at least 0, but got value -1 {_WHERE}"
    _ctc_error(_lp(), mt.tensor([[1, 2]] * 3), [-1, 11, 3], [2, 2, 2], at_least)
    at_most = f"Expected input_lengths to have value at most 10, but got value 11 {_WHERE}"
    _ctc_error(_lp(), mt.tensor([[1, 2]] * 3), [11, -1, 3], [2, 2, 2], at_most)


def test_ctc_padded_targets_too_narrow_message():
    msg = (
        "Expected tensor to have size at least 4 at dimension 1, but got size 3 for argument #2 "
        f"'targets' {_WHERE}"
    )
    _ctc_error(_lp(), mt.tensor([[1, 3, 2]] * 3), [10, 7, 3], [4, 3, 1], msg)


def test_ctc_dimension_messages():
    t2 = mt.tensor([[1, 3, 2]] * 3)
    msg = (
        "Expected 1 to 2 dimensions, but got 3-dimensional tensor for argument #2 'targets' "
        + _WHERE
    )
    _ctc_error(_lp(), t2.unsqueeze(0), [10, 7], [2, 3, 1], msg)  # before the lengths' sizes
    msg = (
        "Expected 3-dimensional tensor, but got 5-dimensional tensor for argument #1 "
        f"'log_probs' {_WHERE}"
    )
    _ctc_error(_lp().unsqueeze(0), t2, [10, 7, 3], [2, 3, 1], msg)


def test_ctc_unbatched_concatenated_target_length():
    lp = _lp()[:, 0]
    msg = (
        "Expected tensor to have size 2 at dimension 0, but got size 3 for argument #2 "
        f"'targets' {_WHERE}"
    )
    _ctc_error(lp, mt.tensor([1, 3, 2]), [10], [2], msg)
    _ctc_error(lp, mt.tensor([1, 3, 2]), mt.tensor(10), mt.tensor(2), msg)
    # a matching length still gives the batched loss of the same sample
    one = F.ctc_loss(lp, mt.tensor([1, 3]), [10], [2], reduction="none")
    batched = F.ctc_loss(lp.unsqueeze(1), mt.tensor([[1, 3]]), [10], [2], reduction="none")
    assert one.shape == ()
    np.testing.assert_allclose(one.numpy(), batched.numpy()[0], rtol=1e-12)


def test_ctc_unbatched_concatenated_gradients():
    x = mt.tensor(np.random.default_rng(1).standard_normal((5, 4)), requires_grad=True)

    def f(a):
        return F.ctc_loss(a.log_softmax(-1), mt.tensor([1, 3]), [5], [2], reduction="sum")

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_ctc_length_tensors_are_flattened():
    lp, t2 = _lp(), mt.tensor([[1, 3, 2], [2, 1, 1], [3, 3, 3]])
    want = F.ctc_loss(lp, t2, [10, 7, 3], [2, 3, 1], reduction="none").numpy()
    out = F.ctc_loss(lp, t2, mt.tensor([[10, 7, 3]]), mt.tensor([[2], [3], [1]]), reduction="none")
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize(
    "dtype, shown", [(mt.float16, "Half"), (mt.bfloat16, "BFloat16"), (mt.int64, "Long")]
)
def test_ctc_cpu_dtypes(dtype, shown):
    lp = mt.zeros(5, 1, 3).log_softmax(-1).to(dtype)
    msg = f"\"ctc_loss_cpu\" not implemented for '{shown}'"
    # the dtype is checked before the shapes and the lengths' sizes
    _ctc_error(lp, mt.tensor([[1, 2]]), [5, 5], [2], msg, NotImplementedError)
    _ctc_error(lp[:, 0], mt.tensor([1, 2]), [5], [2], msg, NotImplementedError)


def test_ctc_cpu_float32_and_autocast_still_compute():
    lp = mt.zeros(5, 1, 3).log_softmax(-1)
    out = F.ctc_loss(lp, mt.tensor([[1, 2]]), [5], [2])
    assert out.dtype is mt.float32
    with mt.autocast("cpu", dtype=mt.bfloat16):  # autocast runs ctc_loss in float32
        cast = F.ctc_loss(lp.half(), mt.tensor([[1, 2]]), [5], [2])
    assert cast.dtype is mt.float32
    np.testing.assert_allclose(cast.numpy(), out.numpy(), rtol=1e-3)


def test_ctc_device_lengths_are_not_read(device):
    # lengths as device tensors: their values are not read back, so no value check runs; valid
    # lengths give the same losses as host ones
    lp = _lp().to(device)
    t2 = mt.tensor([[1, 3, 2], [2, 1, 1], [3, 3, 3]], device=device)
    il, tl = mt.tensor([10, 7, 3], device=device), mt.tensor([2, 3, 1], device=device)
    out = F.ctc_loss(lp, t2, il, tl, reduction="none").cpu().numpy()
    want = F.ctc_loss(_lp(), t2.cpu(), [10, 7, 3], [2, 3, 1], reduction="none").numpy()
    np.testing.assert_allclose(out, want, rtol=1e-10)
