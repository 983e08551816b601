"""Speed fixes of session 20 (F2): F.pad's reflect/replicate/circular modes as slice copies,
batch_norm's channel sums of a 2-d input, repeat_interleave with a tensor of repeats, and
lstsq's one SVD. Expected values are literals from torch 2.13 (CPU) or NumPy's references."""

import numpy as np
import pytest

import minitorch as mt
from minitorch._ops import linalg_factor, linalg_matfn
from minitorch._ops.reduction import _gemv_sum
from minitorch.autograd import gradcheck, gradgradcheck

F = mt.nn.functional
MODES = ("reflect", "replicate", "circular")
NP_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


# --- pad ---


def test_pad_values_and_grads_1d_literals():
    x = mt.arange(4.0, dtype=mt.float64).reshape(1, 1, 4).requires_grad_()
    g = mt.arange(9.0, dtype=mt.float64).reshape(1, 1, 9)
    expect = {
        "reflect": ([3, 2, 1, 0, 1, 2, 3, 2, 1], [3, 14, 13, 6]),
        "replicate": ([0, 0, 0, 0, 1, 2, 3, 3, 3], [6, 4, 5, 21]),
        "circular": ([1, 2, 3, 0, 1, 2, 3, 0, 1], [10, 12, 6, 8]),
    }
    for mode, (want_y, want_g) in expect.items():
        y = F.pad(x, (3, 2), mode=mode)
        (gx,) = mt.autograd.grad(y, x, g)
        np.testing.assert_array_equal(y.detach().numpy().ravel(), want_y, err_msg=mode)
        np.testing.assert_array_equal(gx.numpy().ravel(), want_g, err_msg=mode)


def test_pad_values_and_grads_2d_literals():
    x = mt.arange(6.0).reshape(1, 2, 3).requires_grad_()
    expect = {
        "reflect": (
            [[5, 4, 3, 4, 5, 4], [2, 1, 0, 1, 2, 1], [5, 4, 3, 4, 5, 4], [2, 1, 0, 1, 2, 1]],
            [[28, 90, 56], [16, 54, 32]],
        ),
        "replicate": (
            [[0, 0, 0, 1, 2, 2], [0, 0, 0, 1, 2, 2], [3, 3, 3, 4, 5, 5], [3, 3, 3, 4, 5, 5]],
            [[24, 12, 30], [96, 36, 78]],
        ),
        "circular": (
            [[4, 5, 3, 4, 5, 3], [1, 2, 0, 1, 2, 0], [4, 5, 3, 4, 5, 3], [1, 2, 0, 1, 2, 0]],
            [[62, 54, 58], [38, 30, 34]],
        ),
    }
    for mode, (want_y, want_g) in expect.items():
        y = F.pad(x, (2, 1, 1, 1), mode=mode)
        g = mt.arange(float(y.numel())).reshape(y.shape)
        (gx,) = mt.autograd.grad(y, x, g)
        np.testing.assert_array_equal(y.detach().numpy()[0], want_y, err_msg=mode)
        np.testing.assert_array_equal(gx.numpy()[0], want_g, err_msg=mode)


def test_pad_negative_pads_crop_literals():
    x = mt.arange(5.0).reshape(1, 1, 5).requires_grad_()
    expect = {
        "reflect": ([2, 3, 4, 3, 2, 1], [0, 5, 4, 4, 2]),
        "replicate": ([2, 3, 4, 4, 4, 4], [0, 0, 0, 1, 14]),
        "circular": ([2, 3, 4, 2, 3, 4], [0, 0, 3, 5, 7]),
    }
    for mode, (want_y, want_g) in expect.items():
        y = F.pad(x, (-2, 3), mode=mode)
        (gx,) = mt.autograd.grad(y, x, mt.arange(6.0).reshape(1, 1, 6))
        np.testing.assert_array_equal(y.detach().numpy().ravel(), want_y, err_msg=mode)
        np.testing.assert_array_equal(gx.numpy().ravel(), want_g, err_msg=mode)
    y = F.pad(x.detach(), (3, -1), mode="reflect")
    np.testing.assert_array_equal(y.numpy().ravel(), [3, 2, 1, 0, 1, 2, 3])


@pytest.mark.parametrize("mode", MODES)
def test_pad_matches_numpy_pad_3d_batched_and_unbatched(mode):
    # (2, 3, 9, 10, 11): big enough for the whole-array path; NumPy's pad modes are torch's
    rng = np.random.default_rng(0)
    for shape in ((2, 3, 9, 10, 11), (3, 9, 10, 11)):
        x = rng.standard_normal(shape).astype(np.float32)
        pads = (2, 3, 1, 4, 3, 0)
        want = np.pad(x, [(0, 0)] * (x.ndim - 3) + [(3, 0), (1, 4), (2, 3)], NP_MODES[mode])
        got = F.pad(mt.from_numpy(x), pads, mode=mode).numpy()
        np.testing.assert_array_equal(got, want, err_msg=f"{mode} {shape}")
        assert got.flags.c_contiguous


def test_pad_half_gradient_sums_in_output_order():
    # torch adds the copies' gradients one at a time in float16, first copy first
    x = mt.zeros(1, 1, 2, dtype=mt.float16, requires_grad=True)
    cases = [
        ((3, 0), [2048.0, 1.0, 1.0, 1.0, 0.0], [2048.0, 0.0]),
        ((3, 0), [1.0, 1.0, 1.0, 2048.0, 0.0], [2052.0, 0.0]),
        ((0, 3), [0.0, 2048.0, 1.0, 1.0, 1.0], [0.0, 2048.0]),
    ]
    for pads, g, want in cases:
        y = F.pad(x, pads, mode="replicate")
        (gx,) = mt.autograd.grad(y, x, mt.tensor([[g]], dtype=mt.float16))
        np.testing.assert_array_equal(gx.numpy().ravel(), want, err_msg=str(g))


@pytest.mark.parametrize("mode", MODES)
def test_pad_negative_zero_gradient_sums_to_zero(mode):
    x = mt.zeros(1, 1, 3, requires_grad=True)
    y = F.pad(x, (2, 1), mode=mode)
    (gx,) = mt.autograd.grad(y, x, mt.full_like(y, -0.0))
    assert not np.signbit(gx.numpy()).any()  # torch: 0.0, the sum starts from zero


@pytest.mark.parametrize("mode", ("reflect", "replicate"))
def test_pad_bfloat16_records_its_node(mode):
    x = mt.randn(2, 3, 4).to(mt.bfloat16).requires_grad_()
    y = F.pad(x, (2, 3), mode=mode)
    assert y.requires_grad
    assert y.grad_fn.name() == (
        "ReflectionPad1DBackward0" if mode == "reflect" else "ReplicationPad1DBackward0"
    )
    (gx,) = mt.autograd.grad(y, x, mt.ones_like(y))
    assert gx.dtype is mt.bfloat16


def test_pad_double_backward_nodes_are_torchs():
    x = mt.randn(2, 3, 4, 5, dtype=mt.float64, requires_grad=True)
    for mode, name in (
        ("reflect", "ReflectionPad2DBackwardBackward0"),
        ("replicate", "ReplicationPad2DBackwardBackward0"),
        ("circular", "SliceBackwardBackward0"),
    ):
        y = F.pad(x, (1, 2, 2, 1), mode=mode)
        go = mt.randn(y.shape, dtype=mt.float64, requires_grad=True)
        (g,) = mt.autograd.grad(y, x, go, create_graph=True)
        assert g.grad_fn.name() == name
        if mode != "circular":  # torch's node reads the input: its gradient there is zero
            (gx,) = mt.autograd.grad((g * g).sum(), x)
            np.testing.assert_array_equal(gx.numpy(), np.zeros(x.shape))


def test_pad_input_changed_in_place_before_backward_raises():
    b = mt.randn(2, 3, 4, dtype=mt.float64, requires_grad=True) * 1
    y = F.pad(b, (1, 1), mode="reflect")
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("mode", MODES)
def test_pad_gradcheck_and_gradgradcheck(mode):
    mt.manual_seed(0)
    cases = [((2, 3, 5), (2, 3)), ((3, 5), (-1, 3)), ((2, 3, 4, 5), (1, 2, 3, 0))]
    cases += [((1, 2, 3, 4, 4), (1, 2, 2, 1, 2, 0)), ((2, 3, 6), (-2, 4))]
    if mode == "replicate":
        cases.append(((2, 1, 3), (4, 2)))
    for shape, pads in cases:
        x = mt.randn(*shape, dtype=mt.float64, requires_grad=True)

        def fn(t, pads=pads):
            return F.pad(t, pads, mode=mode)

        assert gradcheck(fn, (x,)), (shape, pads)
        assert gradgradcheck(fn, (x,)), (shape, pads)


# --- batch_norm of a 2-d input: channel sums over (N, C, 1) ---


class _CountingXp:
    """numpy, counting matmul calls."""

    def __init__(self):
        self.matmuls = 0

    def __getattr__(self, name):
        return getattr(np, name)

    def matmul(self, a, b):
        self.matmuls += 1
        return np.matmul(a, b)


def test_channel_sums_skip_the_size_one_trailing_dim():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2000, 100, 1)).astype(np.float32)
    x[:, 3] = -0.0
    x[5, 7] = np.inf
    xp = _CountingXp()
    out = _gemv_sum(xp, x, (0, 2), False)
    assert xp.matmuls == 1  # the sum over N only
    want = np.matmul(np.ones(2000, np.float32), x.reshape(2000, 100))
    np.testing.assert_array_equal(out, want)
    assert _gemv_sum(_CountingXp(), x, (2,), False) is None  # nothing to sum: NumPy copies


def test_batch_norm_2d_training_values():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1000, 40)).astype(np.float32) * 3 + 1
    xt = mt.from_numpy(x).requires_grad_()
    rm, rv = mt.zeros(40), mt.ones(40)
    y = F.batch_norm(xt, rm, rv, training=True)
    x64 = x.astype(np.float64)
    want = (x64 - x64.mean(0)) / np.sqrt(x64.var(0) + 1e-5)
    np.testing.assert_allclose(y.detach().numpy(), want, atol=2e-5, err_msg="batch_norm")
    np.testing.assert_allclose(rm.numpy(), 0.1 * x64.mean(0), rtol=1e-5, atol=1e-6)
    (gx,) = mt.autograd.grad((y * y).sum(), xt)
    np.testing.assert_allclose(gx.numpy(), np.zeros_like(x), atol=2e-3)


# --- repeat_interleave ---


def test_repeat_interleave_large_repeats_tensor():
    rng = np.random.default_rng(3)
    v = rng.standard_normal(100_000).astype(np.float32)
    reps = rng.integers(0, 5, 100_000)
    out = mt.repeat_interleave(mt.from_numpy(v), mt.from_numpy(reps))
    np.testing.assert_array_equal(out.numpy(), np.repeat(v, reps))
    idx = mt.repeat_interleave(mt.from_numpy(reps.astype(np.int32)))
    assert idx.dtype is mt.int32
    np.testing.assert_array_equal(idx.numpy(), np.repeat(np.arange(100_000), reps))
    x = mt.arange(6.0).reshape(2, 3)
    out = mt.repeat_interleave(x, mt.tensor([2]), dim=1)
    np.testing.assert_array_equal(out.numpy(), [[0, 0, 1, 1, 2, 2], [3, 3, 4, 4, 5, 5]])


def test_repeat_interleave_errors_in_torchs_order():
    x = mt.randn(4, 5, 3)

    def err(*args, **kwargs):
        with pytest.raises(RuntimeError) as info:
            mt.repeat_interleave(*args, **kwargs)
        return str(info.value)

    neg = mt.tensor([-1, 3, 0])
    assert err(x, neg, dim=2) == "repeats can not be negative"
    assert err(x, neg, dim=2, output_size=2) == "repeats can not be negative"
    assert err(x, neg, dim=2, output_size=3) == "allocated size does not match required size"
    assert err(neg, output_size=5) == "allocated size does not match required size"
    assert err(neg) == "repeats can not be negative"
    assert err(x, mt.tensor([-1]), dim=2, output_size=-3) == (
        "Trying to create tensor with negative dimension -3: [-3]"
    )
    msg = "repeats must have the same size as input along dim, but got repeats.size(0) = 2 and "
    assert err(x, mt.tensor([1, 2])) == msg + "input.size(0) = 60"
    assert err(x, mt.tensor([1, 2]), dim=-3) == msg + "input.size(-3) = 4"
    assert err(x, mt.tensor([1, 2]), dim=-1) == msg + "input.size(-1) = 3"


# --- lstsq ---


def test_lstsq_takes_one_svd(monkeypatch):
    calls = []
    svd = linalg_factor.Svd.apply

    def counting(*args, **kwargs):
        calls.append(1)
        return svd(*args, **kwargs)

    monkeypatch.setattr(linalg_matfn.Svd, "apply", counting)
    rng = np.random.default_rng(4)
    A = rng.standard_normal((6, 3))
    A[:, 2] = A[:, 0]  # rank 2
    B = rng.standard_normal((6, 2))
    res = mt.linalg.lstsq(mt.from_numpy(A), mt.from_numpy(B), driver="gelsd")
    assert len(calls) == 1
    assert int(res.rank) == 2
    np.testing.assert_allclose(res.solution.numpy(), np.linalg.pinv(A) @ B, atol=1e-12)
    np.testing.assert_allclose(res.singular_values.numpy(), np.linalg.svd(A)[1], atol=1e-12)
    assert res.residuals.shape == (0,)  # rank-deficient: none, as torch


def test_lstsq_full_rank_residuals_and_gradients():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((5, 3))
    B = rng.standard_normal((5, 2))
    res = mt.linalg.lstsq(mt.from_numpy(A), mt.from_numpy(B), driver="gelss")
    x = np.linalg.lstsq(A, B, rcond=None)[0]
    np.testing.assert_allclose(res.solution.numpy(), x, atol=1e-12)
    np.testing.assert_allclose(res.residuals.numpy(), ((A @ x - B) ** 2).sum(0), atol=1e-12)
    assert int(res.rank) == 3
    a = mt.from_numpy(A).requires_grad_()
    b = mt.from_numpy(B).requires_grad_()
    assert gradcheck(lambda a, b: mt.linalg.lstsq(a, b).solution, (a, b))
    assert gradgradcheck(lambda a, b: mt.linalg.lstsq(a, b).solution, (a, b))
