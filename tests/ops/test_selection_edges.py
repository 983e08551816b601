"""Edge cases of selection, sorting and strided views found against torch: contiguous topk
indices, as_strided over non-row-major memory, half-precision index_add, index_fill/index_copy
errors, grad_fn names of kron and block_diag, index_fill_ on an expanded tensor."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

# --- topk / kthvalue indices are contiguous (torch's are: idx.view(-1) works) ---


def test_topk_indices_are_contiguous():
    logits = mt.tensor([[0.1, 0.5, 0.2, 0.9], [0.3, 0.8, 0.0, 0.4]])
    values, idx = logits.topk(2)
    assert idx.is_contiguous() and values.is_contiguous()
    assert idx.stride() == (2, 1)
    np.testing.assert_array_equal(idx.view(-1).numpy(), [3, 1, 1, 3])
    _, idx0 = mt.tensor(np.arange(15.0).reshape(3, 5)).topk(2, dim=0)
    assert idx0.stride() == (5, 1)
    np.testing.assert_array_equal(idx0.view(-1).numpy(), [2] * 5 + [1] * 5)


def test_kthvalue_keepdim_indices_are_contiguous():
    out = mt.tensor([[3.0, 1, 2], [0, 5, 4]]).kthvalue(2, 1, keepdim=True)
    assert out.indices.is_contiguous()
    np.testing.assert_array_equal(out.indices.view(-1).numpy(), [2, 2])
    np.testing.assert_array_equal(out.values.view(-1).numpy(), [2.0, 4.0])


# --- as_strided addresses the root's real memory ---


def test_as_strided_on_transposed_memory():
    h = mt.arange(12.0).view(3, 4)
    x = h.t() * 2  # keeps the transposed layout, as in torch
    assert x.stride() == (1, 4)
    w = x.as_strided((3, 2, 3), (1, 1, 4))  # 2-wide windows along dim 0
    expected = [
        [[0, 8, 16], [2, 10, 18]],
        [[2, 10, 18], [4, 12, 20]],
        [[4, 12, 20], [6, 14, 22]],
    ]
    np.testing.assert_array_equal(w.numpy(), expected)
    x[1, 0] = 100.0  # a view: shares x's memory
    assert w[0, 1, 0].item() == 100.0


def test_as_strided_on_permuted_and_gapped_numpy_memory():
    img = mt.from_numpy(np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1))
    np.testing.assert_array_equal(img.as_strided((2,), (1,)).numpy(), [0.0, 1.0])
    gapped = mt.from_numpy(np.arange(20.0).reshape(4, 5)[:, ::2])  # strides (5, 2)
    w = gapped.as_strided((3, 2), (4, 3), 1)  # reads between the columns too
    np.testing.assert_array_equal(w.numpy(), [[1, 4], [5, 8], [9, 12]])
    np.testing.assert_array_equal(gapped.as_strided((2,), (1,), 18).numpy(), [18.0, 19.0])
    with pytest.raises(RuntimeError, match="requiring a storage size of 168 are out of bounds "):
        gapped.as_strided((2,), (1,), 19)  # torch's message: the storage is 160 bytes


def test_as_strided_gradients_over_non_row_major_memory():
    h = mt.arange(12.0, dtype=mt.float64).view(3, 4).requires_grad_()
    w = (h.t() * 2).as_strided((3, 2, 3), (1, 1, 4))
    (w * mt.arange(18.0, dtype=mt.float64).view(3, 2, 3)).sum().backward()
    expected = [[0, 18, 42, 30], [2, 22, 46, 32], [4, 26, 50, 34]]  # torch's
    np.testing.assert_array_equal(h.grad.numpy(), expected)

    # an as_strided of an as_strided view of the same root
    h.grad = None
    b = (h.t() * 2).as_strided((4, 2), (1, 4)).as_strided((3,), (5,), 1)
    np.testing.assert_array_equal(b.detach().numpy(), [2.0, 12.0, 22.0])
    (b * mt.tensor([1.0, 2, 3], dtype=mt.float64)).sum().backward()
    np.testing.assert_array_equal(h.grad.numpy(), [[0, 2, 0, 0], [0, 0, 4, 0], [0, 0, 0, 0]])

    # memory with gaps: the elements read from the gaps carry no gradient to the input
    t = mt.from_numpy(np.arange(20.0).reshape(4, 5)[:, ::2]).requires_grad_()
    w = t.as_strided((3, 2), (4, 3), 1)
    (w * mt.tensor([[1.0, 2], [3, 4], [5, 6]], dtype=mt.float64)).sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), [[0, 0, 2], [3, 0, 5], [0, 6, 0], [0, 0, 0]])


def test_as_strided_gradcheck_over_transposed_memory():
    rng = np.random.default_rng(0)
    h = mt.tensor(rng.standard_normal((3, 4)), requires_grad=True)

    def windows(h):
        return (h.t() * 2).as_strided((3, 2, 3), (1, 1, 4))

    def chained(h):
        return (h.t() * 2)[1:].as_strided((2, 2), (4, 1), 1)

    for fn in (windows, chained):
        assert gradcheck(fn, (h,))
        assert gradgradcheck(fn, (h,))


# --- index_add in half precision rounds after every add, as torch does ---

_SEG_SUMS = {  # torch 2.13's index_add of standard_normal(3000) (seed 0) into 7 segments
    "float16": [-29.203125, -25.609375, -24.0, -10.9375, -15.015625, -2.546875, 5.328125],
    "bfloat16": [-29.125, -25.625, -23.875, -11.0625, -15.375, -3.125, 5.46875],
}


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_index_add_half_accumulates_in_its_dtype(name):
    dt = getattr(mt, name)
    v = np.random.default_rng(0).standard_normal(3000).astype(np.float32)
    seg = mt.arange(3000) % 7
    src = mt.tensor(v).to(dt)
    out = mt.zeros(7, dtype=dt).index_add(0, seg, src)
    assert out.dtype is dt
    np.testing.assert_array_equal(out.float().numpy(), _SEG_SUMS[name], err_msg=name)
    inplace = mt.zeros(7, dtype=dt)
    inplace.index_add_(0, seg, src)
    np.testing.assert_array_equal(inplace.float().numpy(), _SEG_SUMS[name], err_msg=name)


def test_index_add_float32_unchanged():
    out = mt.zeros(2, 3).index_add(1, mt.tensor([0, 2, 0]), mt.ones(2, 3), alpha=2)
    np.testing.assert_array_equal(out.numpy(), [[4, 0, 2], [4, 0, 2]])


# --- index_fill / index_copy errors ---


def test_index_fill_index_dtype_and_rank_errors():
    a = mt.zeros(2, 3)
    for idx in (mt.tensor([0], dtype=mt.int32), mt.tensor([0.0]), mt.tensor([[0]], dtype=mt.int32)):
        with pytest.raises(IndexError, match=r"index_fill_\(\): Expected dtype int64 for index\."):
            a.index_fill(1, idx, 1.0)
        with pytest.raises(IndexError, match="Expected dtype int64"):
            a.index_fill_(1, idx, 1.0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        a.index_fill(5, mt.tensor([0]), 1.0)
    with pytest.raises(RuntimeError, match="Index has to be a vector/scalar"):
        a.index_fill(1, mt.tensor([[0]]), 1.0)
    np.testing.assert_array_equal(a.index_fill(1, mt.tensor(2), 1.0).numpy(), [[0, 0, 1]] * 2)


def test_index_copy_errors_follow_torch():
    a = mt.zeros(2, 3)
    with pytest.raises(IndexError, match=r"dimensionality must match\. Source dimensionality"):
        a.index_copy_(1, mt.tensor([2]), mt.ones(2))
    with pytest.raises(IndexError, match=r"dimensionality \(1\), destination dimensionality \(2\)"):
        a.index_copy(1, mt.tensor([2], dtype=mt.int32), mt.ones(2))
    with pytest.raises(RuntimeError, match="Expected a long tensor for index, but got Int"):
        a.index_copy_(1, mt.tensor([2], dtype=mt.int32), mt.ones(2, 1))
    with pytest.raises(IndexError, match=r"Index should have dimension 1 or 0 \(got 2\)"):
        a.index_copy_(1, mt.tensor([[2]]), mt.ones(2, 1))
    with pytest.raises(IndexError, match=r"index should have one element \(got 2\)"):
        a.index_copy_(1, mt.tensor([0, 1]), mt.tensor(1.0))
    with pytest.raises(RuntimeError, match=r"\(self\) Float and \(source\) Double"):
        a.index_copy_(1, mt.tensor([2]), mt.ones(2, 1, dtype=mt.float64))
    with pytest.raises(RuntimeError, match="Destination slice shape: 2 at dimension 1 and source"):
        a.index_copy_(1, mt.tensor([2]), mt.ones(3, 1))
    with pytest.raises(IndexError, match=r"Number of indices \(1\) should be equal"):
        a.index_copy_(1, mt.tensor([2]), mt.ones(2, 2))
    with pytest.raises(IndexError, match=r"index_copy_\(\): index 5 is out of bounds"):
        a.index_copy_(1, mt.tensor([5]), mt.ones(2, 1))


def test_index_copy_scalar_source_and_input():
    out = mt.zeros(3).index_copy(0, mt.tensor([1]), mt.tensor(5.0))
    np.testing.assert_array_equal(out.numpy(), [0.0, 5.0, 0.0])
    out = mt.tensor(0.0).index_copy(0, mt.tensor([0]), mt.ones(1))
    assert out.shape == () and out.item() == 1.0
    src = mt.tensor(2.0, dtype=mt.float64, requires_grad=True)
    x = mt.zeros(3, dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda x, s: x.index_copy(0, mt.tensor([2]), s), (x, src))


# --- grad_fn names ---


def test_kron_and_block_diag_node_names():
    m = mt.ones(2, 2, requires_grad=True)
    v = mt.ones(3, requires_grad=True)
    k = mt.kron(m, v)
    assert k.grad_fn.name() == "UnsafeViewBackward0"
    assert k._base is None  # torch's kron result is not a view
    bd = mt.block_diag(m, v, mt.ones(2))
    assert bd.grad_fn.name() == "BlockDiagBackward0"
    nxt = bd.grad_fn.next_functions
    assert [type(f).__name__ if f is not None else None for f, _ in nxt] == [
        "AccumulateGrad",
        "AccumulateGrad",
        None,
    ]
    rng = np.random.default_rng(1)
    a = mt.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    b = mt.tensor(rng.standard_normal(3), requires_grad=True)
    for fn in (mt.kron, mt.block_diag):
        assert gradcheck(fn, (a, b))
        assert gradgradcheck(fn, (a, b))


# --- index_fill_ on an expanded tensor: torch warns and writes ---


def test_index_fill_on_expanded_tensor_warns_and_writes():
    b = mt.zeros(1, 4)
    e = b.expand(3, 4)
    with pytest.warns(UserWarning, match="Use of index_fill_ on expanded tensors is deprecated"):
        out = e.index_fill_(1, mt.tensor([0, -1]), 5.0)
    assert out is e
    np.testing.assert_array_equal(b.numpy(), [[5.0, 0.0, 0.0, 5.0]])
    assert b._version == 1
    c = mt.zeros(4, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c.expand(4, 3).index_fill_(0, mt.tensor([2]), mt.tensor(7.0))
    np.testing.assert_array_equal(c.view(-1).numpy(), [0.0, 0.0, 7.0, 0.0])


def test_inplace_through_as_strided_of_transposed_memory_has_torchs_gradients():
    # y's memory is transposed (h.t() * 2): the as_strided view picks memory positions 1 and 2,
    # y[1, 0] and y[2, 0]; the written region's gradient is taken from there, not row-major
    h = mt.arange(1.0, 7.0, dtype=mt.float64).view(2, 3).requires_grad_()
    w = mt.tensor([3.0, 5.0], dtype=mt.float64, requires_grad=True)

    def f(h, w):
        y = h.t() * 2 * 1
        y.as_strided((2,), (1,), 1).mul_(w)
        return y * mt.arange(6.0, dtype=mt.float64).view(3, 2)

    f(h, w).sum().backward()
    assert h.grad.tolist() == [[0.0, 12.0, 40.0], [2.0, 6.0, 10.0]]  # torch's values
    assert w.grad.tolist() == [8.0, 24.0]
    assert mt.autograd.gradcheck(f, (h, w))
    assert mt.autograd.gradgradcheck(f, (h, w))


def test_index_add_half_slices_sum_in_float32_and_round_once():
    # torch's rule differs by rank: the slices of a tensor with more dims are summed in float32
    # and rounded once (a 1-d tensor's elements are added one by one, rounding each time)
    rng = np.random.default_rng(0)
    s = rng.standard_normal((1024, 2)).astype(np.float16)
    got = mt.zeros(1, 2, dtype=mt.float16).index_add(
        0, mt.zeros(1024, dtype=mt.int64), mt.tensor(s)
    )
    want = s.astype(np.float32).sum(0).astype(np.float16)
    np.testing.assert_array_equal(got.numpy()[0], want)
