"""torch's argument errors for sizes given to shape methods and new_*, x.data's TypeError, and
torch.lu's once-per-process deprecation warning."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch import _settings

UNPACK = (
    "{op}(): argument '{name}' failed to unpack the object at pos 2 with error "
    '"type must be tuple of ints,but got float"'
)


def _raises(exc, text):
    return pytest.raises(exc, match="^" + re.escape(text) + "$")


@pytest.mark.parametrize(
    "call, text",
    [
        (lambda x: x.reshape(48 / 4, 4), "reshape() takes 1 positional argument but 2 were given"),
        (lambda x: x.reshape(12, 4.0), UNPACK.format(op="reshape", name="shape")),
        (lambda x: x.reshape([12, 4.0]), UNPACK.format(op="reshape", name="shape")),
        (
            lambda x: x.reshape((3.0, 16)),
            "reshape(): argument 'shape' (position 1) must be tuple of ints, but found element "
            "of type float at pos 0",
        ),
        (
            lambda x: x.reshape(48.0),
            "reshape(): argument 'shape' (position 1) must be tuple of ints, not float",
        ),
        (
            lambda x: x.reshape(shape=(3.0, 16)),
            "reshape(): argument 'shape' must be tuple of ints, not tuple",
        ),
        (lambda x: x.reshape(shape=(16, 3.0)), UNPACK.format(op="reshape", name="shape")),
        (
            lambda x: mt.reshape(x, (3.0, 16)),
            "reshape(): argument 'shape' (position 2) must be tuple of ints, but found element "
            "of type float at pos 0",
        ),
        (
            lambda x: mt.reshape(x, 48),
            "reshape(): argument 'shape' (position 2) must be tuple of ints, not int",
        ),
        (
            lambda x: x.view(4.0, 12),
            "view() received an invalid combination of arguments - got (float, int), but "
            "expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n",
        ),
        (
            lambda x: x.view((4.0, 12)),
            "view() received an invalid combination of arguments - got (tuple), but expected one "
            "of:\n * (torch.dtype dtype)\n      didn't match because some of the arguments have "
            "invalid types: (!tuple of (float, int)!)\n * (tuple of ints size)\n      didn't "
            "match because some of the arguments have invalid types: (!tuple of (float, int)!)\n",
        ),
        (
            lambda x: x.view(size=[4.0, 12]),
            "view() received an invalid combination of arguments - got (size=list, ), but "
            "expected one of:\n * (torch.dtype dtype)\n      didn't match because some of the "
            "keywords were incorrect: size\n * (tuple of ints size)\n      didn't match because "
            "some of the arguments have invalid types: (!size=list of [float, int]!, )\n",
        ),
        (lambda x: x.view(12, 4.0), UNPACK.format(op="view", name="size")),
        (lambda x: x[:1].expand(2.0, 48), "expand() takes 1 positional argument but 2 were given"),
        (lambda x: x[:1].expand(2, 48.0), UNPACK.format(op="expand", name="size")),
        (
            lambda x: x[:1].expand((2.0, 48)),
            "expand(): argument 'size' (position 1) must be tuple of ints, but found element of "
            "type float at pos 0",
        ),
        (
            lambda x: x[:1].expand(size=(2.0, 48)),
            "expand(): argument 'size' must be tuple of ints, not tuple",
        ),
        (
            lambda x: x.broadcast_to(2.0, 48),
            "broadcast_to() takes 1 positional argument but 2 were given",
        ),
        (lambda x: x.repeat(2, 1.0), UNPACK.format(op="repeat", name="repeats")),
        (lambda x: x.new_zeros(4.0, 3), "new_zeros() takes 1 positional argument but 2 were given"),
        (lambda x: x.new_ones(4, 3.0), UNPACK.format(op="new_ones", name="size")),
        (
            lambda x: x.new_empty((4.0, 3)),
            "new_empty(): argument 'size' (position 1) must be tuple of ints, but found element "
            "of type float at pos 0",
        ),
        (
            lambda x: x.new_zeros(size=(4.0, 3)),
            "new_zeros(): argument 'size' must be tuple of ints, not tuple",
        ),
        (
            lambda x: x.new_full(4.0, 1),
            "new_full(): argument 'size' (position 1) must be tuple of ints, not float",
        ),
        (lambda x: x.new_full((4, 3.0), 1), UNPACK.format(op="new_full", name="size")),
    ],
)
def test_float_size_errors_match_torch(call, text):
    with _raises(TypeError, text):
        call(mt.zeros(48))


def test_new_zeros_negative_size_names_no_factory():
    with _raises(RuntimeError, "Trying to create tensor with negative dimension -1: [-1, 3]"):
        mt.zeros(2).new_zeros(-1, 3)


def test_good_sizes_still_work():
    x = mt.arange(48.0)
    assert x.reshape(np.int64(12), mt.tensor(4)).shape == (12, 4)
    assert x.reshape(shape=(4, -1)).shape == (4, 12)
    assert x.view((6, 8)).shape == (6, 8)
    assert x.view(size=[2, 24]).shape == (2, 24)
    assert x[:1].expand(size=(3, 48)).shape == (3, 48)
    assert x.new_zeros(size=(2, 3)).shape == (2, 3)
    assert x.new_ones(mt.Size([2])).dtype is mt.float32
    np.testing.assert_array_equal(x.new_full([2], 7).numpy(), [7.0, 7.0])
    with _raises(TypeError, 'reshape() missing 1 required positional arguments: "shape"'):
        x.reshape()


def test_data_setter_names_numpy_type():
    x = mt.zeros(2)
    with _raises(TypeError, "Variable data has to be a tensor, but got numpy.ndarray"):
        x.data = np.ones(2)


def test_lu_warns_once_per_process(monkeypatch):
    monkeypatch.setattr(_settings, "_warned_once", set())
    a = mt.eye(3, dtype=mt.float64) + 1
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mt.lu(a)
        mt.lu(a)
    assert [str(m.message)[:40] for m in w] == ["torch.lu is deprecated in favor of torch"]
    assert w[0].filename == __file__  # points at the caller
    mt.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            mt.lu(a)
        assert len(w) == 1
    finally:
        mt.set_warn_always(False)
