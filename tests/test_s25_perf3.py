"""grid_sample's forward and first-order backward on arrays (NOTE [ grid_sample on arrays ]):
values against a float64 NumPy reference, against the Tensor formula it replaces (_sample, still
the double-backward path), against torch's (literals), gradcheck and gradgradcheck, empty and
non-finite grids."""

import itertools
import math

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import engine, gradcheck, gradgradcheck
from minitorch.nn import _functional_vision as vision

F = torch.nn.functional
MODES = ("bilinear", "nearest", "bicubic")
PADS = ("zeros", "border", "reflection")
CASES_2D = list(itertools.product(MODES, PADS, (False, True)))
CASES_3D = list(itertools.product(("bilinear", "nearest"), PADS, (False, True)))


@pytest.fixture
def arrays_only(monkeypatch):
    """Refuses the Tensor formula: forward and a first-order backward must run on arrays."""

    def refuse(*args, **kwargs):
        raise AssertionError("grid_sample ran its Tensor formula")

    monkeypatch.setattr(vision, "_sample", refuse)
    return monkeypatch


# --- a float64 reference with plain loops (torch's documented math) ---


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return 0.0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    x = abs(x - low)
    extra = math.fmod(x, span)
    flips = math.floor(x / span)
    return extra + low if flips % 2 == 0 else span - extra + low


def _padded(c, size, pad, ac):
    if pad == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if ac else _reflect(c, -1, 2 * size - 1)
    if pad != "zeros":
        c = min(max(c, 0.0), size - 1.0)
    return c


def _cubic(t):
    a = -0.75
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a


def _ref(x, g, mode, pad, ac):
    N, C, *have = x.shape
    n = len(have)
    out = np.zeros((N, C) + g.shape[1:-1])
    for b in range(N):
        for pos in itertools.product(*[range(s) for s in g.shape[1:-1]]):
            raw = []
            for d in range(n):
                v, size = g[(b, *pos, n - 1 - d)], have[d]
                raw.append((v + 1) / 2 * (size - 1) if ac else ((v + 1) * size - 1) / 2)
            if mode == "bicubic":
                taps = []
                for c in raw:
                    lo = math.floor(c)
                    taps.append([(lo + k - 1, _cubic(c - (lo + k - 1))) for k in range(4)])
                taps = [
                    [(_padded(i, s, pad, ac), w) for i, w in t]
                    for t, s in zip(taps, have, strict=True)
                ]
            else:
                coords = [_padded(c, s, pad, ac) for c, s in zip(raw, have, strict=True)]
                if mode == "nearest":
                    taps = [[(float(np.rint(c)), 1.0)] for c in coords]
                else:
                    taps = [
                        [(math.floor(c), 1 - (c - math.floor(c))), (math.floor(c) + 1, c % 1)]
                        for c in coords
                    ]
            acc = np.zeros(C)
            for corner in itertools.product(*taps):
                idx = [int(i) for i, _ in corner]
                if all(0 <= i < s for i, s in zip(idx, have, strict=True)):
                    acc += x[(b, slice(None), *idx)] * math.prod(w for _, w in corner)
            out[(b, slice(None), *pos)] = acc
    return out


def _inputs(n, seed, lo=-1.3, hi=1.3, C=2):
    rng = np.random.default_rng(seed)
    have = (3, 4) if n == 2 else (2, 3, 4)
    out = (2, 3) if n == 2 else (2, 2, 3)
    x = rng.standard_normal((2, C) + have)
    g = rng.uniform(lo, hi, (2,) + out + (n,))
    return x, g, rng.standard_normal((2, C) + out)


ALL = [(2, *c) for c in CASES_2D] + [(3, *c) for c in CASES_3D]


@pytest.mark.parametrize("n,mode,pad,ac", ALL)
def test_forward_matches_loop_reference(arrays_only, n, mode, pad, ac):
    x, g, _ = _inputs(n, 1)
    got = F.grid_sample(torch.tensor(x), torch.tensor(g), mode, pad, ac).numpy()
    np.testing.assert_allclose(got, _ref(x, g, mode, pad, ac), rtol=1e-12, atol=1e-12)


def _run(x, g, go, mode, pad, ac, dtype):
    xt = torch.tensor(x, dtype=dtype, requires_grad=True)
    gt = torch.tensor(g, dtype=dtype, requires_grad=True)
    out = F.grid_sample(xt, gt, mode, pad, ac)
    out.backward(torch.tensor(go, dtype=dtype))
    return out, xt.grad.numpy(), gt.grad.numpy()


@pytest.mark.parametrize("n,mode,pad,ac", ALL)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_same_as_the_tensor_formula(monkeypatch, n, mode, pad, ac, dtype):
    """The output bit for bit, the gradients to float rounding, against _sample's graph (the
    code this replaced), on points outside, on pixel centres and far away."""
    x, g, go = _inputs(n, 2, lo=-2.5, hi=2.5, C=3)
    g[0, 0] = -1 + (2 * np.arange(n) + 1) / np.array((4, 3, 2)[-n:])  # pixel centres
    with monkeypatch.context() as m:
        m.setattr(vision, "_sample", None)  # (refused)
        out, gx, gg = _run(x, g, go, mode, pad, ac, dtype)
    assert type(out.grad_fn).__name__ == f"GridSampler{n}DBackward0"
    ref = vision._sample(torch.tensor(x, dtype=dtype), torch.tensor(g, dtype=dtype), mode, pad, ac)
    np.testing.assert_array_equal(out.detach().numpy(), ref.numpy())
    monkeypatch.setattr(engine, "DATA_BACKWARD", False)  # backward: the Tensor formula
    _, gx_ref, gg_ref = _run(x, g, go, mode, pad, ac, dtype)
    tol = 1e-12 if dtype is torch.float64 else 1e-5
    np.testing.assert_allclose(gx, gx_ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(gg, gg_ref, rtol=tol, atol=tol)


def test_many_channels_gather_rows(arrays_only):
    """From _ROWS_MIN channels the table is channels last: the same values."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, vision._ROWS_MIN + 1, 3, 4))
    g = rng.uniform(-1.2, 1.2, (2, 2, 3, 2))
    got = F.grid_sample(torch.tensor(x), torch.tensor(g), "bicubic", "zeros", False).numpy()
    np.testing.assert_allclose(got, _ref(x, g, "bicubic", "zeros", False), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n,mode,pad,ac", ALL)
def test_gradcheck_and_gradgradcheck(monkeypatch, n, mode, pad, ac):
    x, g, _ = _inputs(n, 4, lo=-1.2, hi=1.2)
    x = torch.tensor(x[:1, :1], requires_grad=True)
    g = torch.tensor(g[:1, :1], requires_grad=True)

    def f(a, b):
        return F.grid_sample(a, b, mode, pad, ac)

    with monkeypatch.context() as m:  # first order: the arrays' backward
        m.setattr(vision, "_sample", None)
        assert gradcheck(f, (x, g))
    assert gradgradcheck(f, (x, g))  # second order: the Tensor formula


NAN, INF = float("nan"), float("inf")
# torch 2.13 (CPU): input arange * 0.5 - 1 (1, 1, 3, 4) or (1, 1, 2, 3, 4), the grid below, a
# gradient of ones: (output, grad input, grad grid), flattened
NONFINITE = {
    (2, "bilinear", "zeros", False): (
        [NAN, NAN, NAN, NAN, 3.3499999999999996],
        [0, 0, 0, 0, 0, 0, 0.28000000000000014, 0.11999999999999997, 0, 0, 0.42000000000000004,
         0.17999999999999985],
        [0, NAN, 0, NAN, 0, NAN, NAN, 0, 1, 3],
    ),
    (2, "nearest", "border", True): (
        [1.0, 2.5, 3.0, 0.0, 2.0], [0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 0, 0], [0] * 10,
    ),
    (2, "nearest", "reflection", False): (
        [1.0, 1.0, 3.0, 0.0, 4.0], [0, 0, 1, 0, 2, 0, 0, 0, 1, 0, 1, 0], [0] * 10,
    ),
    (2, "bicubic", "zeros", False): (
        [NAN, NAN, NAN, NAN, 4.2213709999999995],
        [0, 0.007938000000000086, -0.059850000000000805, -0.023490000000000292, 0,
         -0.0507149999999999, 0.38237500000000024, 0.15007499999999996, 0, -0.0793799999999998,
         0.5985, 0.23489999999999978],
        [NAN] * 8 + [3.393419999999997, 3.3283012500000018],
    ),
    (2, "bicubic", "border", True): (
        [NAN, NAN, NAN, NAN, 3.0633749999999997],
        [NAN, NAN, NAN, NAN, NAN, -0.043739999999999744, 0.7047000000000002, NAN, NAN,
         -0.023570999999999846, 0.37975499999999984, NAN],
        [NAN] * 8 + [1.0181249999999962, 2.0399999999999996],
    ),
    (3, "bilinear", "zeros", False): (
        [0, 0, 0, 0, 3.9499999999999993],
        [0] * 6 + [0.2520000000000003, 0.10800000000000004, 0, 0, 0.3779999999999999,
         0.1619999999999998] + [0] * 6 + [0.028000000000000025, 0.012, 0, 0,
         0.041999999999999975, 0.017999999999999974],
        [0] * 12 + [1.0000000000000002, 3.0, 6.0],
    ),
    (3, "nearest", "zeros", True): ([0, 0, 0, 0, 2.0], [0] * 6 + [1.0] + [0] * 17, [0] * 15),
}  # fmt: skip


@pytest.mark.parametrize("key", list(NONFINITE))
def test_nonfinite_grid_matches_torch(arrays_only, key):
    n, mode, pad, ac = key
    if n == 2:
        x = torch.arange(12, dtype=torch.float64).reshape(1, 1, 3, 4) * 0.5 - 1
        g = [[[[NAN, 0.2], [INF, -0.3], [-INF, 0.5], [0.1, NAN], [0.4, 0.4]]]]
    else:
        x = torch.arange(24, dtype=torch.float64).reshape(1, 1, 2, 3, 4) * 0.5 - 1
        g = [[[[[NAN, 0.2, 0.1], [INF, -0.3, 0.0], [-INF, 0.5, 0.2], [0.1, 0.2, NAN],
                [0.4, 0.4, -0.4]]]]]  # fmt: skip
    x.requires_grad_(True)
    g = torch.tensor(g, dtype=torch.float64, requires_grad=True)
    out = F.grid_sample(x, g, mode, pad, ac)
    out.backward(torch.ones_like(out))
    got = (out.detach().reshape(-1), x.grad.reshape(-1), g.grad.reshape(-1))
    for name, a, b in zip(("output", "grad input", "grad grid"), got, NONFINITE[key], strict=True):
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-13, atol=1e-15, err_msg=name)


@pytest.mark.parametrize(
    "x_shape,g_shape",
    [
        ((0, 2, 3, 4), (0, 2, 2, 2)),
        ((2, 0, 3, 4), (2, 2, 2, 2)),
        ((2, 3, 3, 4), (2, 0, 5, 2)),
        ((2, 3, 3, 4), (2, 0, 0, 2)),
        ((2, 3, 2, 3, 4), (2, 0, 1, 1, 3)),
        ((0, 3, 2, 3, 4), (0, 1, 1, 1, 3)),
        ((2, 0, 2, 3, 4), (2, 1, 1, 1, 3)),
    ],
)
def test_empty_batch_channels_or_grid(arrays_only, x_shape, g_shape):
    # torch: output (N, C, *grid's), zero gradients of the inputs' shapes
    for mode in ("bilinear", "nearest", "bicubic")[: 3 if len(x_shape) == 4 else 2]:
        x = torch.ones(x_shape, requires_grad=True)
        g = torch.zeros(g_shape, requires_grad=True)
        out = F.grid_sample(x, g, mode, align_corners=False)
        assert tuple(out.shape) == x_shape[:2] + g_shape[1:-1]
        out.sum().backward()
        assert tuple(x.grad.shape) == x_shape and not x.grad.abs().sum().item()
        assert tuple(g.grad.shape) == g_shape and not g.grad.abs().sum().item()


def test_identity_affine_grid_theta_gradient(arrays_only):
    """A spatial transformer's first step: the identity grid's points sit on pixel centres,
    where the fused coordinate decides the floor; theta's gradient as torch's (literal, torch
    2.13)."""
    x = torch.arange(2 * 3 * 4, dtype=torch.float32).reshape(1, 2, 3, 4).sin()
    theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], requires_grad=True)
    grid = F.affine_grid(theta, (1, 2, 3, 4), align_corners=False)
    out = F.grid_sample(x, grid, align_corners=False)
    np.testing.assert_array_equal(out.detach().numpy(), x.numpy())
    out.pow(2).sum().backward()
    np.testing.assert_allclose(theta.grad.numpy(), THETA_GRAD, rtol=1e-5, atol=1e-6)


THETA_GRAD = [
    [
        [-5.4769110679626465, -4.020710468292236, -27.18840789794922],
        [4.573928356170654, -16.235355377197266, -23.108108520507812],
    ]
]


@pytest.mark.parametrize("mode,pad", [("bilinear", "reflection"), ("bicubic", "zeros")])
def test_on_every_device(arrays_only, device, mode, pad):
    """No host read and no host array in the arrays' path (the strict device refuses both)."""
    x, g, go = _inputs(2, 5)
    got = []
    for dev in ("cpu", device):
        xt = torch.tensor(x, device=dev, requires_grad=True)
        gt = torch.tensor(g, device=dev, requires_grad=True)
        out = F.grid_sample(xt, gt, mode, pad, False)
        out.backward(torch.tensor(go, device=dev))
        got.append([t.detach().cpu().numpy() for t in (out, xt.grad, gt.grad)])
    for a, b in zip(*got, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)


# --- conv_tbc: one product per kernel tap, as torch's kernel ---


def _tbc_ref(x, w, b, pad):
    T, B, _ = x.shape
    K = w.shape[0]
    t_out = T + 2 * pad - K + 1
    out = np.broadcast_to(b, (t_out, B, w.shape[2])).copy()
    for t in range(t_out):
        for k in range(K):
            if 0 <= t + k - pad < T:
                out[t] += x[t + k - pad] @ w[k]
    return out


@pytest.mark.parametrize(
    "T,K,pad", [(6, 3, 0), (6, 3, 1), (6, 3, 2), (5, 3, -1), (2, 3, 0), (4, 1, 0), (3, 0, 0)]
)
def test_conv_tbc_values_node_and_grads(T, K, pad):
    rng = np.random.default_rng(6)
    x = torch.tensor(rng.standard_normal((T, 2, 3)), requires_grad=True)
    w = torch.tensor(rng.standard_normal((K, 3, 4)), requires_grad=True)
    b = torch.tensor(rng.standard_normal(4), requires_grad=True)
    out = F.conv_tbc(x, w, b, pad)
    assert type(out.grad_fn).__name__ == "ConvTbcBackward0"  # torch's node
    want = _tbc_ref(x.detach().numpy(), w.detach().numpy(), b.detach().numpy(), pad)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12, atol=1e-12)
    if out.numel() and K:
        assert gradcheck(lambda *a: F.conv_tbc(*a, pad), (x, w, b))
        assert gradgradcheck(lambda *a: F.conv_tbc(*a, pad), (x, w, b))


def test_conv_tbc_errors_and_dtypes():
    x, w, b = torch.ones(2, 2, 3), torch.ones(3, 3, 4), torch.ones(4)
    with pytest.raises(RuntimeError) as e:
        F.conv_tbc(x, w, b, -1)
    assert str(e.value) == "Trying to create tensor with negative dimension -2: [-2, 2, 4]"
    with pytest.raises(RuntimeError) as e:
        F.conv_tbc(x.double(), w, b, 1)
    assert str(e.value) == "self and mat2 must have the same dtype, but got Double and Float"
    # torch: a float64 bias gives a float32 output and a float64 bias gradient
    b64 = torch.ones(4, dtype=torch.float64, requires_grad=True)
    out = F.conv_tbc(x, w, b64, 1)
    assert out.dtype is torch.float32
    out.sum().backward()
    assert b64.grad.dtype is torch.float64
    assert b64.grad.tolist() == [4.0] * 4
