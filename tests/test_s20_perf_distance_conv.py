"""Faster kernels for pdist, cdist (torch's matrix-product route), 2-D embedding_bag and depthwise
convolution: values vs torch (literals obtained from torch 2.13), gradients, and the new paths."""

import numpy as np
import pytest

import minitorch as torch
import minitorch._ops.conv as conv
from minitorch._ops.distance import (
    CityBlockDistance,
    PairCombine,
    PairDot,
    PairwiseDistance2,
    SignDot,
    SignSum,
)
from minitorch.autograd import gradcheck, gradgradcheck

F = torch.nn.functional


# --- pdist ---


def test_pdist_p2_values_and_grad_at_equal_rows(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("pdist should not gather its pairs")

    monkeypatch.setattr(torch.Tensor, "__getitem__", refuse)
    x = torch.tensor(
        [[0.0, 1.0, 2.0], [1.0, 1.0, 0.0], [0.0, 1.0, 2.0], [3.0, -1.0, 0.5]],
        dtype=torch.float64,
        requires_grad=True,
    )
    d = F.pdist(x)
    assert type(d.grad_fn).__name__ == "PdistBackward0"
    want = [2.23606797749979, 0.0, 3.905124837953327, 2.23606797749979, 2.8722813232690143]
    np.testing.assert_allclose(d.detach().numpy()[:5], want, rtol=1e-15)
    (g,) = torch.autograd.grad(d, x, torch.arange(1.0, 7.0, dtype=torch.float64))
    want_g = [
        [-2.7518774342920853, 1.5364425591947517, 2.0467591103959797],
        [-1.245485141614167, 3.481553119113957, -5.342524234778069],
        [-6.398182059584086, 3.0728851183895034, 5.882372602791791],
        [10.395544635490339, -8.090880796698212, -2.586607478409702],
    ]
    np.testing.assert_allclose(g.numpy(), want_g, rtol=1e-14)


def test_pdist_blocks_match_the_gathered_pairs():
    # more rows than one block holds: the blocks' pairs in pdist's order, the same digits as
    # differences gathered pair by pair
    from minitorch._ops import distance

    rng = np.random.default_rng(0)
    a = rng.standard_normal((70, 5)).astype(np.float32)
    old_block = distance._BLOCK
    distance._BLOCK = 64  # a few rows per block
    try:
        got = F.pdist(torch.tensor(a)).numpy()
    finally:
        distance._BLOCK = old_block
    i, j = np.triu_indices(70, 1)
    diff = a[i] - a[j]
    np.testing.assert_array_equal(got, np.sqrt((diff * diff).sum(1, dtype=np.float32)))


@pytest.mark.parametrize("shape", [(5, 3), (4, 1), (6, 2)])
def test_pdist_p2_gradgradcheck(shape):
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.standard_normal(shape), requires_grad=True)
    assert gradcheck(F.pdist, (x,))
    assert gradgradcheck(F.pdist, (x,))
    # the gradient's kernels, whose backwards are each other
    n = shape[0] * (shape[0] - 1) // 2
    w = torch.tensor(rng.standard_normal(n), requires_grad=True)
    y = torch.tensor(rng.standard_normal(shape), requires_grad=True)
    assert gradgradcheck(PairCombine.apply, (w, x))
    assert gradgradcheck(PairDot.apply, (x, y))


def test_pdist_p2_runs_the_block_kernel():
    x = torch.tensor([[0.0, 3.0], [4.0, 0.0], [4.0, 0.0]], dtype=torch.float64)
    assert PairwiseDistance2.apply(x).tolist() == [5.0, 5.0, 0.0]


# --- cdist ---


def test_cdist_takes_torchs_matmul_route_over_25_rows():
    a = torch.tensor([[0.0, 1.0], [2.0, 0.5]] * 15, dtype=torch.float64, requires_grad=True)
    c = torch.tensor([[1.0, 1.0], [0.0, 0.0]], dtype=torch.float64, requires_grad=True)
    r = torch.cdist(a, c)
    assert type(r.grad_fn).__name__ == "ViewBackward0"
    assert type(r.grad_fn.next_functions[0][0]).__name__ == "EuclideanDistBackward0"
    np.testing.assert_allclose(
        r[:2].detach().numpy(), [[1.0, 1.0], [1.118033988749895, 2.0615528128088303]], rtol=1e-15
    )
    direct = torch.cdist(a, c, compute_mode="donot_use_mm_for_euclid_dist")
    assert type(direct.grad_fn).__name__ == "CdistBackward0"
    small = torch.cdist(a[:3], c)
    assert type(small.grad_fn).__name__ == "CdistBackward0"
    forced = torch.cdist(a[:3], c, compute_mode="use_mm_for_euclid_dist")
    assert type(forced.grad_fn).__name__ == "ViewBackward0"


def test_cdist_matmul_route_gradients():
    rng = np.random.default_rng(2)
    x = torch.tensor(rng.standard_normal((27, 3)), requires_grad=True)
    y = torch.tensor(rng.standard_normal((2, 4, 3)), requires_grad=True)
    assert gradcheck(torch.cdist, (x, y))
    assert gradgradcheck(torch.cdist, (x, y))
    # torch's subgradient where the distance is exactly 0: no gradient from that pair
    z = torch.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=torch.float64, requires_grad=True)
    d = torch.cdist(z, z.detach(), compute_mode="use_mm_for_euclid_dist")
    (g,) = torch.autograd.grad(d, z, torch.eye(2, dtype=torch.float64))
    assert g.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_cdist_p1_blocks_values_and_torchs_gradient():
    nan = float("nan")
    a = torch.tensor([[0.0, 1.0], [2.0, nan], [1.0, 1.0]], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([[1.0, 1.0], [0.0, 3.0]], dtype=torch.float64, requires_grad=True)
    d = torch.cdist(a, b, p=1)
    np.testing.assert_array_equal(d.detach().numpy(), [[1.0, 2.0], [nan, nan], [0.0, 3.0]])
    g = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float64)
    ga, gb = torch.autograd.grad(d, (a, b), g)
    # torch's NaN pattern: a NaN coordinate spoils its own column only
    np.testing.assert_array_equal(ga.numpy(), [[-1.0, -2.0], [7.0, nan], [6.0, -6.0]])
    np.testing.assert_array_equal(gb.numpy(), [[-2.0, nan], [-10.0, nan]])


def test_cdist_p1_gradgradcheck():
    rng = np.random.default_rng(5)
    x = torch.tensor(rng.standard_normal((2, 4, 3)), requires_grad=True)
    y = torch.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    f = lambda a, b: torch.cdist(a, b, p=1)  # noqa: E731
    assert gradcheck(f, (x, y))
    assert gradgradcheck(f, (x, y))
    g = torch.tensor(rng.standard_normal((4, 5)), requires_grad=True)
    h = torch.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    assert gradgradcheck(lambda g: SignSum.apply(g, x[0].detach(), y.detach()), (g,))
    assert gradgradcheck(lambda h: SignDot.apply(h, x[0].detach(), y.detach()), (h,))
    assert CityBlockDistance.apply(x[0], y).shape == (4, 5)


# --- embedding_bag ---


def test_embedding_bag_2d_sums_rows_without_scatter(monkeypatch):
    w = torch.tensor((np.arange(12.0) / 4).reshape(6, 2), requires_grad=True)
    idx = torch.tensor([[0, 5, 5], [2, 1, 3]])

    def refuse(*args, **kwargs):
        raise AssertionError("2-D bags should not scatter")

    monkeypatch.setattr(torch.Tensor, "index_add", refuse)
    out = F.embedding_bag(idx, w, mode="mean", padding_idx=5)
    assert out.tolist() == [[0.0, 0.25], [1.0, 1.25]]
    (g,) = torch.autograd.grad(out, w, torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64))
    want = [[1.0, 2.0], [1.0, 4 / 3], [1.0, 4 / 3], [1.0, 4 / 3], [0.0, 0.0], [0.0, 0.0]]
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-15)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_2d_gradgradcheck(monkeypatch, mode):
    def refuse(*args, **kwargs):
        raise AssertionError("2-D bags should not scatter")

    monkeypatch.setattr(torch.Tensor, "index_add", refuse)
    rng = np.random.default_rng(3)
    w = torch.tensor(rng.standard_normal((6, 3)), requires_grad=True)
    idx = torch.tensor(rng.integers(0, 6, (4, 3)))
    f = lambda w: F.embedding_bag(idx, w, mode=mode, padding_idx=1)  # noqa: E731
    assert gradcheck(f, (w,))
    assert gradgradcheck(f, (w,))


# --- depthwise convolution ---

_Y0 = [
    [-1.875, -2.375, -2.375, -1.5, -0.25],
    [-0.5, 0.625, 0.5, -1.375, -1.625],
    [-1.75, -2.5, -1.75, -0.125, 0.0],
    [-0.375, 0.5, -1.375, -2.375, -1.875],
    [-1.25, -1.375, -1.125, 0.0, -0.5],
]
_GX = [
    [0.0, 1.0, -0.25, 0.0],
    [-0.25, 0.0, 1.0, -0.25],
    [1.0, -0.25, 0.0, 1.0],
    [0.0, 1.0, -0.25, 0.0],
    [-1.5, -0.75, 0.0, -1.5],
]
_GX_STRIDED = [
    [0.0, 0.0, 0.0, 0.0],
    [0.25, 0.0, 0.75, 0.0],
    [0.0, 0.0, -0.75, 0.0],
    [0.25, 0.0, 1.75, 0.0],
    [0.0, 0.0, -1.5, 0.0],
]


@pytest.mark.parametrize(
    "kw, y0, gx",
    [
        (dict(padding=1, groups=2), _Y0, _GX),
        (
            dict(stride=2, padding=(1, 0), dilation=(1, 2), groups=2),
            [[-2.25], [-1.5], [-1.125]],
            _GX_STRIDED,
        ),
    ],
)
def test_depthwise_conv2d_by_taps(monkeypatch, kw, y0, gx):
    def refuse(*args, **kwargs):
        raise AssertionError("a depthwise convolution should not build columns")

    monkeypatch.setattr(conv, "_columns_cm", refuse)
    monkeypatch.setattr(conv, "_channel_major", refuse)
    x = torch.tensor((np.arange(80.0).reshape(2, 2, 5, 4) % 7 - 3) / 2, requires_grad=True)
    w = torch.tensor((np.arange(24.0).reshape(4, 1, 3, 2) % 5 - 2) / 4, requires_grad=True)
    b = torch.tensor([0.5, -1.0, 0.25, 2.0], dtype=torch.float64)
    y = F.conv2d(x, w, b, **kw)
    assert y.is_contiguous()
    np.testing.assert_allclose(y[0, 1].detach().numpy(), y0, rtol=1e-15, atol=1e-15)
    gy = torch.arange(y.numel(), dtype=torch.float64).reshape(y.shape) % 3
    gx_got, _ = torch.autograd.grad(y, (x, w), gy)
    np.testing.assert_allclose(gx_got[1, 1].numpy(), gx, rtol=1e-15, atol=1e-15)


def test_depthwise_conv_gradgradcheck(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a depthwise convolution should not build columns")

    monkeypatch.setattr(conv, "_columns_cm", refuse)
    monkeypatch.setattr(conv, "_channel_major", refuse)
    rng = np.random.default_rng(4)
    x = torch.tensor(rng.standard_normal((2, 3, 6, 5)), requires_grad=True)
    w = torch.tensor(rng.standard_normal((6, 1, 3, 2)), requires_grad=True)
    b = torch.tensor(rng.standard_normal(6), requires_grad=True)
    f = lambda x, w, b: F.conv2d(  # noqa: E731
        x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=3
    )
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))
    x1 = torch.tensor(rng.standard_normal((2, 2, 7)), requires_grad=True)
    w1 = torch.tensor(rng.standard_normal((4, 1, 3)), requires_grad=True)
    g = lambda x, w: F.conv1d(x, w, padding=2, dilation=2, groups=2)  # noqa: E731
    assert gradcheck(g, (x1, w1))
    assert gradgradcheck(g, (x1, w1))


def test_depthwise_half_matches_torch(monkeypatch):
    monkeypatch.setattr(conv, "_columns_cm", None)  # the taps route only
    # torch's float16 depthwise conv: summed in float32, rounded once (its digits)
    x = torch.tensor([[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]], dtype=torch.float16).repeat(1, 2, 1, 1)
    w = torch.tensor([[[[0.1, 0.2]]], [[[0.3, -0.7]]]], dtype=torch.float16)
    y = F.conv2d(x * 1.1, w, groups=2)
    assert y.dtype is torch.float16
    assert y.float().tolist() == [
        [
            [[0.5498046875, 0.8798828125], [1.5390625, 1.8701171875]],
            [[-1.2099609375, -1.6513671875], [-2.53125, -2.97265625]],
        ]
    ]


def test_depthwise_transpose_stride1_and_an_infinite_weight():
    # the stride-1 route (a correlation with the flipped kernel) and, for a weight with an inf,
    # the taps' scatter, which multiplies no padding by it (torch's 7.0, not NaN, at the end)
    x = torch.tensor([[[1.0, 2.0, 3.0], [1.0, -1.0, 2.0]]], dtype=torch.float64)
    w = torch.tensor([[[3.0, 1.0, 2.0]], [[0.5, 1.0, -1.0]]], dtype=torch.float64)
    y = F.conv_transpose1d(x, w, padding=1, groups=2)
    assert y.tolist() == [[[7.0, 13.0, 7.0], [0.5, -1.0, 3.0]]]
    w_inf = torch.tensor([[[float("inf"), 1.0, 2.0]], [[0.5, 1.0, -1.0]]], dtype=torch.float64)
    y = F.conv_transpose1d(x, w_inf, padding=1, groups=2)
    assert y.tolist() == [[[float("inf"), float("inf"), 7.0], [0.5, -1.0, 3.0]]]
