"""Tensor attributes and argument errors: .grad assignment and grad_dtype, .data, keepdim
must be a bool, 0-d slicing, scatter's src dims (torch 2.13's types and messages)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch

_DTYPE_RULE = "The gradient must match the tensor's grad_dtype"


def test_grad_assign_size_message():
    p = torch.nn.Parameter(torch.zeros(3))
    with pytest.raises(RuntimeError) as e:
        p.grad = torch.ones(4)
    assert str(e.value) == (
        "attempting to assign a gradient of size '[4]' to a tensor of size '[3]'. Please "
        "ensure that the gradient and the tensor are the same size"
    )


def test_grad_assign_dtype_message_before_size():
    p = torch.zeros(2, 3)
    with pytest.raises(RuntimeError) as e:
        p.grad = torch.ones(3, 2, dtype=torch.float64)  # dtype and size wrong: dtype named
    msg = str(e.value)
    assert msg.startswith(
        "attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype 'Float'."
    ), msg
    assert _DTYPE_RULE in msg
    with pytest.raises(RuntimeError, match="dtype 'long int' to a tensor with grad_dtype 'Half'"):
        torch.zeros(3, dtype=torch.float16).grad = torch.zeros(3, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="can't assign Variable as its own grad"):
        p.grad = p


def test_grad_dtype_default_none_and_pinned():
    p = torch.nn.Parameter(torch.zeros(3))
    assert p.grad_dtype is torch.float32
    assert torch.zeros(3, dtype=torch.int64).grad_dtype is torch.int64
    p.grad_dtype = None  # any dtype may be assigned
    assert p.grad_dtype is None
    p.grad = torch.ones(3, dtype=torch.float64)
    assert p.grad.dtype is torch.float64
    with pytest.raises(RuntimeError) as e:
        p.grad_dtype = torch.float16  # a gradient of another dtype is there
    assert str(e.value).startswith(
        "Cannot set grad_dtype to 'Half' because there is already a gradient with dtype 'double'."
    )
    p.grad = None
    p.grad_dtype = torch.float16
    assert p.grad_dtype is torch.float16
    with pytest.raises(RuntimeError, match="dtype 'float' to a tensor with grad_dtype 'Half'"):
        p.grad = torch.ones(3)
    p.grad = torch.ones(3, dtype=torch.float16)
    np.testing.assert_array_equal(p.grad.numpy(), np.ones(3, np.float16))
    assert p.detach().grad_dtype is torch.float32  # a new tensor starts from the default


def test_grad_dtype_errors():
    with pytest.raises(RuntimeError, match="grad_dtype must be a torch.dtype or None, but got int"):
        torch.zeros(3).grad_dtype = 3
    y = torch.zeros(3, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="grad_dtype can only be accessed on leaf tensors."):
        _ = y.grad_dtype
    with pytest.raises(RuntimeError, match="grad_dtype can only be set on leaf tensors."):
        y.grad_dtype = None


def test_data_setter_message():
    with pytest.raises(TypeError) as e:
        torch.ones(2).data = [1.0, 2.0]
    assert str(e.value) == "Variable data has to be a tensor, but got list"


def test_zero_dim_bare_slice_message():
    s = torch.tensor(1.5)
    for key in (slice(None, 1), slice(None)):
        with pytest.raises(IndexError) as e:
            s[key]
        assert str(e.value) == "slice() cannot be applied to a 0-dim tensor."
        with pytest.raises(IndexError, match=r"slice\(\) cannot be applied to a 0-dim tensor"):
            s[key] = 1.0
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 0"):
        s[(slice(None),)]  # a tuple keeps torch's other wording


def test_scatter_src_fewer_dims_is_index_error():
    L = torch.int64
    p = torch.zeros(4, 5)
    msg = r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)"
    with pytest.raises(IndexError, match=msg):
        p.scatter_(0, torch.zeros(1, 5, dtype=L), torch.ones(5))
    with pytest.raises(IndexError, match=msg):
        torch.scatter_add(p, 0, torch.zeros(1, 5, dtype=L), torch.ones(5))
    with pytest.raises(IndexError, match=r"range of \[-2, 1\], but got 2"):
        torch.zeros(4, 5, 6).scatter_(0, torch.zeros(1, 5, 1, dtype=L), torch.ones(5, 9))
    # the walk stops at the first size index exceeds: torch's dims RuntimeError then
    for src in (torch.ones(2), torch.ones(5, 2)):
        idx = torch.zeros((3, 5) if src.ndim == 1 else (1, 5, 1), dtype=L)
        base = torch.zeros(4, 5) if src.ndim == 1 else torch.zeros(4, 5, 6)
        with pytest.raises(RuntimeError, match="same number of dimensions as src tensor"):
            base.scatter_(0, idx, src)
    np.testing.assert_array_equal(p.numpy(), np.zeros((4, 5), np.float32))  # untouched


@pytest.mark.parametrize(
    "call",
    [
        lambda x: torch.sum(x, 1, 2),
        lambda x: x.sum(1, keepdim=None),
        lambda x: torch.prod(x, 1, 1),
        lambda x: torch.amax(x, 1, 2),
        lambda x: torch.amin(x, 1, keepdim=0),
        lambda x: torch.argmax(x, 1, 2),
        lambda x: torch.argmin(x, None, 1),
        lambda x: torch.logsumexp(x, 1, 2),
        lambda x: torch.nansum(x, 1, 2),
        lambda x: torch.nanmean(x, 1, 2),
        lambda x: torch.aminmax(x, dim=1, keepdim=0),
    ],
)
def test_keepdim_int_named(call):
    x = torch.tensor([[1.0, 5.0], [7.0, 2.0]])
    with pytest.raises(
        TypeError, match=r"\(\): argument 'keepdim'( \(position 3\))? must be bool, not (int|None)"
    ):
        call(x)


@pytest.mark.parametrize(
    "call,op",
    [
        (lambda x: torch.max(x, 1, 2), "max"),
        (lambda x: torch.min(x, dim=1, keepdim=1), "min"),  # the method names keepdim
        (lambda x: torch.mean(x, 1, 2), "mean"),
        (lambda x: torch.all(x, 1, 2), "all"),
        (lambda x: torch.any(x, (0, 1), 2), "any"),
    ],
)
def test_keepdim_int_no_overload(call, op):
    x = torch.tensor([[1.0, 5.0], [7.0, 2.0]])
    with pytest.raises(TypeError, match=rf"^{op}\(\) received an invalid combination of arguments"):
        call(x)


def test_max_positional_keepdim_message_and_bools_still_work():
    x = torch.tensor([[1.0, 5.0], [7.0, 2.0]])
    with pytest.raises(TypeError) as e:
        torch.max(x, 1, 2)
    assert str(e.value).startswith(
        "max() received an invalid combination of arguments - got (Tensor, int, int), but "
        "expected one of:"
    )
    values, indices = torch.max(x, 1, True)
    np.testing.assert_array_equal(values.numpy(), [[5.0], [7.0]])
    np.testing.assert_array_equal(indices.numpy(), [[1], [0]])
    np.testing.assert_allclose(torch.sum(x, 1, True).numpy(), [[6.0], [9.0]])
    np.testing.assert_allclose(x.mean(0, keepdim=False).numpy(), [4.0, 3.5])
    np.testing.assert_allclose(x.sum(axis=1, keepdims=True).numpy(), [[6.0], [9.0]])
