"""In-place writes and out= against memory overlap, out= dtypes and resizes, resize_, 0-d dims."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

PARTIAL = "some elements of the input tensor and the written-to tensor"
REPEATED = "more than one element of the written-to tensor"


def _shift():
    x = torch.arange(5.0)
    x[1:] = x[:-1]


def _shift_iadd():
    x = torch.arange(5.0)
    x[1:] += x[:-1]


def _sym():
    x = torch.arange(9.0).view(3, 3)
    x.add_(x.t())


def _index_copy():
    x = torch.arange(6.0)
    x.index_copy_(0, torch.tensor([0, 1]), x[2:4])


def _index_key():
    x = torch.arange(3.0)
    x[torch.tensor([1, 2])] = x[:2]


def _row_scalar():
    x = torch.arange(6.0)
    x.add_(x[0])


@pytest.mark.parametrize("fn", [_shift, _shift_iadd, _sym, _index_copy, _index_key, _row_scalar])
def test_partial_overlap_of_input_and_written_tensor_raises(fn):
    with pytest.raises(RuntimeError, match=PARTIAL):
        fn()


def test_overlap_that_torch_allows_still_writes():
    x = torch.arange(6.0)
    x.add_(x)  # the same memory in the same order
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0) * 2)
    x = torch.arange(9.0).view(3, 3)
    x[:, 0] = x[0]  # a strided target: torch does not check ("too hard"), nor do we
    np.testing.assert_array_equal(x.numpy()[:, 0], [0.0, 1.0, 2.0])
    x = torch.arange(6.0)
    x[::2].add_(x[1::2])
    np.testing.assert_array_equal(x.numpy(), [1.0, 1.0, 5.0, 3.0, 9.0, 5.0])
    x = torch.arange(9.0).view(3, 3)
    x[1:] = x[:1]  # disjoint rows of one base
    np.testing.assert_array_equal(x.numpy(), np.tile(np.arange(3.0), (3, 1)))


@pytest.mark.parametrize("key", [slice(None), (slice(None), 0), Ellipsis])
def test_setitem_into_repeated_elements_raises(key):
    b = torch.zeros(1, 4)
    e = b.expand(3, 4)
    with pytest.raises(RuntimeError, match=REPEATED):
        e[key] = 1.0
    np.testing.assert_array_equal(b.numpy(), np.zeros((1, 4)))


def test_setitem_into_expanded_row_without_repeats_writes_base():
    x = torch.zeros(3)
    x.expand(2, 3)[0] = torch.arange(3.0)
    np.testing.assert_array_equal(x.numpy(), [0.0, 1.0, 2.0])


def test_out_expanded_raises_runtime_error():
    with pytest.raises(RuntimeError, match=REPEATED):
        torch.mul(torch.ones(3, 4), 2, out=torch.zeros(4).expand(3, 4))


def test_out_view_resized_writes_through_base():
    x = torch.arange(6.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.exp(x, out=x[::2])
    np.testing.assert_allclose(x.numpy(), np.exp(np.arange(6.0)), rtol=1e-6, err_msg="exp out=")
    o = torch.zeros(12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.add(torch.arange(6.0), 1, out=o[:4])
    np.testing.assert_array_equal(o.numpy(), [1, 2, 3, 4, 5, 6] + [0] * 6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="cannot resize the view"):
            torch.add(torch.arange(6.0), 1, out=torch.zeros(4)[1:3])


def test_reduction_out_dtypes():
    x = torch.arange(12.0).reshape(3, 4)
    o = torch.empty(3, dtype=torch.long)
    torch.sum(x, 1, out=o)
    np.testing.assert_array_equal(o.numpy(), [6, 22, 38])
    torch.prod(x, 1, out=o)
    np.testing.assert_array_equal(o.numpy(), [0, 840, 7920])
    with pytest.raises(RuntimeError, match="can't be cast"):
        torch.mean(x, 1, out=o)
    with pytest.raises(RuntimeError, match="Expected the dtype for input and out to match"):
        torch.amax(x, 1, out=torch.empty(3, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="to have dtype float, but got long int"):
        torch.max(x, 1, out=(o, torch.empty(3, dtype=torch.long)))
    with pytest.raises(RuntimeError, match="to have dtype long int, but got float"):
        torch.argmax(x, 1, out=torch.empty(3))
    with pytest.raises(RuntimeError, match="to have dtype double, but got float"):
        torch.sum(x, 1, dtype=torch.float64, out=torch.empty(3))
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        torch.sum(x, out=torch.empty(()))


def test_round_out_dtype_must_match():
    with pytest.raises(RuntimeError, match="Found dtype Half but expected Float"):
        torch.round(torch.tensor([1.5]), out=torch.empty(1, dtype=torch.float16))
    with pytest.raises(RuntimeError, match="Found dtype Float but expected Long"):
        torch.floor(torch.tensor([2]), out=torch.empty(1))


def test_resize_keeps_memory_order_of_a_strided_tensor():
    x = torch.arange(6.0).view(2, 3).t()
    x.resize_(2, 3)
    assert x.stride() == (3, 1)
    np.testing.assert_array_equal(x.numpy(), [[0, 1, 2], [3, 4, 5]])
    y = torch.arange(6.0)[::2]
    y.resize_(2)
    np.testing.assert_array_equal(y.numpy(), [0.0, 1.0])
    base = torch.arange(6.0)
    v = base[2:]
    v.resize_(2, 2)
    v[0, 0] = 9.0  # still base's memory
    np.testing.assert_array_equal(base.numpy(), [0, 1, 9, 3, 4, 5])


def test_zero_dim_dims(monkeypatch):
    monkeypatch.setitem(torch._settings._state, "warn_always", True)  # torch warns once
    x = torch.tensor(5.0)
    for y in (x.transpose(0, -1), x.swapaxes(0, 0), x.movedim(0, 0), x.clone().transpose_(0, 0)):
        assert y.shape == () and y.item() == 5.0
    with pytest.warns(UserWarning, match="mT is deprecated on 0-D"):
        assert x.mT is x
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.transpose(0, 1)
    a = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.transpose(0, -1) * t, (a,))
    assert gradgradcheck(lambda t: t.movedim(0, 0) ** 3, (a,))


def test_inplace_on_overlapping_windows_writes_only_touched_elements():
    out = torch.zeros(10)
    out.unfold(0, 4, 2).index_add_(0, torch.tensor([1]), torch.ones(1, 4))
    np.testing.assert_array_equal(out.numpy(), [0, 0, 1, 1, 1, 1, 0, 0, 0, 0])
    out = torch.zeros(10)
    out.unfold(0, 4, 2).index_fill_(0, torch.tensor([1]), 5.0)
    np.testing.assert_array_equal(out.numpy(), [0, 0, 5, 5, 5, 5, 0, 0, 0, 0])
    out = torch.zeros(6)
    out.as_strided((3, 3), (1, 1)).scatter_(1, torch.tensor([[0], [1], [2]]), 1.0)
    np.testing.assert_array_equal(out.numpy(), [1, 0, 1, 0, 1, 0])


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_index_put_accumulate_rounds_each_add(dt):
    rng = np.random.default_rng(0)
    v = rng.standard_normal(3000).astype(np.float32)
    seg = np.arange(3000) % 7
    npdt = np.float16 if dt == "float16" else ml_dtypes.bfloat16
    expected = np.zeros(7, npdt)
    np.add.at(expected, seg, v.astype(npdt))  # one add at a time, rounded each time
    tdt = getattr(torch, dt)
    got = torch.zeros(7, dtype=tdt).index_put_(
        (torch.tensor(seg),), torch.tensor(v).to(tdt), accumulate=True
    )
    np.testing.assert_array_equal(got.float().numpy(), expected.astype(np.float32))
    ones = torch.zeros(1, dtype=torch.bfloat16).index_put_(
        (torch.zeros(1000, dtype=torch.long),), torch.ones(1000, dtype=torch.bfloat16), True
    )
    assert ones.item() == 256.0


def test_inplace_bitwise_with_wider_operand_is_a_cast_error():
    with pytest.raises(RuntimeError, match="result type Float can't be cast .* Long"):
        torch.tensor([1, 2]).__iand__(torch.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="result type Float can't be cast .* Long"):
        torch.tensor([1, 2]).__ilshift__(1.0)
    with pytest.raises(RuntimeError, match="result type Long can't be cast .* Bool"):
        torch.tensor([True]).hypot_(torch.tensor([1]))


def test_cat_and_stack_refuse_an_out_that_overlaps_an_input():
    x = torch.arange(6.0)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        torch.cat([x[:2], x[:2]], out=x[:4])
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        torch.stack([x[:2], x[2:4]], out=x[2:6].view(2, 2))
    y = torch.zeros(4)
    torch.cat([x[:2], x[4:]], out=y)  # unrelated memory: written as usual
    assert y.tolist() == [0.0, 1.0, 4.0, 5.0]
