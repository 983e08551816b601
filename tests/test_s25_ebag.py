"""embedding_bag's sum and mean through one (slot, bag, column) gather (session 25): the same
bits as adding each bag's weighted rows one after another into zeros, as torch's CPU kernel
and index_add do; gradients in float64."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck


def _reference(weight, flat, starts, psw=None, padding_idx=None):
    """Each bag's rows (times psw, padding left out) added in position order into zeros."""
    rows = weight[flat]
    if psw is not None:
        rows = rows * psw.reshape(-1)[:, None]
    if padding_idx is not None:
        rows = np.where((flat != padding_idx)[:, None], rows, np.zeros((), rows.dtype))
    ids = np.searchsorted(starts, np.arange(flat.shape[0]), side="right") - 1
    out = np.zeros((starts.shape[0], weight.shape[1]), weight.dtype)
    np.add.at(out, ids, rows)  # unbuffered, in order
    return out


def _case(rng, bags, longest, d, dtype, equal):
    vocab = 50
    w = rng.standard_normal((vocab, d)) * 10.0 ** rng.uniform(-4, 4, (vocab, 1))
    w[rng.random((vocab, d)) < 0.1] = -0.0
    w = w.astype(dtype)
    sizes = np.full(bags, longest) if equal else rng.integers(0, longest + 1, bags)
    sizes[0] = max(sizes[0], 1)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    flat = rng.integers(0, vocab, int(sizes.sum()))
    return w, flat, starts


@pytest.mark.parametrize("d", [1, 3, 64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("equal", [True, False])
def test_offsets_sum_mean_bits(d, dtype, equal):
    rng = np.random.default_rng(d + 7 * equal)
    for bags, longest in [(1, 9), (7, 5), (60, 12)]:
        w, flat, starts = _case(rng, bags, longest, d, dtype, equal)
        psw = (rng.standard_normal(flat.shape[0]) * 100).astype(dtype)
        pad = int(flat[0])
        wt, it, ot = torch.from_numpy(w), torch.from_numpy(flat), torch.from_numpy(starts)
        for p, padding_idx in [(None, None), (psw, None), (psw, pad), (None, pad)]:
            pt = None if p is None else torch.from_numpy(p)
            want = _reference(w, flat, starts, p, padding_idx)
            got = F.embedding_bag(
                it, wt, ot, mode="sum", per_sample_weights=pt, padding_idx=padding_idx
            ).numpy()
            assert got.tobytes() == want.tobytes()
            if p is None:
                got = F.embedding_bag(it, wt, ot, mode="mean", padding_idx=padding_idx).numpy()
                keep = np.ones_like(flat, bool) if padding_idx is None else flat != padding_idx
                ends = np.append(starts[1:], flat.shape[0])
                count = np.array([keep[s:e].sum() for s, e in zip(starts, ends, strict=True)])
                want = want / np.maximum(count, 1).astype(dtype)[:, None]
                assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("d", [1, 5])
def test_2d_sum_bits(d):
    rng = np.random.default_rng(3)
    w, _, _ = _case(rng, 1, 1, d, np.float32, True)
    idx = rng.integers(0, w.shape[0], (9, 13))
    psw = rng.standard_normal(idx.shape).astype(np.float32)
    starts = np.arange(9, dtype=np.int64) * 13
    got = F.embedding_bag(
        torch.from_numpy(idx),
        torch.from_numpy(w),
        mode="sum",
        per_sample_weights=torch.from_numpy(psw),
        padding_idx=3,
    )
    want = _reference(w, idx.reshape(-1), starts, psw, 3)
    assert got.numpy().tobytes() == want.tobytes()


def test_negative_zero_bag_is_positive_zero():
    # torch: a bag of one -0.0 row sums to 0.0 (its kernel adds into zeros)
    w = torch.tensor([[-0.0, 1.0], [-0.0, -0.0]])
    for idx, off in [([0, 1], [0, 1]), ([0, 1, 1, 0], [0, 2])]:
        out = F.embedding_bag(torch.tensor(idx), w, torch.tensor(off), mode="sum")
        assert not np.signbit(out.numpy()).any()


def test_empty_bags_and_long_bags():
    # empty bags are 0; bags of very different lengths take the scatter path
    w = torch.arange(12.0).reshape(6, 2)
    idx = torch.tensor([1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 1])
    out = F.embedding_bag(idx, w, torch.tensor([0, 0, 11, 11]), mode="sum")
    assert out.tolist() == [[0.0, 0.0], [60.0, 71.0], [0.0, 0.0], [2.0, 3.0]]
    out = F.embedding_bag(idx, w, torch.tensor([0, 2, 2, 3]), mode="mean")
    assert out.tolist() == [
        [3.0, 4.0],
        [0.0, 0.0],
        [6.0, 7.0],
        [5.55555534362793, 6.55555534362793],
    ]


@pytest.mark.parametrize("two_d", [False, True])
@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_gradients_float64(two_d, mode):
    torch.manual_seed(0)
    w = torch.randn(7, 3, dtype=torch.float64, requires_grad=True)
    if two_d:
        idx, off = torch.randint(0, 7, (4, 3)), None
    else:
        idx, off = torch.tensor([0, 2, 2, 5, 6, 1, 3, 0]), torch.tensor([0, 3, 3, 5])
    psw = None
    if mode == "sum":
        psw = torch.randn(idx.shape, dtype=torch.float64, requires_grad=True)
    for pad in (None, 2):

        def fn(w, *p, pad=pad):
            return F.embedding_bag(
                idx, w, off, mode=mode, padding_idx=pad, per_sample_weights=p[0] if p else None
            )

        args = (w,) if psw is None else (w, psw)
        assert gradcheck(fn, args)
        assert gradgradcheck(fn, args)
