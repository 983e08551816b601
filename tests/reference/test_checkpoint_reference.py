"""utils.checkpoint and autograd.graph's hooks against torch: the same model, numbers, errors and
hook calls."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _mlp(lib, weights):
    seq = lib.nn.Sequential(
        lib.nn.Linear(5, 7), lib.nn.Tanh(), lib.nn.Linear(7, 7), lib.nn.GELU(), lib.nn.Linear(7, 2)
    )
    seq.load_state_dict({k: lib.tensor(v) for k, v in weights.items()})
    return seq.double()


def _weights():
    rng = np.random.default_rng(0)
    shapes = {"0": (7, 5), "2": (7, 7), "4": (2, 7)}
    out = {}
    for k, (o, i) in shapes.items():
        out[f"{k}.weight"] = rng.standard_normal((o, i))
        out[f"{k}.bias"] = rng.standard_normal(o)
    return out


def _run(lib, how):
    seq = _mlp(lib, _weights())
    x = lib.tensor(np.random.default_rng(1).standard_normal((4, 5)), requires_grad=True)
    ckpt = lib.utils.checkpoint
    if how == "sequential":
        y = ckpt.checkpoint_sequential(seq, 2, x, use_reentrant=False)
    elif how == "plain":
        y = seq(x)
    else:
        y = ckpt.checkpoint(seq, x, use_reentrant=how == "reentrant")
    (y**2).sum().backward()
    grads = [x.grad.numpy()] + [p.grad.numpy() for p in seq.parameters()]
    return y.detach().numpy(), grads, type(y.grad_fn).__name__


@pytest.mark.parametrize("how", ["plain", "non_reentrant", "reentrant", "sequential"])
def test_checkpointed_mlp_matches_torch(how):
    y, grads, name = _run(minitorch, how)
    ty, tgrads, tname = _run(torch, how)
    np.testing.assert_allclose(y, ty, rtol=1e-10, err_msg="output")
    for g, tg in zip(grads, tgrads, strict=True):
        np.testing.assert_allclose(g, tg, rtol=1e-9, atol=1e-12, err_msg="gradient")
    assert name == tname


def _errors(lib):
    x = lib.randn(3, requires_grad=True)
    ckpt = lib.utils.checkpoint
    out = []
    y = ckpt.checkpoint(lambda a: a * 2, x, use_reentrant=True)
    try:
        lib.autograd.grad(y.sum(), x)
    except Exception as e:
        out.append((type(e).__name__, str(e)))
    runs = []

    def grows(a):
        runs.append(1)
        return (a.exp() * a).sum() if len(runs) == 1 else a.exp().sum()

    y = ckpt.checkpoint(grows, x, use_reentrant=False)
    try:
        y.backward()
    except Exception as e:
        out.append((type(e).__name__, str(e).split("\n\nTip")[0]))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ckpt.checkpoint(lambda a: a * 2, x)
        out.append(str(w[0].message))
    for kwargs in ({"use_reentrant": True, "debug": True}, {"use_reentrant": True, "b": 1}):
        try:
            ckpt.checkpoint(lambda a, b=0: a, x, **kwargs)
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    return out


def test_checkpoint_errors_match_torch():
    assert _errors(minitorch) == _errors(torch)


def _hook_calls(lib):
    graph = lib.autograd.graph
    x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    log = []

    def pack(t):
        log.append(("pack", tuple(t.shape), t.requires_grad))
        return t.detach().clone()

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t

    with graph.saved_tensors_hooks(pack, unpack):
        y = (x.exp() * x.tanh()).sum()
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    a = lib.ones(2, requires_grad=True)
    b = lib.ones(2, requires_grad=True)
    h = graph.register_multi_grad_hook(
        (a, b), lambda gs: log.append([None if v is None else v.tolist() for v in gs])
    )
    (a * 2).sum().backward()
    (a * 2 + b * 3).sum().backward()
    h.remove()
    return log, g.detach().numpy(), gg.numpy()


def test_saved_tensor_and_multi_grad_hooks_match_torch():
    log, g, gg = _hook_calls(minitorch)
    tlog, tg, tgg = _hook_calls(torch)
    assert log == tlog
    np.testing.assert_allclose(g, tg, rtol=1e-12)
    np.testing.assert_allclose(gg, tgg, rtol=1e-12)
