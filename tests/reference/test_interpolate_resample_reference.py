"""interpolate's separable resampler against torch: uint8 bilinear/bicubic (with and without
antialias) bit for bit, antialiased float32/float64 outputs and input gradients, node names and
errors, over seeded random shapes, sizes, scale factors and align_corners."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _cases(seed: int, n: int, channels: tuple):
    """n (shape, kw) cases: random sizes 1..19, up- and down-sampling, size or scale_factor.
    Left out, as torch's CPU kernels are wrong there: an output width of 1 with a height that
    changes (torch repeats the first output row), and for gradients a scale_factor that leaves
    a dim's size unchanged (torch's forward copies the dim, its backward resamples it)."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < n:
        i = len(cases)
        shape = (2, int(rng.choice(channels)), *(int(v) for v in rng.integers(1, 20, 2)))
        kw = dict(mode=("bilinear", "bicubic")[i % 2], align_corners=bool(rng.integers(2)))
        if rng.integers(2):
            kw["scale_factor"] = tuple(float(f) for f in rng.uniform(0.15, 3.0, 2).round(3))
            size = [math.floor(L * f) for L, f in zip(shape[2:], kw["scale_factor"], strict=True)]
            if any(o == L for o, L in zip(size, shape[2:], strict=True)):
                continue
        else:
            size = [int(v) for v in rng.integers(1, 25, 2)]
            kw["size"] = tuple(size)
        if min(size) < 1 or (size[1] == 1 and size[0] != shape[2]):
            continue
        cases.append((shape, kw))
    return cases


def _id(case):
    shape, kw = case
    return "-".join([str(shape)] + [f"{k}={v}" for k, v in kw.items()])


# strong downsampling: wide antialias windows
BIG_DOWN = [
    ((1, 3, 64, 48), dict(mode="bicubic", align_corners=False, size=(7, 5))),
    ((1, 5, 50, 37), dict(mode="bilinear", align_corners=True, scale_factor=(0.13, 0.2))),
]
# 1 and 3 channels take torch's AVX2 uint8 kernel, 5 its generic one
UINT8_CASES = _cases(0, 22, (1, 3, 5)) + BIG_DOWN
FLOAT_CASES = _cases(1, 18, (1, 3)) + BIG_DOWN


@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("case", UINT8_CASES, ids=_id)
def test_uint8_matches_torch_exactly(case, antialias):
    shape, kw = case
    x = np.random.default_rng(7).integers(0, 256, shape).astype(np.uint8)
    expected = TF.interpolate(torch.from_numpy(x), antialias=antialias, **kw).numpy()
    out = F.interpolate(minitorch.tensor(x), antialias=antialias, **kw)
    assert out.dtype == minitorch.uint8
    np.testing.assert_array_equal(out.numpy(), expected, err_msg=f"{shape} {kw}")


@pytest.mark.parametrize("dtype, tol", [("float64", 1e-12), ("float32", 1e-5)])
@pytest.mark.parametrize("case", FLOAT_CASES, ids=_id)
def test_antialias_output_and_gradient_match_torch(case, dtype, tol):
    shape, kw = case
    rng = np.random.default_rng(8)
    x = rng.standard_normal(shape)
    tx = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
    expected = TF.interpolate(tx, antialias=True, **kw)
    g = rng.standard_normal(tuple(expected.shape))
    expected.backward(torch.tensor(g, dtype=tx.dtype))
    mx = minitorch.tensor(x, dtype=getattr(minitorch, dtype), requires_grad=True)
    out = F.interpolate(mx, antialias=True, **kw)
    assert out.dtype == mx.dtype
    assert type(out.grad_fn).__name__ == type(expected.grad_fn).__name__
    out.backward(minitorch.tensor(g, dtype=out.dtype))
    np.testing.assert_allclose(
        out.detach().numpy(), expected.detach().numpy(), rtol=tol, atol=tol, err_msg="output"
    )
    np.testing.assert_allclose(
        mx.grad.numpy(), tx.grad.numpy(), rtol=tol, atol=tol, err_msg="input gradient"
    )


@pytest.mark.parametrize(
    "shape, mode",
    [((1, 2, 5, 5), "nearest"), ((1, 2, 5, 5), "area"), ((1, 2, 5), "linear"),
     ((1, 2, 5), "bilinear"), ((1, 2, 5, 5, 5), "bicubic"), ((2, 5, 5), "bilinear")],
)  # fmt: skip
def test_antialias_refused_like_torch(shape, mode):
    x = np.zeros(shape, dtype=np.float32)
    with pytest.raises(ValueError) as theirs:
        TF.interpolate(torch.from_numpy(x), size=3, mode=mode, antialias=True)
    with pytest.raises(ValueError) as ours:
        F.interpolate(minitorch.tensor(x), size=3, mode=mode, antialias=True)
    assert str(ours.value) == str(theirs.value)  # (lanczos is implemented since session 25)
