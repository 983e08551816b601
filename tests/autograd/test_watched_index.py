"""Index tensors changed in place before backward: torch saves them and refuses the backward;
minitorch's nodes read their arrays at backward, so they watch them (NOTE [ Watched index
tensors ]) instead of silently sending the gradient to the new positions."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

MODIFIED = "modified by an inplace operation"


def _w(*shape):
    n = int(np.prod(shape))
    return torch.arange(1.0, n + 1.0, dtype=torch.float64).reshape(shape).requires_grad_()


def _raises_after(out, bump):
    """backward of out.sum() raises torch's error once the index was bumped in place."""
    bump()
    with pytest.raises(RuntimeError, match=MODIFIED):
        out.sum().backward()


# --- index inputs: x[idx], gather, index_select, take, embedding ... ---

INPUT_OPS = {
    "getitem": lambda w, i: w[i],
    "getitem_tuple": lambda w, i: w[torch.tensor([0, 1]), i],
    "getitem_slice_then_index": lambda w, i: w[:, i],
    "gather": lambda w, i: w.gather(1, i.reshape(2, 1)),
    "index_select": lambda w, i: w.index_select(1, i),
    "take": lambda w, i: w.take(i),
    "take_along_dim_flat": lambda w, i: torch.take_along_dim(w, i),
    "embedding": lambda w, i: F.embedding(i, w),
    "embedding_bag": lambda w, i: F.embedding_bag(i, w, torch.tensor([0])),
    "index_put_src": lambda w, i: torch.zeros(2, 3, dtype=w.dtype).index_put((i,), w[:2]),
    "index_put_self": lambda w, i: (w * 1).index_put((i,), torch.zeros(3, dtype=w.dtype)),
    "setitem": lambda w, i: _setitem(w, i),
    "scatter": lambda w, i: torch.zeros(2, 3, dtype=w.dtype).scatter(1, i.reshape(2, 1), w),
    "scatter_value": lambda w, i: (w * 1).scatter(1, i.reshape(2, 1), 0.0),
    "scatter_add": lambda w, i: torch.zeros(2, 3, dtype=w.dtype).scatter_add(1, i.reshape(2, 1), w),
    "index_add": lambda w, i: torch.zeros(2, 3, dtype=w.dtype).index_add(1, i, w[:, :2]),
    "index_copy": lambda w, i: torch.zeros(2, 3, dtype=w.dtype).index_copy(1, i, w[:, :2]),
    "index_fill": lambda w, i: (w * 1).index_fill(1, i, 0.0),
    "put": lambda w, i: torch.zeros(2, 3, dtype=w.dtype).put(i, w[0, :2]),
    "put_self": lambda w, i: (w * 1).put(i, torch.zeros(2, dtype=w.dtype)),
}


def _setitem(w, i):
    z = torch.zeros(2, 3, dtype=w.dtype)
    z[i] = w[:2]
    return z


@pytest.mark.parametrize("name", sorted(INPUT_OPS))
def test_index_input_changed_in_place_raises(name):
    w = _w(2, 3)
    i = torch.tensor([0, 1])
    out = INPUT_OPS[name](w, i)
    _raises_after(out, lambda: i.add_(1))


@pytest.mark.parametrize("op", ["getitem", "masked_select"])
def test_bool_mask_changed_in_place_raises(op):
    # torch saves the mask too (the gradient here would be right: the plan keeps its nonzero())
    w = _w(2, 3)
    m = torch.tensor([True, False, True])
    out = w[:, m] if op == "getitem" else w.masked_select(m)
    _raises_after(out, lambda: m.logical_not_())


@pytest.mark.parametrize("name", sorted(INPUT_OPS))
def test_unmodified_index_still_backprops(name):
    w = _w(2, 3)
    i = torch.tensor([0, 1])
    INPUT_OPS[name](w, i).sum().backward()
    assert w.grad is not None


def test_pointer_advanced_in_a_loop_raises():
    # the sweep's repro: w[pos] then pos += 1, in a loop
    w = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    pos = torch.tensor([0, 1])
    outs = []
    for t in range(2):
        outs.append(w[pos] * (t + 1))
        pos += 1
    with pytest.raises(RuntimeError, match=MODIFIED) as err:
        torch.stack(outs).sum().backward()
    # torch's words: the index (an int64 tensor of shape [2]) with its versions
    assert "[torch.LongTensor [2]] is at version 2; expected version 1 instead" in str(err.value)


def test_fresh_index_each_iteration_is_fine():
    # a new index tensor each iteration (pos = pos + 1) is not an in-place change
    w = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    pos = torch.tensor([0, 1])
    outs = []
    for t in range(2):
        outs.append(w[pos] * (t + 1))
        pos = pos + 1
    torch.stack(outs).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 3.0, 2.0, 0.0, 0.0])


def test_index_changed_after_backward_is_fine():
    w = _w(4)
    i = torch.tensor([2, 2, 0])
    y = w[i]
    y.backward(torch.tensor([1.0, 10.0, 100.0], dtype=torch.float64))
    i.add_(1)  # the backward already ran
    np.testing.assert_array_equal(w.grad.numpy(), [100.0, 0.0, 11.0, 0.0])


def test_cpu_0d_int_index_is_a_select_not_watched():
    # torch reads a 0-d integer index on the CPU at once (a select): changing it later is fine
    w = _w(2, 3)
    i = torch.tensor(1)
    y = w[i, torch.tensor([0, 2])]
    i.add_(1)
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[0, 0, 0], [1, 0, 1]])


def test_self_grad_only_of_accumulating_ops_does_not_read_the_index():
    # x.index_add(...)/scatter_add with a constant source: grad_x = grad, the index unread
    for op in (
        lambda w, i: (w * 1).index_add(1, i, torch.zeros(2, 2, dtype=w.dtype)),
        lambda w, i: (w * 1).scatter_add(1, i.reshape(2, 1), torch.zeros(2, 1, dtype=w.dtype)),
    ):
        w = _w(2, 3)
        i = torch.tensor([0, 1])
        y = op(w, i)
        i.add_(1)
        y.sum().backward()
        np.testing.assert_array_equal(w.grad.numpy(), np.ones((2, 3)))


def test_no_grad_and_constant_inputs_watch_nothing():
    w = _w(2, 3)
    i = torch.tensor([0, 1])
    with torch.no_grad():
        y = w[i]
    assert y.grad_fn is None
    y2 = w.detach()[i]
    i.add_(1)  # nothing recorded: no error anywhere
    assert y2.grad_fn is None


def test_in_place_variants_watch_too():
    w = _w(2, 3)
    i = torch.tensor([0, 1])
    z = torch.zeros(2, 3, dtype=w.dtype)
    z.index_copy_(1, i, w[:, :2])
    _raises_after(z, lambda: i.add_(1))
    w = _w(2, 3)
    i = torch.tensor([0, 1])
    z = torch.zeros(2, 3, dtype=w.dtype)
    z.index_put_((i,), w[:2])
    _raises_after(z, lambda: i.add_(1))


def test_gradients_with_unchanged_indices():
    i = torch.tensor([2, 0, 2])
    j = torch.tensor([[1], [0]])
    r = torch.tensor([1, 1, 0])
    for fn in (
        lambda w: w[r],
        lambda w: w[r, i],
        lambda w: w[:, i],
        lambda w: w.gather(1, j),
        lambda w: w.index_select(1, i),
        lambda w: F.embedding(torch.tensor([1, 0, 1]), w),
    ):
        w = torch.randn(2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
        w.requires_grad_()
        assert gradcheck(fn, (w,))
        assert gradgradcheck(fn, (w,))


# --- returned indices: topk, sort, max(dim), ... ---

X = [[1.0, 5.0, 3.0, 4.0], [8.0, 2.0, 7.0, 6.0]]

RETURNING_OPS = {
    "topk": lambda x: x.topk(2, 1),
    "sort": lambda x: x.sort(1),
    "max": lambda x: x.max(1),
    "min": lambda x: x.min(1),
    "max_keepdim": lambda x: x.max(1, keepdim=True),
    "kthvalue": lambda x: x.kthvalue(2, 1),
    "kthvalue_keepdim": lambda x: x.kthvalue(2, 1, keepdim=True),
    "median": lambda x: x.median(1),
    "nanmedian": lambda x: x.nanmedian(1),
    "mode": lambda x: x.mode(1),
    "cummax": lambda x: x.cummax(1),
    "cummin": lambda x: x.cummin(1),
}

# the gradient of (values * [1, 2, ...]).sum() with the indices left alone
EXPECTED = {
    "topk": [[0, 1, 0, 2], [3, 0, 4, 0]],
    "sort": [[1, 4, 2, 3], [8, 5, 7, 6]],
    "max": [[0, 1, 0, 0], [2, 0, 0, 0]],
    "max_keepdim": [[0, 1, 0, 0], [2, 0, 0, 0]],
    "min": [[1, 0, 0, 0], [0, 2, 0, 0]],
    "kthvalue": [[0, 0, 1, 0], [0, 0, 0, 2]],
    "kthvalue_keepdim": [[0, 0, 1, 0], [0, 0, 0, 2]],
    "median": [[0, 0, 1, 0], [0, 0, 0, 2]],
    "nanmedian": [[0, 0, 1, 0], [0, 0, 0, 2]],
    "mode": [[1, 0, 0, 0], [0, 2, 0, 0]],
    "cummax": [[1, 9, 0, 0], [26, 0, 0, 0]],
    "cummin": [[10, 0, 0, 0], [5, 21, 0, 0]],
}


def _weights(v):
    return torch.arange(1.0, 1 + v.numel(), dtype=v.dtype).reshape(v.shape)


@pytest.mark.parametrize("name", sorted(RETURNING_OPS))
def test_returned_indices_changed_in_place_raise(name):
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    vals, idx = RETURNING_OPS[name](x * 1)
    idx.add_(1).clamp_(max=3)  # e.g. turned into other positions
    with pytest.raises(RuntimeError, match=MODIFIED) as err:
        (vals * _weights(vals)).sum().backward()
    # as torch's message: the indices, with no "which is output ..." part
    assert f"[torch.LongTensor {list(idx.shape)}] is at version 2" in str(err.value)


@pytest.mark.parametrize("name", sorted(RETURNING_OPS))
def test_returned_indices_left_alone_backprop(name):
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    vals, idx = RETURNING_OPS[name](x)
    shifted = idx + 1  # out of place: fine
    (vals * _weights(vals)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), EXPECTED[name])
    assert shifted.shape == idx.shape


def test_returned_indices_gradcheck():
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    for fn in (lambda t: t.topk(2, 1)[0], lambda t: t.max(1)[0], lambda t: t.cummax(1)[0]):
        assert gradcheck(fn, (x,))
