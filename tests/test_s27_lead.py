"""Session 27's own fixes (texts and values taken from torch 2.13)."""

import numpy as np
import pytest

import minitorch as torch


@pytest.mark.parametrize(
    "alpha, name",
    [
        (torch.tensor([2.0]), "Tensor"),
        (torch.tensor(2.0, requires_grad=True), "Tensor"),
        ("a", "str"),
        (None, "NoneType"),
        ([2], "list"),
    ],
)
@pytest.mark.parametrize(
    "call, op",
    [
        (lambda x, a: x.add(x, alpha=a), "add"),
        (lambda x, a: torch.sub(x, x, alpha=a), "sub"),
        (lambda x, a: x.add_(x, alpha=a), "add_"),
        (lambda x, a: x.sub_(1, alpha=a), "sub_"),
        (lambda x, a: torch.add(x, 1, alpha=a), "add"),
        (lambda x, a: x.half().add(1, alpha=a), "add"),
    ],
)
def test_add_sub_alpha_must_be_a_number(alpha, name, call, op):
    x = torch.ones(2)
    with pytest.raises(TypeError) as info:
        call(x, alpha)
    assert str(info.value) == f"{op}(): argument 'alpha' must be Number, not {name}"
    assert x.tolist() == [1.0, 1.0]


def test_add_sub_alpha_numbers_and_zero_dim_tensors_still_work():
    x = torch.ones(2)
    assert x.add(x, alpha=torch.tensor(2.0)).tolist() == [3.0, 3.0]
    assert x.sub(x, alpha=np.float32(0.5)).tolist() == [0.5, 0.5]
    assert torch.ones(2, dtype=torch.int64).add_(1, alpha=3).tolist() == [4, 4]
    y = torch.ones(2)
    y.add_(y, alpha=np.float64(2.0))
    assert y.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="alpha must not be a complex number"):
        x.add(x, alpha=2 + 0j)
