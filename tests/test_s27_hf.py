"""Session 27 (hf): library fixes found running Hugging-Face-style modeling code; expected values
are torch 2.13's, obtained by running it."""

from __future__ import annotations

import math

import pytest

import minitorch as torch
from minitorch import nn

F = nn.functional
NAN, INF = math.nan, math.inf


def _same(a, b):
    """Equal lists of lists, NaN equal to NaN."""
    for ra, rb in zip(a, b, strict=True):
        for x, y in zip(ra, rb, strict=True):
            assert (math.isnan(x) and math.isnan(y)) or x == y, (a, b)


def test_embedding_padding_row_gets_no_nan_gradient():
    # a padded position whose activations turn NaN (an all-masked attention row in float64
    # softmax'ed in float32) leaves the padding row's gradient 0, as torch's backward skips it
    w = torch.tensor([[1.0, 1.0], [2.0, 3.0]], requires_grad=True)
    o = F.embedding(torch.tensor([0, 1, 1]), w, padding_idx=0)
    (o * torch.tensor([[NAN, NAN], [1.0, 1.0], [1.0, 1.0]])).sum().backward()
    assert w.grad.tolist() == [[0.0, 0.0], [2.0, 2.0]]
    e = nn.Embedding(4, 2, padding_idx=0)
    out = e(torch.tensor([[0, 1], [2, 0]]))
    (out * torch.tensor([[[NAN, 1.0], [1.0, 1.0]], [[1.0, 1.0], [NAN, NAN]]])).sum().backward()
    assert e.weight.grad[0].tolist() == [0.0, 0.0]
    assert e.weight.grad[1:].tolist() == [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]


def test_embedding_infinite_rows_stay_infinite_with_padding_and_freq_scaling():
    w = torch.tensor([[INF, 1.0], [2.0, -INF], [0.5, 0.25]], requires_grad=True)
    idx = torch.tensor([[0, 1], [2, 1]])
    o = F.embedding(idx, w, padding_idx=1, scale_grad_by_freq=True)
    assert o.tolist() == [[[INF, 1.0], [2.0, -INF]], [[0.5, 0.25], [2.0, -INF]]]
    assert type(o.grad_fn).__name__ == "EmbeddingBackward0"
    g = torch.tensor([[[1.0, 2.0], [NAN, 3.0]], [[4.0, 5.0], [6.0, NAN]]])
    (o * g).sum().backward()
    assert w.grad.tolist() == [[1.0, 2.0], [0.0, 0.0], [4.0, 5.0]]
    for kw in ({"padding_idx": 0}, {"scale_grad_by_freq": True}):
        w2 = torch.tensor([[INF, 1.0], [2.0, 3.0]], requires_grad=True)
        assert F.embedding(torch.tensor([0, 1]), w2, **kw).tolist() == [[INF, 1.0], [2.0, 3.0]]


def test_embedding_padding_double_backward():
    w = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float64, requires_grad=True)
    o = F.embedding(torch.tensor([0, 0, 2, 1]), w, padding_idx=1)
    (g,) = torch.autograd.grad((o**3).sum(), w, create_graph=True)
    assert g.tolist() == [[6.0, 24.0], [0.0, 0.0], [75.0, 108.0]]
    m = torch.tensor([[NAN, 1.0], [1.0, 1.0], [1.0, 1.0]], dtype=torch.float64)
    (gg,) = torch.autograd.grad((g * m).sum(), w)
    _same(gg.tolist(), [[NAN, 24.0], [0.0, 0.0], [30.0, 36.0]])


def test_skip_init_leaves_the_global_random_stream_alone():
    # torch builds the module on the meta device, drawing nothing: the next randn is the seed's
    torch.manual_seed(0)
    m = nn.utils.skip_init(nn.Linear, 4, 3)
    assert tuple(m.weight.shape) == (3, 4) and m.weight.requires_grad
    want = [1.5409960746765137, -0.293428897857666, -2.1787893772125244]
    assert torch.randn(3).tolist() == want


def test_index_put_of_one_value_at_a_bool_mask_casts_as_masked_fill():
    # torch's index_put_ with one bool mask and one CPU value runs masked_fill_: the value's
    # dtype need not match (an HF-style `scores.index_put_((mask,), torch.tensor(min))`)
    s = torch.tensor([[0.5, 1.0], [2.0, -1.0]], dtype=torch.float16)
    mask = torch.tensor([[True, False], [False, True]])
    for v in (torch.tensor(3.0), torch.tensor(3.0, dtype=torch.float64), torch.tensor([3])):
        out = s.clone().index_put_((mask,), v)
        assert out.dtype is torch.float16 and out.tolist() == [[3.0, 1.0], [2.0, 3.0]]
    assert s.index_put((mask,), torch.tensor(3.0)).tolist() == [[3.0, 1.0], [2.0, 3.0]]
    f64 = torch.zeros(2, 2, dtype=torch.float64).index_put_((mask,), torch.tensor(3.0))
    assert f64.tolist() == [[3.0, 0.0], [0.0, 3.0]]
    m = torch.tensor([True, False])
    assert torch.zeros(2, dtype=torch.long).index_put_((m,), torch.tensor(1.5)).tolist() == [1, 0]
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type c10::Half wi"):
        s.clone().index_put_((mask,), torch.tensor(1e6))
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type int8_t without"):
        torch.zeros(2, dtype=torch.int8).index_put_((m,), torch.tensor(1000))
    # not a masked fill: an integer index, two indices, or accumulate keep torch's dtype error
    msg = "Index put requires the source and destination dtypes match, got Half for the dest"
    with pytest.raises(RuntimeError, match=msg):
        s.clone().index_put_((torch.tensor([0]),), torch.tensor(3.0))
    msg = "got Float for the destination and Double for the source"
    with pytest.raises(RuntimeError, match=msg):
        torch.zeros(2).index_put_((m,), torch.tensor(2.5, dtype=torch.float64), accumulate=True)
    with pytest.raises(RuntimeError, match=msg):
        torch.zeros(2, 2).index_put_((m, m), torch.tensor(2.5, dtype=torch.float64))
    # gradients: the value's (float32) and self's (float64)
    x = torch.zeros(2, 2, dtype=torch.float64, requires_grad=True)
    v = torch.tensor(3.0, requires_grad=True)
    y = x.index_put((mask,), v)
    assert type(y.grad_fn).__name__ == "IndexPutBackward0"
    (y * torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0], [3.0, 0.0]]
    assert v.grad.dtype is torch.float32 and v.grad.item() == 5.0
