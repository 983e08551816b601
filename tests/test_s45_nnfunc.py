"""The no-grad fast paths of cross_entropy, nll_loss (NOTE [ The common nll_loss without a node ]
in minitorch/_ops/nn_kernels.py) and layer_norm (NOTE [ The no-grad fast path ]): each returns
what the full path returns, bit for bit, and everything that must see the op (a recorded graph, a
profile, inference mode, another device, an error) still does."""

import functools
import re

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import function
from tests._fastpath import both, error_of, full_path

F = torch.nn.functional


def same(fast, full):
    assert type(fast) is type(full) is torch.Tensor
    assert fast.dtype == full.dtype and fast.shape == full.shape and fast.device == full.device
    assert fast.stride() == full.stride()
    assert (fast.requires_grad, fast.grad_fn, fast.is_leaf) == (False, None, True)
    assert fast._version == full._version == 0
    a, b = fast.numpy(), full.numpy()
    assert a.dtype == b.dtype and a.tobytes() == b.tobytes()  # bit for bit (NaN, -0. too)


def scores(shape, dtype, seed, scale=3.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)


def classes(n, c, seed):
    return torch.randint(0, c, (n,), generator=torch.Generator().manual_seed(seed))


# --- cross_entropy and nll_loss ---

SIZES = ((3, 4), (1, 1), (2, 7), (64, 10), (300, 70), (8, 5000))


LOSS_CALLS = [
    lambda x, t, r, c: F.cross_entropy(x, t, reduction=r),
    lambda x, t, r, c: F.nll_loss(x, t, reduction=r),
    lambda x, t, r, c: F.cross_entropy(x, t, reduction=r, ignore_index=c),  # never met
    lambda x, t, r, c: F.nll_loss(x.log_softmax(1), t, None, None, -1, None, r),
    lambda x, t, r, c: F.cross_entropy(x.t().contiguous().t(), t, reduction=r),  # F layout
    lambda x, t, r, c: F.cross_entropy(x, t, reduction=r, label_smoothing=-0.5),
]


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64), ids=str)
@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("reduction", ("mean", "sum", "none"))
def test_losses_match_the_full_path(dtype, size, reduction):
    n, c = size
    t = classes(n, c, 1)
    for scale in (1.0, 30.0, 1e4):  # 1e4: exp underflows to 0 for all but the max
        x = scores(size, dtype, 0, scale)
        for fn in LOSS_CALLS:
            same(*both(functools.partial(fn, x, t, reduction, c)))


def test_loss_non_finite_scores_and_signed_zeros():
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([[0.0, inf, 1.0], [-inf, -inf, -inf], [nan, 1.0, 2.0], [0.0, -0.0, -inf]])
    t = torch.tensor([1, 0, 2, 0])
    for reduction in ("mean", "sum", "none"):
        same(*both(lambda: F.cross_entropy(x, t, reduction=reduction)))  # noqa: B023
        same(*both(lambda: F.nll_loss(x, t, reduction=reduction)))  # noqa: B023
    # +0. and -0. picked: 'none' is -(picked), the reductions sum 0 - picked
    z = torch.tensor([[0.0, 1.0], [-0.0, 1.0]])
    for reduction in ("mean", "sum", "none"):
        fast, full = both(lambda: F.nll_loss(z, torch.tensor([0, 0]), reduction=reduction))  # noqa: B023
        same(fast, full)
    assert np.signbit(F.nll_loss(z, torch.tensor([0, 0]), reduction="none").numpy()).tolist() == [
        True,
        False,
    ]


def test_loss_values_are_the_definition():
    x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], dtype=torch.float64)
    t = torch.tensor([2, 0])
    with torch.no_grad():
        got = F.cross_entropy(x, t).item()
    lp = x.numpy() - np.log(np.exp(x.numpy()).sum(1, keepdims=True))
    np.testing.assert_allclose(got, -(lp[0, 2] + lp[1, 0]) / 2, rtol=1e-15)


def test_losses_off_the_common_case_take_the_full_path():
    # each of these differs from the fast path's case in one way: the full path's result, as it
    # was (the fast path declines: a weight, smoothing, an ignored target met, another dtype...)
    x, t = scores((4, 5), torch.float32, 0), torch.tensor([0, 3, 3, 1])
    w = torch.rand(5, generator=torch.Generator().manual_seed(2))
    calls = [
        lambda: F.cross_entropy(x, t, weight=w),
        lambda: F.cross_entropy(x, t, label_smoothing=0.1),
        lambda: F.cross_entropy(x, t, ignore_index=3),
        lambda: F.nll_loss(x, t, ignore_index=3, reduction="none"),
        lambda: F.cross_entropy(x.half(), t),
        lambda: F.cross_entropy(x, t.to(torch.uint8)),
        lambda: F.cross_entropy(x[0], t[0]),
        lambda: F.cross_entropy(x.reshape(2, 5, 2), t.reshape(2, 2)),
        lambda: F.cross_entropy(x, x.softmax(1)),
        lambda: F.cross_entropy(x, t, reduction="elementwise_mean"),
        lambda: F.nll_loss(x, t, size_average=False),
    ]
    for fn in calls:
        with pytest.warns(UserWarning) if fn is calls[-2] else _Nothing():
            fast, full = both(fn)
        a, b = fast.numpy(), full.numpy()
        assert fast.dtype == full.dtype and a.tobytes() == b.tobytes()


class _Nothing:
    def __enter__(self):
        pass

    def __exit__(self, *exc):
        pass


LOSS_ERRORS = [
    lambda x, t: F.cross_entropy(x, t + 5),  # out of range
    lambda x, t: F.cross_entropy(x, t - 2),  # negative
    lambda x, t: F.nll_loss(x, t - 2),
    lambda x, t: F.cross_entropy(x, t[:2]),  # batch sizes
    lambda x, t: F.cross_entropy(x, t.int()),  # int32 targets
    lambda x, t: F.cross_entropy(x.long(), t),
    lambda x, t: F.cross_entropy(x, t, reduction="avg"),
    lambda x, t: F.cross_entropy(x, t, label_smoothing=1.5),
    lambda x, t: F.cross_entropy(x.numpy(), t),
    lambda x, t: F.cross_entropy(x, [0, 1, 2]),
    lambda x, t: F.cross_entropy(x, t, ignore_index=1.5),
    lambda x, t: F.nll_loss(x, t, ignore_index="a"),
]


@pytest.mark.parametrize("k", range(len(LOSS_ERRORS)))
def test_loss_errors_are_the_full_paths(k):
    x, t = scores((3, 4), torch.float32, 0), torch.tensor([0, 3, 1])
    with torch.no_grad():
        fast = error_of(lambda: LOSS_ERRORS[k](x, t))
        with full_path():
            assert fast == error_of(lambda: LOSS_ERRORS[k](x, t))
    if k == 0:
        assert fast == (IndexError, "Target 5 is out of bounds.")


def test_recorded_losses_keep_their_graph():
    x = scores((3, 4), torch.float64, 0).requires_grad_()
    t = torch.tensor([0, 3, 1])
    loss = F.cross_entropy(x, t)
    assert loss.requires_grad and type(loss.grad_fn).__name__ == "NllLossBackward0"
    assert type(loss.grad_fn.next_functions[0][0]).__name__ == "LogSoftmaxBackward0"
    loss.backward()
    p = x.detach().softmax(1).numpy()
    p[[0, 1, 2], [0, 3, 1]] -= 1
    np.testing.assert_allclose(x.grad.numpy(), p / 3, rtol=1e-12)
    with torch.no_grad():
        assert F.cross_entropy(x, t).grad_fn is None
    with torch.enable_grad():  # nothing requires grad: no node either way
        same(F.cross_entropy(x.detach(), t), both(lambda: F.cross_entropy(x.detach(), t))[1])


def test_profile_sees_the_loss_ops():
    x, t = scores((3, 4), torch.float32, 0), torch.tensor([0, 3, 1])
    with torch.no_grad(), torch.profiler.profile() as prof:
        F.cross_entropy(x, t)
        F.layer_norm(x, (4,))
    names = [e.key for e in prof.key_averages()]
    for op in ("LogSoftmax", "NllLoss", "LayerNorm"):
        assert op in names, (op, names)
    assert function.fast_path[0]


def test_inference_mode_results_are_inference_tensors():
    x, t = scores((3, 4), torch.float32, 0), torch.tensor([0, 3, 1])
    ln = torch.nn.LayerNorm(4)
    with torch.inference_mode():
        outs = [F.cross_entropy(x, t), F.nll_loss(x, t, reduction="none"), ln(x)]
    for out in outs:
        assert out.is_inference()
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            out.add_(1)
    with torch.no_grad():
        assert not F.cross_entropy(x, t).is_inference() and not ln(x).is_inference()


def test_subclasses_take_the_full_path():
    class Sub(torch.Tensor):
        pass

    x = scores((3, 4), torch.float32, 0).as_subclass(Sub)
    t = torch.tensor([0, 3, 1])
    for fn in (lambda: F.cross_entropy(x, t), lambda: F.layer_norm(x, (4,))):
        fast, full = both(fn)
        assert type(fast) is type(full) and fast.numpy().tobytes() == full.numpy().tobytes()
        with torch.no_grad():
            assert type(fn()) is type(full)


def test_on_a_device_as_on_the_cpu(device):
    x, t = scores((5, 4), torch.float32, 0), torch.tensor([0, 3, 1, 1, 2])
    w, b = torch.rand(4), torch.rand(4)
    with torch.no_grad():
        for fn in (
            lambda x, t: F.cross_entropy(x, t),
            lambda x, t: F.nll_loss(x, t, reduction="sum"),
            lambda x, t: F.cross_entropy(x, t, reduction="none"),
            lambda x, t: F.layer_norm(x, (4,), w.to(x.device), b.to(x.device)),
        ):
            out = fn(x.to(device), t.to(device))
            cpu = fn(x, t)
            assert out.device == x.to(device).device
            assert out.cpu().numpy().tobytes() == cpu.numpy().tobytes()


# --- layer_norm ---

LN_CASES = (
    ((3, 4), 1),
    ((2, 3, 8, 8), 2),
    ((5,), 1),
    ((1000, 64), 1),
    ((300, 70), 1),
    ((4, 3, 5), 3),
    ((255, 64), 1),  # under _GEMV_MIN_SIZE elements (plain_layer_norm's one block) and over
    ((2000, 8), 1),
    ((1, 16383), 1),
    ((2, 8192), 1),
)


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64), ids=str)
@pytest.mark.parametrize("case", LN_CASES, ids=str)
def test_layer_norm_matches_the_full_path(dtype, case):
    shape, k = case
    x = scores(shape, dtype, 0, 10.0)
    ns = shape[len(shape) - k :]
    w = torch.nn.Parameter(scores(ns, dtype, 1))
    b = scores(ns, dtype, 2)
    for weight, bias in ((None, None), (w, None), (None, b), (w, b)):
        same(*both(lambda: F.layer_norm(x, ns, weight, bias)))  # noqa: B023
        same(*both(lambda: F.layer_norm(x, list(ns), weight, bias, 1e-3)))  # noqa: B023
        same(*both(lambda: F.layer_norm(x.transpose(0, -1), x.transpose(0, -1).shape[-k:])))


def test_layer_norm_module_and_special_values():
    ln = torch.nn.LayerNorm(4)
    with torch.no_grad():
        ln.weight.mul_(1.5)
        ln.bias.add_(0.25)
    x = torch.tensor(
        [[1e30, 1e30, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [float("nan"), 1, 2, 3], [-0.0, 0.0, 1, 1]]
    )
    same(*both(lambda: ln(x)))
    same(*both(lambda: ln(x.double().float())))
    with torch.no_grad():
        got = ln(torch.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=torch.float32)).numpy()
    v = np.array([1.0, 2.0, 3.0, 4.0])
    want = (v - v.mean()) / np.sqrt(v.var() + 1e-5) * 1.5 + 0.25
    np.testing.assert_allclose(got[0], want, rtol=1e-6)


def test_layer_norm_off_the_common_case_takes_the_full_path():
    x = scores((3, 4), torch.float32, 0)
    calls = [
        lambda: F.layer_norm(x, (4,), torch.ones(4, dtype=torch.float64)),  # mixed dtypes
        lambda: F.layer_norm(x.half(), (4,)),
        lambda: F.layer_norm(x, (4,), eps=1),  # an int eps
        lambda: F.layer_norm(x, torch.Size([4])),
        lambda: F.layer_norm(x[:0], (4,)),
        lambda: F.layer_norm(x, (3, 4), torch.ones(3, 4), None),
    ]
    for fn in calls:
        try:
            fast, full = both(fn)
        except RuntimeError as e:  # the mixed dtypes: the full path's error both ways
            with torch.no_grad(), full_path(), pytest.raises(RuntimeError, match=re.escape(str(e))):
                fn()
            continue
        assert fast.dtype == full.dtype and fast.numpy().tobytes() == full.numpy().tobytes()


LN_ERRORS = [
    lambda x: F.layer_norm(x, (5,)),
    lambda x: F.layer_norm(x, (True,)),
    lambda x: F.layer_norm(x, (4.0,)),
    lambda x: F.layer_norm(x, ()),
    lambda x: F.layer_norm(x, (2, 3, 4)),
    lambda x: F.layer_norm(x, (4,), torch.ones(3)),
    lambda x: F.layer_norm(x, (4,), None, torch.ones(5)),
    lambda x: F.layer_norm(x, (4,), [1.0] * 4),
    lambda x: F.layer_norm(x, (4,), eps="a"),
    lambda x: F.layer_norm(x.long(), (4,)),
    lambda x: F.layer_norm(x, 4),
]


@pytest.mark.parametrize("k", range(len(LN_ERRORS)))
def test_layer_norm_errors_are_the_full_paths(k):
    x = scores((3, 4), torch.float32, 0)
    with torch.no_grad():
        fast = error_of(lambda: LN_ERRORS[k](x))
        with full_path():
            assert fast == error_of(lambda: LN_ERRORS[k](x))


def test_layer_norm_records_where_a_parameter_requires_grad():
    ln = torch.nn.LayerNorm(4)
    x = scores((3, 4), torch.float32, 0)
    out = ln(x)  # the input needs no grad, the parameters do
    assert out.requires_grad and type(out.grad_fn).__name__ == "NativeLayerNormBackward0"
    out.sum().backward()
    assert ln.weight.grad is not None and ln.bias.grad.tolist() == [3.0] * 4
    with torch.no_grad():
        assert ln(x).grad_fn is None
    ln.requires_grad_(False)
    same(ln(x), both(lambda: ln(x))[1])  # nothing to record with grad on: the fast path


# --- batch_norm ---

BN_SHAPES = ((2, 3, 8, 8), (4, 3), (4, 3, 5), (1, 3, 2), (5, 2, 3, 3, 3), (64, 16, 4, 4))


def _bn_run(x, training, affine, full, layout=None):
    """F.batch_norm of x (as laid out by layout) on one path: (out, running stats' bytes and
    versions after the call)."""
    c = x.shape[1]
    rm = torch.linspace(-0.5, 0.5, c, dtype=x.dtype)
    rv = torch.linspace(0.5, 1.5, c, dtype=x.dtype)
    w = torch.nn.Parameter(scores((c,), x.dtype, 3)) if affine else None
    b = torch.nn.Parameter(scores((c,), x.dtype, 4)) if affine else None
    x = x if layout is None else layout(x)
    with torch.no_grad():
        if full:
            with full_path():
                out = F.batch_norm(x, rm, rv, w, b, training=training, momentum=0.1, eps=1e-5)
        else:
            out = F.batch_norm(x, rm, rv, w, b, training=training, momentum=0.1, eps=1e-5)
    return out, (rm.numpy().tobytes(), rv.numpy().tobytes(), rm._version, rv._version)


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64), ids=str)
@pytest.mark.parametrize("shape", BN_SHAPES, ids=str)
@pytest.mark.parametrize("training", (True, False))
def test_batch_norm_matches_the_full_path(dtype, shape, training):
    x = scores(shape, dtype, 0, 10.0)
    layouts = (None, lambda x: x.transpose(0, 1).contiguous().transpose(0, 1))
    if len(shape) == 4:
        layouts += (lambda x: x.contiguous(memory_format=torch.channels_last),)
    for affine in (True, False):
        for layout in layouts:
            fast, fast_stats = _bn_run(x, training, affine, False, layout)
            full, full_stats = _bn_run(x, training, affine, True, layout)
            same(fast, full)
            assert fast_stats == full_stats  # the running statistics' update, versions too
            if training:
                assert fast_stats[2:] == (1, 1)


def test_batch_norm_modules_match_the_full_path():
    x = scores((4, 3, 5, 5), torch.float32, 0)
    for momentum in (0.1, None):  # None: the cumulative average's tensor factor (full path)
        mods = [torch.nn.BatchNorm2d(3, momentum=momentum) for _ in range(2)]
        for step in range(3):
            for bn in mods:
                bn.train(step < 2)
            with torch.no_grad():
                fast = mods[0](x * (step + 1))
                with full_path():
                    full = mods[1](x * (step + 1))
            same(fast, full)
        for name, t in mods[0].state_dict().items():
            assert t.numpy().tobytes() == mods[1].state_dict()[name].numpy().tobytes(), name


def test_batch_norm_off_the_common_case_takes_the_full_path():
    x = scores((4, 3, 5), torch.float32, 0)
    rm, rv = torch.zeros(3), torch.ones(3)
    calls = [
        lambda: F.batch_norm(x, None, None, training=True),
        lambda: F.batch_norm(x, rm.double(), rv.double()),
        lambda: F.batch_norm(x.half(), rm, rv),
        lambda: F.batch_norm(x, rm, rv, eps=1),
        lambda: F.batch_norm(x, rm, rv, momentum=torch.tensor(0.5), training=True),
        lambda: F.batch_norm(x, rm.reshape(3, 1), rv),
        lambda: F.batch_norm(x, rm, rv, torch.nn.Parameter(torch.ones(3, 1))),
        lambda: F.batch_norm(x[:0], rm, rv),
        lambda: F.batch_norm(x, rm, rv, training=1),
        lambda: F.batch_norm(x, rm, rv, eps=float("nan")),
    ]
    for fn in calls:
        try:
            fast, full = both(fn)
        except Exception as e:  # noqa: BLE001 the full path's error both ways (mixed dtypes,
            # a (3, 1) weight as the full path refused it before, an int training flag)
            with torch.no_grad(), full_path(), pytest.raises(type(e), match=re.escape(str(e))):
                fn()
            continue
        assert fast.dtype == full.dtype and fast.numpy().tobytes() == full.numpy().tobytes()


BN_ERRORS = [
    lambda x, rm, rv: F.batch_norm(x, rm, rv, eps=0.0, training=True),
    lambda x, rm, rv: F.batch_norm(x, rm, rv, eps=-1.0),
    lambda x, rm, rv: F.batch_norm(x, None, rv),
    lambda x, rm, rv: F.batch_norm(x, rm, None, training=True),
    lambda x, rm, rv: F.batch_norm(x, rm[:2], rv),
    lambda x, rm, rv: F.batch_norm(x, rm, rv, torch.ones(4)),
    lambda x, rm, rv: F.batch_norm(x[:1, :, :1], rm, rv, training=True),
    lambda x, rm, rv: F.batch_norm(x, rm, rv, torch.ones(3, dtype=torch.float64)),
    lambda x, rm, rv: F.batch_norm(x.long(), rm, rv),
    lambda x, rm, rv: F.batch_norm(x, rm, rv, momentum="a"),
    lambda x, rm, rv: F.batch_norm(x[0, 0], rm, rv),
    lambda x, rm, rv: F.batch_norm(x, rm.numpy(), rv),
]


@pytest.mark.parametrize("k", range(len(BN_ERRORS)))
def test_batch_norm_errors_are_the_full_paths(k):
    x = scores((4, 3, 5), torch.float32, 0)
    with torch.no_grad():
        fast = error_of(lambda: BN_ERRORS[k](x, torch.zeros(3), torch.ones(3)))
        with full_path():
            assert fast == error_of(lambda: BN_ERRORS[k](x, torch.zeros(3), torch.ones(3)))


def test_batch_norm_records_and_observers_see_it(device):
    bn = torch.nn.BatchNorm1d(3).to(device)
    x = scores((4, 3), torch.float32, 0).to(device)
    out = bn(x)  # the parameters require grad: a node
    assert type(out.grad_fn).__name__ == "NativeBatchNormBackward0"
    out.sum().backward()
    assert bn.bias.grad.cpu().tolist() == [4.0] * 3
    bn.eval()
    with torch.inference_mode():
        y = bn(x)
    assert y.is_inference() and y.device == x.device
    with torch.no_grad():
        cpu = bn.cpu()(x.cpu())
    assert y.cpu().numpy().tobytes() == cpu.numpy().tobytes()
    with torch.no_grad(), torch.profiler.profile() as prof:
        bn(x.cpu())
    assert "BatchNorm" in [e.key for e in prof.key_averages()]
    with torch.inference_mode():  # inference-tensor statistics: the full path's handling
        bn2 = torch.nn.BatchNorm1d(3).eval()
    with torch.no_grad():
        fast, full = both(lambda: bn2(x.cpu()))
    same(fast, full)


# --- gelu ---

GELU_SHAPES = ((3, 4), (), (0, 3), (2, 3, 8, 8), (300, 200))


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64), ids=str)
@pytest.mark.parametrize("shape", GELU_SHAPES, ids=str)
@pytest.mark.parametrize("approximate", ("none", "tanh"))
def test_gelu_matches_the_full_path(dtype, shape, approximate):
    x = scores(shape, dtype, 0, 5.0)
    if x.numel() >= 3:
        x.view(-1)[:3] = torch.tensor([-0.0, 0.0, -30.0], dtype=dtype)  # signed zeros, underflow
    layouts = [x, x.transpose(0, -1) if x.ndim else x]
    if x.ndim == 4:
        layouts.append(x.contiguous(memory_format=torch.channels_last))
    for a in layouts:
        same(*both(lambda: F.gelu(a, approximate=approximate)))  # noqa: B023


def test_gelu_float32_values_as_before():
    # _gelu32's constants, made once now: the same float32 scalars as before, so the same bits
    # (the values: torch's within float32 rounding)
    x = torch.linspace(-6, 6, 97)
    with torch.no_grad():
        got = F.gelu(x).numpy().astype(np.float64)
    from math import erf

    want = np.array([v * 0.5 * (1 + erf(v / 2**0.5)) for v in x.double().tolist()])
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=5e-7)  # A&S 7.1.26's error


GELU_CALLS = [
    lambda x: F.gelu(x.half()),
    lambda x: F.gelu(x, approximate="sigmoid"),
    lambda x: F.gelu(x, approximate=None),
    lambda x: F.gelu(x.long()),
    lambda x: F.gelu(x, x),
    lambda x: F.gelu(x, out=torch.empty(3, 4)),
    lambda x: F.gelu(x.numpy()),
    lambda x: F.gelu(),
]


@pytest.mark.parametrize("k", range(len(GELU_CALLS)))
def test_gelu_off_the_common_case_as_the_full_path(k):
    x = scores((3, 4), torch.float32, 0)
    with torch.no_grad():
        try:
            fast = GELU_CALLS[k](x)
        except Exception:  # noqa: BLE001 (compared by type and message)
            fast = error_of(lambda: GELU_CALLS[k](x))
            with full_path():
                assert fast == error_of(lambda: GELU_CALLS[k](x))
            return
        with full_path():
            full = GELU_CALLS[k](x)
    assert fast.dtype == full.dtype and fast.numpy().tobytes() == full.numpy().tobytes()


def test_gelu_records_and_observers_see_it(device):
    x = scores((3, 4), torch.float32, 0).to(device).requires_grad_()
    out = F.gelu(x)
    assert type(out.grad_fn).__name__ == "GeluBackward0"
    out.sum().backward()
    with torch.no_grad():
        fast = F.gelu(x)
        with full_path():
            full = F.gelu(x)
        assert F.gelu(x).grad_fn is None
    assert (
        fast.cpu().numpy().tobytes()
        == full.cpu().numpy().tobytes()
        == out.detach().cpu().numpy().tobytes()
    )
    with torch.inference_mode():
        assert F.gelu(x.detach()).is_inference()
    with torch.no_grad(), torch.profiler.profile() as prof:
        F.gelu(x)
    assert "Gelu" in [e.key for e in prof.key_averages()]


WRONG_TYPES = [
    (lambda x, t: F.cross_entropy(x.numpy(), t), "cross_entropy_loss(): argument 'input'"),
    (lambda x, t: F.nll_loss(x.numpy(), t), "nll_loss_nd(): argument 'input'"),
    (lambda x, t: F.cross_entropy([1.0], t), "cross_entropy_loss(): argument 'input'"),
    (lambda x, t: F.layer_norm(x.numpy(), (4,)), "layer_norm(): argument 'input'"),
    (lambda x, t: F.layer_norm(x, (4,), [1.0] * 4), "layer_norm(): argument 'weight'"),
    (lambda x, t: F.layer_norm(x, (4,), None, "a"), "layer_norm(): argument 'bias'"),
    (lambda x, t: F.batch_norm(x.numpy(), t, t), "batch_norm(): argument 'input'"),
    (lambda x, t: F.batch_norm(x, t.float(), t.float(), [1.0] * 4), "batch_norm(): argument 'w"),
    (lambda x, t: F.gelu(x.numpy()), "gelu(): argument 'input'"),
    (lambda x, t: F.gelu([1.0]), "gelu(): argument 'input'"),
]


@pytest.mark.parametrize("k", range(len(WRONG_TYPES)))
@pytest.mark.parametrize("grad", (True, False))
def test_wrong_types_are_torchs_type_errors(k, grad):
    # the fast paths' first tests read tensor attributes only of tensors (grad mode on too)
    fn, message = WRONG_TYPES[k]
    x, t = scores((3, 4), torch.float32, 0), torch.tensor([0, 3, 1, 2])
    with torch.set_grad_enabled(grad), pytest.raises(TypeError, match=re.escape(message)):
        fn(x, t[:3] if k < 3 else t)


# --- softmax and log_softmax of few rows (_small_rows_softmax) ---

SOFTMAX_SHAPES = ((3, 4), (5,), (1, 1), (4, 1), (31, 500), (32, 4), (2, 3, 4), (2, 8191), (3, 0))


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64), ids=str)
@pytest.mark.parametrize("shape", SOFTMAX_SHAPES, ids=str)
def test_softmax_of_few_rows_matches_the_full_path(dtype, shape):
    for scale in (1.0, 100.0, 1e5):  # 1e5: every row one 1. and zeros
        x = scores(shape, dtype, 0, scale)
        views = [x, x.transpose(0, -1)] if x.ndim > 1 else [x]
        for a in views:
            for dim in (-1, 0):
                same(*both(lambda: torch.softmax(a, dim)))  # noqa: B023
                same(*both(lambda: torch.log_softmax(a, dim)))  # noqa: B023
                same(*both(lambda: a.softmax(dim)))  # noqa: B023
                same(*both(lambda: F.log_softmax(a, dim)))  # noqa: B023


def test_softmax_of_few_rows_special_values():
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([[0.0, -inf, 1.0], [-inf, -inf, -inf], [nan, 1.0, 2.0], [inf, 0.0, 1.0]])
    with np.errstate(invalid="ignore"):
        for fn in (torch.softmax, torch.log_softmax):
            same(*both(lambda: fn(x, 1)))  # noqa: B023
    with torch.no_grad():
        got = torch.softmax(torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64), 1).numpy()
    e = np.exp([1.0, 2.0, 3.0])
    np.testing.assert_allclose(got[0], e / e.sum(), rtol=1e-15)
