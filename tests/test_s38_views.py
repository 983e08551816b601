"""Session 38 (helper views): torch-free regression tests of the library fixes the view and
storage programs of tests/reference/test_s38_views_reference.py found: the message of an in-place
change of a view of a view taken under no_grad (named by its node, as torch does); resize_'s
memory_format (the same memory read in the format's order, at the same shape too) and its
errors; resize_'s size-argument TypeErrors; the storage of a tensor over
a strided NumPy array (from_numpy, as_tensor, asarray); shape methods given a lone int (or None)
by keyword; as_strided's message for a stride count that is not the size's and empty_strided's
for a negative stride. torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

NO_GRAD_TAIL = (
    " no_grad mode and {what} with grad mode enabled. Given that this use case is ambiguous and "
    "error-prone, it is forbidden. You can clarify your code by moving both the view and the "
    "inplace either both inside the no_grad block (if you don't want the inplace to be tracked) "
    "or both outside (if you want the inplace to be tracked)."
)
BEING = "is being modified inplace"
BASE = "its base or another view of its base has been modified inplace"


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _views():
    w = mt.randn(3, 4, generator=mt.Generator().manual_seed(0), requires_grad=True)
    y = w * 2
    with mt.no_grad():
        yv = y.view(12)
        parts = y.unbind(0)
        wv = w[0]
    return w, y, yv, parts, wv


@pytest.mark.parametrize(
    "case, head, what",
    [
        (lambda y, yv, parts, wv: yv[1:].mul_(2), "Output 0 of Slice is a view of a view", BEING),
        (lambda y, yv, parts, wv: yv.__setitem__(0, 3.0), "Output 0 of Select is a view of a view",
         BEING),
        (lambda y, yv, parts, wv: yv.view(3, 4).zero_(), "Output 0 of View is a view of a view",
         BEING),
        (lambda y, yv, parts, wv: yv.unsqueeze(0).zero_(),
         "Output 0 of Unsqueeze is a view of a view", BEING),
        (lambda y, yv, parts, wv: wv[1:].mul_(2), "Output 0 of Slice is a view of a view", BEING),
        (lambda y, yv, parts, wv: parts[0][1:].mul_(2), "Output 0 of Slice is a view of a view",
         BEING),
        # the views themselves (no node): torch's plain message
        (lambda y, yv, parts, wv: yv.mul_(2), "A view", BEING),
        (lambda y, yv, parts, wv: parts[1].mul_(2), "A view", BEING),
        (lambda y, yv, parts, wv: wv.add_(1), "A view", BEING),
    ],
)  # fmt: skip
def test_inplace_on_a_view_of_a_no_grad_view_names_its_node(case, head, what):
    _, y, yv, parts, wv = _views()
    msg = _message(RuntimeError, lambda: case(y, yv, parts, wv))
    start = "A view was created in" if head == "A view" else head + " which was created in"
    assert msg == start + NO_GRAD_TAIL.format(what=what)


def test_base_written_then_view_of_no_grad_view_used():
    _, y, yv, _, _ = _views()
    b = yv[1:]
    y.mul_(2)
    msg = _message(RuntimeError, lambda: b.grad_fn)
    assert msg == (
        "Output 0 of Slice is a view of a view which was created in"
        + NO_GRAD_TAIL.format(what=BASE)
    )
    msg = _message(RuntimeError, lambda: yv * 2)
    assert msg == "A view was created in" + NO_GRAD_TAIL.format(what=BASE)


# --- resize_ ---


def _nchw():
    return mt.arange(24.0, dtype=mt.float64).reshape(2, 3, 2, 2)


def test_resize_channels_last_reads_the_same_memory_in_nhwc_order():
    x = _nchw()
    x.resize_(2, 3, 2, 2, memory_format=mt.channels_last)
    assert x.stride() == (12, 1, 6, 3)
    assert x._version == 0  # same shape: torch restrides without a version bump
    np.testing.assert_array_equal(x[0, 1].numpy(), [[1.0, 4.0], [7.0, 10.0]])
    np.testing.assert_array_equal(x.flatten().numpy()[:6], [0.0, 3.0, 6.0, 9.0, 1.0, 4.0])
    x.resize_(2, 3, 2, 2, memory_format=mt.contiguous_format)
    assert x.stride() == (12, 4, 2, 1)
    np.testing.assert_array_equal(x.flatten().numpy(), np.arange(24.0))


def test_resize_channels_last_new_shapes():
    x = _nchw()
    x.resize_(1, 3, 2, 2, memory_format=mt.channels_last)
    assert (x.stride(), x._version) == ((12, 1, 6, 3), 1)
    y = _nchw()
    y.resize_(3, 3, 2, 2, memory_format=mt.channels_last)  # grows
    assert y.stride() == (12, 1, 6, 3)
    np.testing.assert_array_equal(y[0, :, 0, 0].numpy(), [0.0, 1.0, 2.0])
    z = mt.arange(6.0)
    z.resize_(1, 1, 2, 3, memory_format=mt.channels_last)
    assert z.stride() == (6, 1, 3, 1)
    np.testing.assert_array_equal(z.flatten().numpy(), np.arange(6.0))
    t = mt.arange(6.0)
    t.resize_as_(mt.zeros(1, 1, 2, 3), memory_format=mt.channels_last)
    assert t.stride() == (6, 1, 3, 1)
    u = mt.arange(120.0).reshape(2, 3, 4, 5, 1)
    u.resize_(2, 3, 4, 5, 1, memory_format=mt.channels_last_3d)
    assert u.stride() == (60, 1, 15, 3, 3)


def test_resize_memory_format_errors():
    x = mt.arange(4.0)
    assert _message(RuntimeError, lambda: x.resize_(4, memory_format=mt.preserve_format)) == (
        "Unsupported memory formatPreserve"
    )
    assert _message(RuntimeError, lambda: x.resize_(4, memory_format=mt.channels_last)) == (
        "required rank 4 tensor to use channels_last format"
    )
    assert _message(
        RuntimeError, lambda: _nchw().resize_(2, 3, 2, 2, memory_format=mt.channels_last_3d)
    ) == ("required rank 5 tensor to use channels_last_3d format")
    assert x.shape == (4,)


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda x: x.resize_(2.0), "resize_(): argument 'size' (position 1) must be tuple of ints, "
         "not float"),
        (lambda x: x.resize_("a"), "resize_(): argument 'size' (position 1) must be tuple of ints, "
         "not str"),
        (lambda x: x.resize_(None), "resize_(): argument 'size' (position 1) must be tuple of "
         "ints, not NoneType"),
        (lambda x: x.resize_([2.0]), "resize_(): argument 'size' (position 1) must be tuple of "
         "ints, but found element of type float at pos 0"),
        (lambda x: x.resize_(size=2.0), "resize_(): argument 'size' must be tuple of ints, not "
         "float"),
        (lambda x: x.resize_(size=[2.0]), "resize_(): argument 'size' must be tuple of ints, not "
         "list"),
        (lambda x: x.resize_(size=None), "resize_(): argument 'size' must be tuple of ints, not "
         "NoneType"),
        (lambda x: x.resize_(size=6), "resize_(): argument 'size' must be tuple of ints, not "
         "int"),
    ],
)  # fmt: skip
def test_resize_size_argument_errors(call, msg):
    x = mt.arange(6.0).reshape(2, 3)
    assert _message(TypeError, lambda: call(x)) == msg
    assert x.shape == (2, 3)


# --- shape methods given a lone int by keyword ---


@pytest.mark.parametrize(
    "op, kw, good, shape",
    [("reshape", "shape", (2, 3), (2, 3)), ("expand", "size", (2, 6), (2, 6)),
     ("broadcast_to", "size", (2, 6), (2, 6)), ("repeat", "repeats", (2,), (12,)),
     ("tile", "dims", (2,), (12,)), ("permute", "dims", (0,), (6,)),
     ("sum_to_size", "size", (1,), (1,)), ("resize_", "size", (3,), (3,))],
)  # fmt: skip
@pytest.mark.parametrize(
    "value, name", [(6, "int"), (None, "NoneType"), (np.int64(6), "numpy.int64")]
)
def test_shape_method_keyword_size_must_be_a_sequence(op, kw, good, shape, value, name):
    x = mt.arange(6.0)
    msg = _message(TypeError, lambda: getattr(x, op)(**{kw: value}))
    assert msg == f"{op}(): argument '{kw}' must be tuple of ints, not {name}"
    # before an unknown keyword, as torch's parser
    msg = _message(TypeError, lambda: getattr(x, op)(**{kw: value, "foo": 1}))
    assert msg == f"{op}(): argument '{kw}' must be tuple of ints, not {name}"
    assert getattr(x, op)(**{kw: good}).shape == shape


def test_view_keyword_int_size():
    msg = _message(TypeError, lambda: mt.arange(6.0).view(size=6))
    assert msg == (
        "view() received an invalid combination of arguments - got (size=int, ), but expected "
        "one of:\n * (torch.dtype dtype)\n      didn't match because some of the keywords were "
        "incorrect: size\n * (tuple of ints size)\n      didn't match because some of the "
        "arguments have invalid types: (!size=int!, )\n"
    )


# --- the storage of a tensor over a strided NumPy array ---


@pytest.mark.parametrize("fn", ["from_numpy", "as_tensor", "asarray"])
def test_numpy_strided_array_storage_spans_what_it_reaches(fn):
    a = np.arange(12.0).reshape(3, 4)[1:, 1:]  # 7 elements from its first: 5 ... 11
    t = getattr(mt, fn)(a)
    assert (t.storage_offset(), t.untyped_storage().nbytes(), t.stride()) == (0, 56, (4, 1))
    v = t[1:, 1:]
    assert (v.storage_offset(), v.untyped_storage().nbytes()) == (5, 56)
    assert v.detach().storage_offset() == 5
    assert v.untyped_storage().data_ptr() == t.untyped_storage().data_ptr() == a.ctypes.data
    t[0, 0] = -1.0  # still a view of the array's memory
    assert a[0, 0] == -1.0
    c = getattr(mt, fn)(np.arange(12.0).reshape(3, 4)[:, 1])
    assert (c.untyped_storage().nbytes(), c.storage_offset()) == (72, 0)


# --- as_strided / empty_strided argument errors ---


def test_strided_length_and_negative_stride_messages():
    x = mt.arange(12.0)
    for fn in (lambda: x.as_strided((2,), (1, 1)), lambda: mt.as_strided(x, (2, 3), (1,))):
        assert _message(RuntimeError, fn) == "mismatch in length of strides and shape"
    assert _message(RuntimeError, lambda: x.new_empty_strided((2, 3), (1, -1))) == (
        "Storage size calculation overflowed with sizes=[2, 3] and strides=[1, -1]"
    )
