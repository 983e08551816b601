"""interpolate's separable resampler (antialias=True, and uint8 bilinear/bicubic): torch's uint8
values, constants kept, weights summing to one, gradients, node names and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn import _functional_interpolate as interp


def _np(t):
    return t.detach().cpu().numpy()


def _ramp():
    """torch.arange(16, dtype=uint8).reshape(1, 1, 4, 4) * 10."""
    return (np.arange(16, dtype=np.uint8) * 10).reshape(1, 1, 4, 4)


# torch 2.13's values for _ramp() (its CPU uint8 kernels)
UINT8_CASES = [
    (
        dict(size=(6, 6), mode="bilinear"),
        [
            [0, 5, 12, 18, 25, 30],
            [20, 25, 32, 38, 45, 50],
            [47, 52, 59, 65, 72, 77],
            [73, 78, 85, 91, 98, 103],
            [100, 105, 112, 118, 125, 130],
            [120, 125, 132, 138, 145, 150],
        ],
    ),
    (
        dict(size=(6, 6), mode="bicubic"),
        [
            [0, 1, 9, 15, 23, 28],
            [16, 20, 28, 34, 42, 47],
            [47, 53, 61, 67, 75, 80],
            [70, 75, 83, 89, 97, 102],
            [103, 108, 116, 122, 130, 135],
            [122, 127, 135, 141, 149, 154],
        ],
    ),
    (
        dict(size=(6, 6), mode="bicubic", align_corners=True),
        [
            [0, 5, 12, 18, 25, 30],
            [20, 25, 32, 38, 45, 50],
            [50, 55, 62, 68, 75, 80],
            [70, 75, 82, 88, 95, 100],
            [100, 105, 112, 118, 125, 130],
            [120, 125, 132, 138, 145, 150],
        ],
    ),
    (dict(size=(3, 2), mode="bilinear", antialias=True), [[19, 35], [67, 83], [115, 131]]),
    (dict(size=(3, 2), mode="bicubic", antialias=True), [[14, 32], [66, 84], [118, 136]]),
]


@pytest.mark.parametrize("kw, expected", UINT8_CASES)
def test_uint8_matches_torch_values(kw, expected, device):
    out = F.interpolate(mt.tensor(_ramp(), device=device), **kw)
    assert out.dtype == mt.uint8
    np.testing.assert_array_equal(_np(out)[0, 0], np.array(expected), err_msg=str(kw))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align", [False, True])
def test_antialias_keeps_a_constant(mode, align, device):
    x = np.full((2, 3, 17, 23), 0.75)
    out = F.interpolate(
        mt.tensor(x, device=device), size=(5, 7), mode=mode, align_corners=align, antialias=True
    )
    assert out.shape == (2, 3, 5, 7)
    np.testing.assert_allclose(_np(out), 0.75, rtol=1e-13, err_msg=f"{mode} {align}")
    u8 = F.interpolate(
        mt.tensor(np.full((1, 3, 40, 9), 201, np.uint8), device=device),
        scale_factor=(0.3, 0.5),
        mode=mode,
        align_corners=align,
        antialias=True,
    )
    np.testing.assert_array_equal(_np(u8), 201, err_msg=f"{mode} {align} uint8")


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("L, o", [(17, 5), (5, 17), (9, 1), (1, 4), (30, 7)])
def test_window_weights_sum_to_one(mode, antialias, align, L, o):
    rows, w_max = interp._window_taps(L, o, None, align, mode, antialias)
    assert len(rows) == o
    for i, (xmin, w) in enumerate(rows):
        assert 0 <= xmin and xmin + len(w) <= L, (i, xmin, len(w))
        np.testing.assert_allclose(sum(w), 1.0, rtol=1e-14, err_msg=f"row {i}")
    assert w_max == max(max(w) for _, w in rows)
    fixed, prec = interp._fixed_point(rows, w_max)
    assert max(max(w) for _, w in fixed) < 2**15 <= round(w_max * 2 ** (prec + 1))
    # the taps the resampler sums have the same rows, inside the input
    idx, val = interp._window_taps_tensors(rows, mt.float64, mt.zeros(1))
    np.testing.assert_allclose(_np(val).sum(1), 1.0, rtol=1e-14)
    assert 0 <= _np(idx).min() and _np(idx).max() < L


def test_uint8_bicubic_clamped_taps_sum_to_one():
    for L, o, align in [(4, 6, False), (4, 6, True), (7, 3, False), (1, 5, False)]:
        rows, _ = interp._cubic_clamped_taps(L, o, None, align)
        for xmin, w in rows:
            assert 0 <= xmin and xmin + len(w) <= L
            np.testing.assert_allclose(sum(w), 1.0, rtol=1e-14)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize(
    "kw",
    [
        dict(size=(2, 3)),  # down in both dims
        dict(size=(5, 2), align_corners=True),  # up in H, down in W
        dict(scale_factor=(0.6, 1.7)),
        dict(size=(4, 3)),  # W unchanged: skipped
    ],
)
def test_antialias_gradcheck_and_gradgradcheck(mode, kw):
    x = mt.tensor(np.random.default_rng(3).standard_normal((1, 2, 4, 3)), requires_grad=True)

    def f(a):
        return F.interpolate(a, mode=mode, antialias=True, **kw)

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_node_name_and_shapes(mode):
    x = mt.randn(2, 3, 8, 9, requires_grad=True)
    out = F.interpolate(x, size=(3, 4), mode=mode, antialias=True)
    assert out.shape == (2, 3, 3, 4) and out.dtype == mt.float32
    assert type(out.grad_fn).__name__ == f"Upsample{mode.capitalize()}2DAaBackward0"
    same = F.interpolate(x, size=(8, 9), mode=mode, antialias=True)  # a copy, as torch
    assert same is not x and type(same.grad_fn).__name__.endswith("2DAaBackward0")
    np.testing.assert_array_equal(_np(same), _np(x))


def test_antialias_output_width_one_matches_transposed_input():
    """torch's CPU kernel repeats the first row here; the resampler is separable and must
    give the transposed result of the transposed problem."""
    x = np.random.default_rng(4).standard_normal((1, 2, 6, 1))
    tall = F.interpolate(mt.tensor(x), size=(9, 1), mode="bilinear", antialias=True)
    wide = F.interpolate(mt.tensor(x.swapaxes(2, 3)), size=(1, 9), mode="bilinear", antialias=True)
    np.testing.assert_allclose(_np(tall), _np(wide).swapaxes(2, 3), rtol=1e-14)


@pytest.mark.parametrize("dt", [mt.float16, mt.bfloat16])
def test_antialias_half_types_round_once(dt):
    # (torch's CPU kernel refuses half types; its CUDA kernel computes in float32 and rounds)
    x = np.random.default_rng(5).standard_normal((1, 2, 9, 7)).astype(np.float32)
    xh = mt.tensor(x, device="strict").to(dt)
    out = F.interpolate(xh, size=(4, 3), mode="bicubic", antialias=True)
    assert out.dtype == dt
    ref = F.interpolate(xh.float(), size=(4, 3), mode="bicubic", antialias=True).to(dt)
    np.testing.assert_array_equal(_np(out.float()), _np(ref.float()))


def test_antialias_under_autocast_keeps_float32():
    x = mt.tensor(np.random.default_rng(6).standard_normal((1, 1, 8, 8)).astype(np.float32))
    plain = F.interpolate(x, size=(3, 3), mode="bilinear", antialias=True)
    with mt.autocast("cpu", dtype=mt.bfloat16):
        out = F.interpolate(x, size=(3, 3), mode="bilinear", antialias=True)
    assert out.dtype == mt.float32
    np.testing.assert_array_equal(_np(out), _np(plain))


@pytest.mark.parametrize(
    "shape, kw",
    [
        ((1, 2, 5, 5), dict(mode="nearest")),
        ((1, 2, 5, 5), dict(mode="area")),
        ((1, 2, 5), dict(mode="linear")),
        ((1, 2, 5), dict(mode="bilinear")),
        ((1, 2, 5, 5, 5), dict(mode="trilinear")),
        ((1, 2, 5, 5, 5), dict(mode="bicubic")),
    ],
)
def test_antialias_modes_and_ranks_torch_refuses(shape, kw):
    with pytest.raises(ValueError, match="Anti-alias option is restricted to bilinear"):
        F.interpolate(mt.randn(*shape), size=3, antialias=True, **kw)


def test_antialias_integer_input_not_implemented():
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.interpolate(mt.ones(1, 1, 4, 4, dtype=mt.int64), size=2, mode="bilinear", antialias=True)
