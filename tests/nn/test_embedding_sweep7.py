"""embedding / embedding_bag against torch's behaviour: the legacy argument order, half
precision bags, integer weights and 0-row tables."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

F = torch.nn.functional

WEIGHT_DTYPE_ERR = (
    "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, "
    "BFloat16, Float, Double; but got {} instead (while checking arguments for embedding_bag)"
)


def test_embedding_bag_legacy_order_swaps_with_warning():
    w = torch.arange(40.0).view(10, 4).requires_grad_()
    with pytest.warns(UserWarning, match=r"Argument order of nn\.functional\.embedding_bag"):
        out = F.embedding_bag(w, torch.tensor([1, 2, 4, 5]), torch.tensor([0, 2]), mode="sum")
    np.testing.assert_array_equal(out.detach().numpy(), [[12, 14, 16, 18], [36, 38, 40, 42]])
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy()[:, 0], [0, 1, 1, 0, 1, 1, 0, 0, 0, 0])
    # only a float first argument with an int64 second one is swapped
    with pytest.raises(ValueError, match="weight has to be a 2D Tensor"):
        F.embedding_bag(w.detach(), torch.tensor([1, 2], dtype=torch.int32), torch.tensor([0]))
    # torch.embedding_bag (weight first) never swaps
    with pytest.raises(RuntimeError, match="argument #1 'indices'"):
        torch.embedding_bag(torch.arange(8).view(4, 2), torch.tensor([0.0, 1.0]), torch.tensor([0]))


def test_embedding_bag_legacy_order_gradcheck():
    w = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    idx, offs = torch.tensor([0, 2, 2, 4]), torch.tensor([0, 1])
    with pytest.warns(UserWarning):
        assert gradcheck(lambda w: F.embedding_bag(w, idx, offs, mode="mean"), (w,))
        assert gradgradcheck(lambda w: F.embedding_bag(w, idx, offs, mode="mean"), (w,))


def test_embedding_bag_index_dtype_checked_after_argument_checks():
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(torch.tensor([0.0, 1.0]), torch.zeros(3, 2))


def test_half_mean_rounds_bag_sum_first():
    w = torch.full((3, 2), 1000.0, dtype=torch.float16)
    out = F.embedding_bag(torch.tensor([0] * 100), w, torch.tensor([0]), mode="mean")
    assert out.dtype is torch.float16
    assert np.isinf(out.numpy()).all()
    w2 = torch.tensor(
        [
            [-54.4375, -31.625, 41.15625],
            [-232.5, -21.875, -124.5625],
            [-70.375, -126.5625, -62.3125],
        ],
        dtype=torch.float16,
    )
    out = F.embedding_bag(torch.tensor([[0, 1, 2]]), w2, mode="mean")
    assert out.tolist() == [[-119.0625, -60.0, -48.59375]]


def test_bfloat16_bag_sum_rounds_ties_away_without_padding_idx():
    w = torch.tensor([[59.0], [50.25], [7.0]]).to(torch.bfloat16)  # 109.25: a bfloat16 tie
    idx = torch.tensor([[0, 1]])
    assert F.embedding_bag(idx, w, mode="sum").item() == 109.5
    assert F.embedding_bag(idx, w, mode="sum", padding_idx=2).item() == 109.0
    assert F.embedding_bag(idx, w, mode="mean").item() == 54.75
    assert F.embedding_bag(idx, w, mode="mean", padding_idx=2).item() == 54.5


def test_half_per_sample_weights_multiply_in_float32():
    w = torch.tensor([[-13.2], [10.5], [-40.0], [43.5]], dtype=torch.float16).requires_grad_()
    p = torch.tensor([0.1, 0.19995, 0.2998, 0.3999], dtype=torch.float16).requires_grad_()
    idx, offs = torch.tensor([0, 1, 2, 3]), torch.tensor([0])
    out = F.embedding_bag(idx, w, offs, mode="sum", per_sample_weights=p)
    assert out.tolist() == [[6.18359375]]
    out.backward(torch.tensor([[0.7]], dtype=torch.float16))
    assert w.grad.flatten().tolist() == [
        0.07000732421875,
        0.1400146484375,
        0.2099609375,
        0.280029296875,
    ]
    assert p.grad.tolist() == [-9.2421875, 7.3515625, -28.0, 30.453125]


def test_half_bag_gradients_in_half():
    # sum: the rows' gradients are summed in half (1000 + 0.4 -> 1000.5, + 0.3 -> 1001)
    w = torch.zeros(2, 1, dtype=torch.float16, requires_grad=True)
    g = torch.tensor([[1000.0], [0.4], [0.3], [5.0]], dtype=torch.float16)
    F.embedding_bag(torch.tensor([0, 0, 0, 1]), w, torch.tensor([0, 1, 2, 3]), mode="sum").backward(
        g
    )
    assert w.grad.flatten().tolist() == [1001.0, 5.0]
    # mean: grad * half(1 / 3), not grad / 3 rounded (1.6669921875)
    w = torch.zeros(2, 1, dtype=torch.float16, requires_grad=True)
    out = F.embedding_bag(torch.tensor([[0, 0, 1]]), w, mode="mean")
    out.backward(torch.tensor([[5.0]], dtype=torch.float16))
    assert w.grad.flatten().tolist() == [3.33203125, 1.666015625]


def test_float64_bag_gradients_unchanged():
    w = torch.randn(6, 3, dtype=torch.float64, requires_grad=True)
    p = torch.rand(5, dtype=torch.float64, requires_grad=True)
    idx, offs = torch.tensor([0, 2, 2, 5, 1]), torch.tensor([0, 2])
    fn = lambda w, p: F.embedding_bag(idx, w, offs, mode="sum", per_sample_weights=p)  # noqa: E731
    assert gradcheck(fn, (w, p))
    assert gradgradcheck(fn, (w, p))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_refuses_integer_weight(mode):
    w = torch.arange(10).view(5, 2)
    with pytest.raises(RuntimeError) as e:
        F.embedding_bag(torch.tensor([[1, 2]]), w, mode=mode)
    assert str(e.value) == WEIGHT_DTYPE_ERR.format("torch.LongTensor")
    with pytest.raises(RuntimeError, match="but got CPUBoolType instead"):
        F.embedding_bag(torch.tensor([[1, 2]]), w.bool(), mode=mode)
    with pytest.raises(RuntimeError, match="but got torch.IntTensor instead"):
        torch.embedding_bag(w.int(), torch.tensor([1, 2]), torch.tensor([0]))


def test_integer_weight_check_order():
    w = torch.arange(10).view(5, 2)
    with pytest.raises(RuntimeError, match="padding_idx must be within"):
        F.embedding_bag(torch.tensor([[1, 2]]), w, padding_idx=7)
    with pytest.raises(RuntimeError, match="argument #1 'weight'"):  # before the range check
        F.embedding_bag(torch.tensor([[9]]), w)


def test_embedding_takes_integer_weight():
    w = torch.arange(10).view(5, 2)
    out = F.embedding(torch.tensor([1, 2]), w)
    assert out.dtype is torch.int64
    assert out.tolist() == [[2, 3], [4, 5]]


def test_zero_row_embedding():
    msg = r"index_select\(\): self indexing axis dim should be positive"
    with pytest.raises(RuntimeError, match=msg):
        torch.nn.Embedding(0, 3)(torch.tensor([0]))
    with pytest.raises(RuntimeError, match=msg):
        F.embedding(torch.tensor([-1]), torch.zeros(0, 3))
    assert F.embedding(torch.zeros(2, 0, dtype=torch.int64), torch.zeros(0, 3)).shape == (2, 0, 3)
    assert torch.nn.Embedding(0, 3)(torch.tensor([], dtype=torch.int64)).shape == (0, 3)
    out = F.embedding_bag(torch.tensor([], dtype=torch.int64), torch.zeros(0, 3), torch.tensor([0]))
    assert out.tolist() == [[0.0, 0.0, 0.0]]
