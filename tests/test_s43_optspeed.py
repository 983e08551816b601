"""Session 43, optimizer speed: the cheaper spellings of optimizer updates (add/sub's no-grad
fast path with an alpha, optim.optimizer's _maximum_, RAdam's in-place reciprocal), zero_grad's
direct clearing and clip_grad_norm_'s single gradient scan give the old code's values, state
and version counters bit for bit, and take the old path wherever it differs (half dtypes, mixed
dtypes, grad mode, an observer of every op)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import function
from minitorch.optim import adam, adamax, optimizer, radam
from minitorch.optim.optimizer import _maximum_

SHAPES = [(64,), (3, 5), (2100,), (70, 70), (1,), ()]
STEPS = 8  # RAdam's rectified branch starts at step 6

CONFIGS = [
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01, "maximize": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01, "fused": True}),
    ("Adam", {"weight_decay": 0.1}),
    ("Adam", {"amsgrad": True}),
    ("Adam", {"amsgrad": True, "weight_decay": 0.1, "maximize": True}),
    ("AdamW", {"amsgrad": True}),
    ("Adam", {"amsgrad": True, "weight_decay": 0.1, "fused": True}),
    ("RMSprop", {"weight_decay": 0.1, "momentum": 0.9, "centered": True}),
    ("Adagrad", {"weight_decay": 0.1, "lr_decay": 0.01}),
    ("Adamax", {}),
    ("Adamax", {"weight_decay": 0.1, "foreach": True}),
    ("NAdam", {"weight_decay": 0.1}),
    ("RAdam", {}),
    ("RAdam", {"weight_decay": 0.1}),
    ("RAdam", {"weight_decay": 0.1, "foreach": True}),
]


# --- the old code's spellings (before session 43), patched in for the reference trajectory ---


def _old_maximum_(x, other):
    return mt.maximum(x, other, out=x)


def _old_radam_step(self, closure=None):
    """RAdam.step's default (not differentiable) branches as they were written before."""
    for group in self.param_groups:
        optimizer._init_states(self, group, radam._init_state)
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        rho_inf = 2 / (1 - beta2) - 1
        for p, grad in optimizer._params_with_grad(group):
            state = self.state[p]
            step = adam.moments_(p, grad, state, lr, beta1, beta2, weight_decay, False)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            bias_corrected_exp_avg = exp_avg / bias_correction1
            rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
            if group["foreach"]:
                rect = radam._rectification(rho_t, rho_inf) if rho_t > 5 else 0
                unrect = (lr * (0 if rect > 0 else 1.0) / bias_correction1) * -1
                if rect == 0:
                    p.add_(exp_avg, alpha=unrect)
                    continue
                scale = (bias_correction2**0.5) * (lr * rect / bias_correction1) * -1
                buffer = exp_avg_sq.sqrt().add_(eps).div_(scale)
                buffer.reciprocal_().add_(unrect)
                p.addcmul_(exp_avg, buffer)
            elif rho_t > 5.0:
                rect = radam._rectification(rho_t, rho_inf)
                adaptive_lr = exp_avg_sq.sqrt().add_(eps).reciprocal().mul_(bias_correction2**0.5)
                p.sub_(bias_corrected_exp_avg.mul_(lr).mul_(adaptive_lr).mul_(rect))
            else:
                p.sub_(bias_corrected_exp_avg.mul_(lr))


def _trajectory(name, kwargs, dtype, old):
    """Parameters, gradients' and state's values, dtypes and versions after STEPS steps."""
    rng = np.random.default_rng(len(name) * 7 + len(kwargs))
    dt = getattr(mt, dtype)
    ps = [mt.tensor(rng.standard_normal(s) * 0.5, dtype=dt, requires_grad=True) for s in SHAPES]
    opt = getattr(mt.optim, name)(ps, **kwargs)
    for _ in range(STEPS):
        for p in ps:
            p.grad = mt.tensor(rng.standard_normal(p.shape), dtype=dt)
        if old and name == "RAdam":
            with mt.no_grad():
                _old_radam_step(opt)
        else:
            opt.step()
    out = []
    for p in ps:
        out.append((p.detach().numpy().tobytes(), p._version, p.grad._version))
        for key, v in opt.state[p].items():
            out.append((key, v.numpy().tobytes(), str(v.dtype), tuple(v.shape), v._version))
    return out


@pytest.fixture
def old_spellings(monkeypatch):
    """Patches the old spellings in (the optimizers read the helpers as module globals)."""

    def patch():
        monkeypatch.setattr(adam, "_maximum_", _old_maximum_)
        monkeypatch.setattr(adamax, "_maximum_", _old_maximum_)

    return patch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=lambda c: str(c))
def test_trajectories_bit_for_bit(name, kwargs, dtype, old_spellings):
    new = _trajectory(name, kwargs, dtype, old=False)
    old_spellings()
    old = _trajectory(name, kwargs, dtype, old=True)
    assert new == old


def test_fused_half_sgd_bit_for_bit(old_spellings):
    kwargs = {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01, "fused": True}
    new = _trajectory("SGD", kwargs, "float16", old=False)
    old_spellings()
    assert new == _trajectory("SGD", kwargs, "float16", old=True)


# --- add/sub with an alpha: the no-grad fast path (minitorch/_ops/pointwise.py, _plain_fused) ---


def _pair(dtype, shape=(300,)):
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal(shape), dtype=dtype)
    o = mt.tensor(rng.standard_normal(shape), dtype=dtype)
    return x, o


def _full_path(fn):
    saved = function.fast_path[0]
    function.fast_path[0] = False
    try:
        return fn()
    finally:
        function.fast_path[0] = saved


@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("alpha", [0.37, -2, 0, 1.0, 1e30, float("nan")])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(300,), (2100,), (70, 70), ()])
def test_alpha_fast_path_matches_the_full_path(op, alpha, dtype, shape):
    x, o = _pair(getattr(mt, dtype), shape)
    if dtype == "float16" and alpha == 1e30:  # beyond half's range: torch's error on both paths
        for run in (lambda f: f(), _full_path):
            with mt.no_grad(), pytest.raises(RuntimeError, match="c10::Half without overflow"):
                run(lambda: getattr(x, op)(o, alpha=alpha))
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the full path's NumPy overflow warning at 1e30)
        with mt.no_grad():
            got = getattr(x, op)(o, alpha=alpha)
            want = _full_path(lambda: getattr(x, op)(o, alpha=alpha))
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert got.numpy().tobytes() == want.numpy().tobytes()
    assert got.grad_fn is None and not got.requires_grad


def test_alpha_fast_path_broadcasts_and_refuses_as_the_full_path():
    x, _ = _pair(mt.float32, (4, 300))
    _, o = _pair(mt.float32, (300,))
    with mt.no_grad():
        got = mt.add(x, o, alpha=0.5)
        want = _full_path(lambda: mt.add(x, o, alpha=0.5))
    assert got.numpy().tobytes() == want.numpy().tobytes()
    bad = mt.ones(3, 2)
    with pytest.raises(RuntimeError, match="must match the size"):
        mt.sub(x, bad, alpha=0.5)
    with pytest.raises(TypeError, match="alpha"):
        mt.add(x, x, alpha="a")


def test_alpha_with_mixed_dtypes_or_a_graph_takes_the_full_path():
    x, _ = _pair(mt.float32)
    _, o = _pair(mt.float64)
    with mt.no_grad():
        got = x.add(o, alpha=0.1)
    assert got.dtype == mt.float64
    assert got.numpy().tobytes() == _full_path(lambda: x.add(o, alpha=0.1)).numpy().tobytes()
    y, p = _pair(mt.float64)
    p.requires_grad_()
    got = y.add(p, alpha=0.5)
    assert type(got.grad_fn).__name__ == "AddBackward0" and got.grad_fn._saved_alpha == 0.5
    got.sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), np.full(300, 0.5))


def test_sgd_weight_decay_keeps_grad():
    p = mt.tensor([1.0, 2.0], requires_grad=True)
    p.grad = mt.tensor([0.5, -0.5])
    mt.optim.SGD([p], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1).step()
    np.testing.assert_array_equal(p.grad.numpy(), np.array([0.5, -0.5], np.float32))
    assert p.grad._version == 0


def _profiled_sgd_step():
    p = mt.tensor([1.0, 2.0], requires_grad=True)
    p.grad = mt.tensor([0.5, -0.5])
    opt = mt.optim.SGD([p], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)
    with mt.profiler.profile() as prof:
        opt.step()
        opt.step()
    return [e.name for e in prof.events()]


def test_sgd_profile_sees_the_old_ops(old_spellings):
    new = _profiled_sgd_step()  # (while profiled, the fast paths are off)
    old_spellings()
    assert new == _profiled_sgd_step()


# --- _maximum_ ---


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_maximum_matches_out(dtype):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(500)
    b = rng.standard_normal(500)
    a[:3] = [np.nan, 0.0, -0.0]
    b[:3] = [1.0, -0.0, 0.0]
    x, y = mt.tensor(a, dtype=getattr(mt, dtype)), mt.tensor(b, dtype=getattr(mt, dtype))
    x2 = x.clone()
    with mt.no_grad():
        got = _maximum_(x, y)
        mt.maximum(x2, y, out=x2)
    assert got is x
    assert x.numpy().tobytes() == x2.numpy().tobytes()
    assert x._version == x2._version == 1


def test_maximum_other_dtype_casts_as_out():
    x = mt.tensor([1.0, 5.0])
    y = mt.tensor([3.0, 2.0], dtype=mt.float64)
    with mt.no_grad():
        _maximum_(x, y)
    assert x.dtype == mt.float32 and x.tolist() == [3.0, 5.0] and x._version == 1


def test_maximum_into_view():
    base = mt.zeros(6)
    x = base[::2]
    with mt.no_grad():
        _maximum_(x, mt.tensor([1.0, -1.0, 2.0]))
    assert base.tolist() == [1.0, 0.0, 0.0, 0.0, 2.0, 0.0]


# --- zero_grad ---


def test_zero_grad_clears_tensors_and_parameters():
    w = mt.nn.Parameter(mt.ones(3))
    t = mt.ones(2, requires_grad=True)
    n = mt.ones(2, requires_grad=True)  # no gradient
    w.grad, t.grad = mt.ones(3), mt.ones(2)
    opt = mt.optim.SGD([w, t, n], lr=0.1)
    opt.zero_grad()
    assert w.grad is None and t.grad is None and n.grad is None


class _CountingGrad(mt.Tensor):
    reads = 0

    @property
    def grad(self):
        type(self).reads += 1
        return mt.Tensor.grad.fget(self)

    @grad.setter
    def grad(self, value):
        mt.Tensor.grad.fset(self, value)


def test_zero_grad_subclass_goes_through_its_property():
    p = mt.ones(3).as_subclass(_CountingGrad).requires_grad_()
    mt.Tensor.grad.fset(p, mt.ones(3))
    opt = mt.optim.SGD([p], lr=0.1)
    _CountingGrad.reads = 0
    opt.zero_grad()
    assert _CountingGrad.reads == 1
    assert mt.Tensor.grad.fget(p) is None


def test_zero_grad_non_leaf_warns_as_before():
    x = mt.ones(3, requires_grad=True)
    y = x * 2  # a non-leaf without retain_grad: reading its .grad warns
    opt = mt.optim.SGD([y], lr=0.1, differentiable=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opt.zero_grad()
    assert any("non-leaf Tensor" in str(w.message) for w in caught)


def test_zero_grad_set_to_none_false_zeroes():
    p = mt.ones(3, requires_grad=True)
    p.grad = mt.full((3,), 2.0)
    g = p.grad
    mt.optim.SGD([p], lr=0.1).zero_grad(set_to_none=False)
    assert p.grad is g and g.tolist() == [0.0, 0.0, 0.0]


# --- clip_grad_norm_ ---


def _grads(n, shape, seed):
    rng = np.random.default_rng(seed)
    ps = []
    for _ in range(n):
        p = mt.zeros(shape, requires_grad=True)
        p.grad = mt.tensor(rng.standard_normal(shape), dtype=mt.float32)
        ps.append(p)
    return ps


@pytest.mark.parametrize("foreach", [None, False, True])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm_matches_its_halves(foreach, norm_type):
    a, b = _grads(7, (5, 3), 3), _grads(7, (5, 3), 3)
    b[2].grad = None
    a[2].grad = None
    total_a = mt.nn.utils.clip_grad_norm_(a, 0.5, norm_type, foreach=foreach)
    grads = [p.grad for p in b if p.grad is not None]
    total_b = mt.nn.utils.get_total_norm(grads, norm_type, foreach=foreach)
    mt.nn.utils.clip_grads_with_norm_(b, 0.5, total_b, foreach=foreach)
    assert total_a.item() == total_b.item() and total_a.dtype == total_b.dtype
    for p, q in zip(a, b, strict=True):
        if p.grad is None:
            assert q.grad is None
            continue
        assert p.grad.numpy().tobytes() == q.grad.numpy().tobytes()
        assert p.grad._version == q.grad._version == 1


def test_clip_grad_norm_error_order():
    ps = _grads(2, (3,), 4)
    ps[0].grad[0] = float("nan")
    with pytest.raises(RuntimeError, match="non-finite"):  # the norm's check first
        mt.nn.utils.clip_grad_norm_(ps, "x", error_if_nonfinite=True)
    with pytest.raises(ValueError, match="could not convert"):
        mt.nn.utils.clip_grad_norm_(ps, "x")
