"""torch.segment_reduce against torch 2.13's values, errors and gradients (literals from torch)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

NAN, INF = math.nan, math.inf
DATA = [1.0, 2.0, NAN, 4.0, 5.0, -1.0]
LENGTHS = [2, 0, 3, 1]

# torch.segment_reduce(tensor(DATA, float64), reduce, lengths=tensor(LENGTHS)[, initial=2.0])
EXPECTED = {
    "sum": ([3.0, 0.0, NAN, -1.0], [5.0, 2.0, NAN, 1.0]),
    "mean": ([1.5, NAN, NAN, -1.0], [2.5, 2.0, NAN, 1.0]),
    "max": ([2.0, -INF, NAN, -1.0], [2.0, 2.0, NAN, 2.0]),
    "min": ([1.0, INF, NAN, -1.0], [1.0, 2.0, NAN, -1.0]),
    "prod": ([2.0, 1.0, NAN, -1.0], [4.0, 2.0, NAN, -2.0]),
}


def _check(got, want, err_msg=""):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-12, err_msg=err_msg)


@pytest.mark.parametrize("reduce", list(EXPECTED))
def test_values_empty_segments_nan_and_initial(reduce):
    data = torch.tensor(DATA, dtype=torch.float64)
    plain, with_initial = EXPECTED[reduce]
    got = torch.segment_reduce(data, reduce, lengths=torch.tensor(LENGTHS))
    _check(got.tolist(), plain, reduce)
    got = torch.segment_reduce(data, reduce, lengths=torch.tensor(LENGTHS), initial=2.0)
    _check(got.tolist(), with_initial, reduce)
    # the same segments as offsets
    got = torch.segment_reduce(data, reduce, offsets=torch.tensor([0, 2, 2, 5, 6]))
    _check(got.tolist(), plain, reduce)
    assert got.dtype == torch.float64 and got.shape == (4,)


def test_amax_amin_names_and_grad_fn():
    data = torch.arange(6.0, requires_grad=True)
    out = torch.segment_reduce(data, "amax", lengths=torch.tensor([2, 4]))
    assert out.tolist() == [1.0, 5.0]
    assert type(out.grad_fn).__name__ == "SegmentReduceBackward0"
    assert torch.segment_reduce(data, "amin", lengths=torch.tensor([2, 4])).tolist() == [0.0, 2.0]


def test_sums_add_in_order_in_the_dtype():
    # torch adds one element after another in the data's dtype
    for dtype, want in ((torch.float16, 256.0), (torch.bfloat16, 32.0)):
        x = torch.full((5000,), 0.1, dtype=dtype)
        got = torch.segment_reduce(x, "sum", lengths=torch.tensor([5000]))
        assert got.dtype == dtype and got.item() == want, (dtype, got)
    x = torch.full((5000,), 0.1, dtype=torch.float16)
    assert torch.segment_reduce(x, "mean", lengths=torch.tensor([5000])).item() == 0.05120849609375
    x = torch.full((5000,), 0.1)
    assert torch.segment_reduce(x, "sum", lengths=torch.tensor([5000])).item() == 500.02130126953125


def test_batched_lengths_and_offsets_with_gaps():
    got = torch.segment_reduce(
        torch.ones(2, 3), "sum", lengths=torch.tensor([[1, 2], [3, 0]]), axis=1
    )
    assert got.tolist() == [[1.0, 2.0], [3.0, 0.0]]
    got = torch.segment_reduce(
        torch.ones(2, 3, 4), "sum", offsets=torch.tensor([[0, 1, 3], [0, 2, 3]]), axis=-2
    )
    assert got.shape == (2, 2, 4)
    assert got[:, :, 0].tolist() == [[1.0, 2.0], [2.0, 1.0]]
    # offsets need not span the axis: elements outside them are left out
    x = torch.arange(12.0).reshape(2, 6) / 4
    offsets = torch.tensor([[1, 3, 3, 5], [0, 2, 4, 6]])
    got = torch.segment_reduce(x, "prod", offsets=offsets, axis=1)
    assert got.tolist() == [[0.125, 1.0, 0.75], [2.625, 4.5, 6.875]]
    got = torch.segment_reduce(x, "mean", offsets=offsets, axis=1, initial=1.0)
    assert got.tolist() == [[0.875, 1.0, 1.375], [2.125, 2.625, 3.125]]
    got = torch.segment_reduce(
        torch.arange(6.0), "sum", lengths=torch.tensor([2, 1, 1, 1]), unsafe=True
    )
    assert got.tolist() == [1.0, 2.0, 3.0, 4.0]
    got = torch.segment_reduce(torch.ones(0, 3), "max", lengths=torch.tensor([0, 0]))
    assert got.tolist() == [[-INF] * 3] * 2


def _raises(exc, msg, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == msg


IMPROVE = (
    "  (Could this error message be improved?  If so, please report an enhancement request to "
    "PyTorch.)"
)


def test_errors():
    d = torch.arange(6.0)
    t = torch.tensor
    sr = torch.segment_reduce
    _raises(RuntimeError, "segment_reduce(): indices based reduction is not supported yet.",
            lambda: sr(d, "sum", indices=t([0, 0, 1, 1, 1, 2])))  # fmt: skip
    _raises(RuntimeError, "segment_reduce(): Either lengths or offsets must be defined.",
            lambda: sr(d, "foo"))  # fmt: skip
    _raises(RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin, got foo",
            lambda: sr(d, "foo", lengths=t([6])))  # fmt: skip
    _raises(
        RuntimeError,
        "lengths contains negative value!",
        lambda: sr(d, "sum", lengths=t([2, -1, 5])),
    )
    rows = ("segment_reduce(): Expected all rows of lengths along axis to sum to "
            "data.size(lengths.dim()-1) when !unsafe.")  # fmt: skip
    _raises(RuntimeError, rows, lambda: sr(d, "sum", lengths=t([2, 1])))
    _raises(RuntimeError, "Expected segment_length >= 0 to be true, but got false." + IMPROVE,
            lambda: sr(d, "sum", offsets=t([0, 2, 1, 6])))  # fmt: skip
    _raises(RuntimeError, "Expected segment_length >= 0 to be true, but got false." + IMPROVE,
            lambda: sr(d, "sum", lengths=t([2, -1, 5]), unsafe=True))  # fmt: skip
    _raises(RuntimeError, "Trying to create tensor with negative dimension -1: [2, -1, 4]",
            lambda: sr(torch.ones(2, 3, 4), "sum", offsets=torch.zeros(2, 0, dtype=torch.long),
                       axis=1))  # fmt: skip
    _raises(RuntimeError, "segment_reduce(): Expected axis to be the last dimension of lengths but "
            "got 1.", lambda: sr(torch.ones(2, 3), "sum", lengths=t([1, 2]), axis=1))  # fmt: skip
    _raises(RuntimeError, "Expected data.dim() >= lengths_value.dim() to be true, but got false."
            + IMPROVE, lambda: sr(t(3.0), "sum", lengths=t([1])))  # fmt: skip
    _raises(IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
            lambda: sr(d, "sum", lengths=t([6]), axis=1))  # fmt: skip
    _raises(NotImplementedError, "\"_segment_reduce_cpu\" not implemented for 'Long'",
            lambda: sr(torch.arange(6), "sum", lengths=t([2, 4])))  # fmt: skip
    _raises(NotImplementedError, "\"_segment_reduce_lengths_cpu_kernel1\" not implemented for "
            "'Float'", lambda: sr(d, "sum", lengths=t([2.0, 4.0])))  # fmt: skip
    _raises(RuntimeError, "The function 'segment_reduce' is not differentiable with respect to "
            "argument 'lengths'. This input cannot have requires_grad True.",
            lambda: sr(d, "sum", lengths=t([6.0], requires_grad=True)))  # fmt: skip
    _raises(RuntimeError, "value cannot be converted to type c10::Half without overflow",
            lambda: sr(d.half(), "sum", lengths=t([6]), initial=70000.0))  # fmt: skip
    _raises(TypeError, "segment_reduce(): argument 'lengths' must be Tensor, not list",
            lambda: sr(d, "sum", lengths=[6]))  # fmt: skip


# x = [2, 1, 2 | | 0, 3 | 0, 0], upstream gradient [1, 10, 100, 1000]: torch's x.grad
GRADS = {
    ("sum", None): [1, 1, 1, 100, 100, 1000, 1000],
    ("mean", None): [1 / 3, 1 / 3, 1 / 3, 50, 50, 500, 500],
    ("max", None): [0.5, 0, 0.5, 0, 100, 500, 500],
    ("max", 2.0): [0.5, 0, 0.5, 0, 100, 0, 0],
    ("min", None): [0, 1, 0, 100, 0, 500, 500],
    ("prod", None): [2, 4, 2, 300, 0, 0, 0],
    ("prod", 2.0): [4, 8, 4, 600, 0, 0, 0],
}


@pytest.mark.parametrize("key", list(GRADS), ids=str)
def test_gradients_match_torch(key):
    reduce, initial = key
    x = torch.tensor([2.0, 1.0, 2.0, 0.0, 3.0, 0.0, 0.0], dtype=torch.float64, requires_grad=True)
    out = torch.segment_reduce(x, reduce, lengths=torch.tensor([3, 0, 2, 2]), initial=initial)
    out.backward(torch.tensor([1.0, 10.0, 100.0, 1000.0], dtype=torch.float64))
    _check(x.grad.tolist(), GRADS[key], str(key))


def test_gradients_with_nan():
    x = torch.tensor([1.0, NAN, 3.0], dtype=torch.float64, requires_grad=True)
    torch.segment_reduce(x, "max", lengths=torch.tensor([3])).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]
    x.grad = None
    torch.segment_reduce(x, "prod", lengths=torch.tensor([3])).sum().backward()
    _check(x.grad.tolist(), [NAN, 3.0, NAN])
    # elements outside the offsets get no gradient
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    torch.segment_reduce(x, "sum", lengths=torch.tensor([1, 2]), unsafe=True).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0, 0.0]


CASES = [
    (dict(lengths=[3, 1, 2]), (6, 3)),
    (dict(offsets=[[1, 2, 3, 4], [0, 2, 4, 5]], axis=1), (2, 5, 2)),
    (dict(lengths=[[2, 1, 1], [1, 3, 0]], axis=-1), (2, 4)),
]


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("initial", [None, 0.5])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_gradcheck_and_gradgradcheck(reduce, initial, case):
    kw, shape = CASES[case]
    kw = {k: torch.tensor(v) if k != "axis" else v for k, v in kw.items()}
    if initial is None and reduce in ("mean", "max", "min") and case == 2:
        return  # an empty segment: nan / inf outputs
    g = torch.Generator().manual_seed(case)
    x = (torch.rand(*shape, generator=g, dtype=torch.float64) + 0.5).requires_grad_()

    def f(a):
        return torch.segment_reduce(a, reduce, initial=initial, **kw)

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_prod_gradcheck_with_a_zero():
    x = torch.tensor([2.0, 0.0, 3.0, 0.0, 0.0, 4.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda a: torch.segment_reduce(a, "prod", lengths=torch.tensor([3, 3])), (x,))
    x = torch.tensor([2.0, 0.0, 3.0, 1.0, 5.0, 4.0], dtype=torch.float64, requires_grad=True)
    assert gradgradcheck(
        lambda a: torch.segment_reduce(a, "prod", lengths=torch.tensor([3, 3])), (x,)
    )


def test_strict_device_unsafe_reads_nothing():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 0.0]], device="strict", requires_grad=True)
    out = torch.segment_reduce(
        x, "prod", lengths=torch.tensor([1, 2], device="strict"), unsafe=True
    )
    out.sum().backward()
    assert out.cpu().tolist() == [[1.0, 2.0], [15.0, 0.0]]
    assert x.grad.cpu().tolist() == [[1.0, 1.0], [5.0, 0.0], [3.0, 4.0]]
