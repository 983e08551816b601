"""Tensor printing against torch 2.13 (found by a differential repr fuzzer): a 0-d tensor is
never summarised, even with threshold=0 and edgeitems=0, and tensor_repr can print given contents
in place of the values (Tensor.__repr__(tensor_contents=...)). Expected strings were printed by
torch for the same tensors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch._tensor_str import set_printoptions, tensor_repr


@pytest.fixture(autouse=True)
def _restore_printoptions():
    yield
    set_printoptions(profile="default")


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda: minitorch.tensor(1.5), "tensor(1.5000, size=())"),
        (
            lambda: minitorch.tensor(7, dtype=minitorch.int32),
            "tensor(7, size=(), dtype=torch.int32)",
        ),
        (lambda: minitorch.tensor(True), "tensor(True, size=())"),
        (
            lambda: minitorch.tensor(12.0, dtype=minitorch.float16, requires_grad=True) * 1,
            "tensor(12., size=(), dtype=torch.float16, grad_fn=<MulBackward0>)",
        ),
    ],
)
def test_scalar_not_summarised_without_edgeitems(make, expected):
    minitorch.set_printoptions(threshold=0, edgeitems=0)
    t = make()
    assert repr(t) == expected
    assert str(t) == expected


@pytest.mark.parametrize(
    "values, kwargs, expected",
    [
        (np.ones(2, np.int32), {"dtype_name": "int32"}, "tensor(a, dtype=torch.int32)"),
        (
            np.ones((2, 0), np.int32),
            {"dtype_name": "int32"},
            "tensor(xx, size=(2, 0), dtype=torch.int32)",
        ),
        (
            np.ones(2, np.float32),
            {"dtype_name": "float32", "grad_fn_name": "MulBackward0"},
            "tensor(xx, grad_fn=<MulBackward0>)",
        ),
        (
            np.ones(2, np.float32),
            {"dtype_name": "float32", "requires_grad": True},
            "tensor(xx, requires_grad=True)",
        ),
        (np.ones(2, np.int32), {"dtype_name": "int32"}, "tensor(, dtype=torch.int32)"),
    ],
)
def test_tensor_repr_contents(values, kwargs, expected):
    contents = expected[len("tensor(") : expected.index(",")]
    assert tensor_repr(values, contents=contents, **kwargs) == expected


def test_tensor_repr_contents_without_edgeitems():
    minitorch.set_printoptions(edgeitems=0)
    got = tensor_repr(np.ones(2, np.int32), dtype_name="int32", contents="a")
    assert got == "tensor(a, size=(2,), dtype=torch.int32)"


def test_tensor_repr_method_takes_tensor_contents():
    t = minitorch.zeros(2, 0, dtype=minitorch.int32)
    assert t.__repr__(tensor_contents="xx") == "tensor(xx, size=(2, 0), dtype=torch.int32)"
    assert minitorch.ones(2).__repr__(tensor_contents="[...]") == "tensor([...])"
