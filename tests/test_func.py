"""minitorch.func without torch: grad, vjp, jvp, jacrev, jacfwd, hessian, vmap and functional_call
checked against autograd.grad, autograd.functional, closed forms and per-sample loops."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import minitorch as mt
import minitorch.autograd.functional as AF
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.func import (
    functional_call,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    stack_module_state,
    vjp,
    vmap,
)


def _np(t):
    return t.detach().cpu().numpy()


def _t(rng, *shape):
    return mt.tensor(rng.standard_normal(shape))


def _close(got, want, msg, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(_np(got), _np(want), rtol=rtol, atol=atol, err_msg=msg)


def _f(x, y):
    return (x.sin() * y.exp()).sum() + (x * x * y).sum()


# --- grad, grad_and_value ---


def test_grad_matches_autograd_grad():
    rng = np.random.default_rng(0)
    x, y = _t(rng, 3, 2), _t(rng, 3, 2)
    xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()
    gx, gy = mt.autograd.grad(_f(xr, yr), (xr, yr))
    _close(grad(_f)(x, y), gx, "grad argnums=0")
    _close(grad(_f, argnums=1)(x, y), gy, "grad argnums=1")
    _close(grad(_f, argnums=-1)(x, y), gy, "grad argnums=-1")
    both = grad(_f, argnums=(0, 1))(x, y)
    assert isinstance(both, tuple) and len(both) == 2
    _close(both[0], gx, "grad argnums=(0, 1)[0]")
    _close(both[1], gy, "grad argnums=(0, 1)[1]")
    g, v = grad_and_value(_f)(x, y)
    _close(g, gx, "grad_and_value grad")
    _close(v, _f(x, y), "grad_and_value value")


def test_grad_closed_forms_pytrees_kwargs_and_aux():
    rng = np.random.default_rng(1)
    x, w = _t(rng, 4), _t(rng, 4)

    def loss(params, scale=1.0):
        return scale * ((params["w"] * params["x"][0]) ** 2).sum()

    g = grad(loss)({"w": w, "x": [x]}, scale=3.0)
    assert set(g) == {"w", "x"} and isinstance(g["x"], list)
    _close(g["w"], 6.0 * w * x * x, "dict grad w")
    _close(g["x"][0], 6.0 * x * w * w, "dict grad x")

    def with_aux(x):
        y = x.sin()
        return y.sum(), {"y": y, "n": mt.tensor(7)}  # aux holds tensors only, as in torch

    gx, aux = grad(with_aux, has_aux=True)(x)
    _close(gx, x.cos(), "grad with aux")
    _close(aux["y"], x.sin(), "aux value")
    assert aux["n"].item() == 7 and not aux["y"].requires_grad
    (gx2, (value, aux2)) = grad_and_value(with_aux, has_aux=True)(x)
    _close(gx2, x.cos(), "grad_and_value aux grad")
    _close(value, x.sin().sum(), "grad_and_value aux value")
    # an input the output does not use gets zeros
    _close(grad(lambda a, b: a.sum(), argnums=1)(x, w), mt.zeros(4, dtype=w.dtype), "unused")


def test_grad_results_are_plain_unless_a_graph_needs_them():
    rng = np.random.default_rng(2)
    x = _t(rng, 3)
    g = grad(lambda x: (x**3).sum())(x)
    assert not g.requires_grad and g.grad_fn is None
    with mt.no_grad():
        assert not grad(lambda x: (x**3).sum())(x.requires_grad_()).requires_grad
    x = x.detach()
    # a requires_grad input: the gradient stays differentiable (double backward through it)
    xr = x.clone().requires_grad_()
    g = grad(lambda x: (x**3).sum())(xr)
    assert g.requires_grad
    g.sum().backward()
    _close(xr.grad, 6 * x, "backward through grad(f)(x)")
    # a captured tensor that requires grad: the result is connected to it
    w = _t(rng, 3).requires_grad_()
    g = grad(lambda x: (x * w).sin().sum())(x)
    assert g.requires_grad
    (gw,) = mt.autograd.grad(g.sum(), w)
    _close(gw, (x * w).cos() - x * w * (x * w).sin(), "d/dw grad")
    # an aux result that depends on a captured leaf keeps its graph, shared nodes included
    _, aux = grad(lambda x: (x.sin().sum(), x.sin() * w), has_aux=True)(x)
    aux.sum().backward()
    _close(w.grad, x.sin(), "backward through aux")


def test_nested_grad_and_gradcheck_of_transforms():
    x0 = mt.tensor(0.7, dtype=mt.float64)
    _close(grad(grad(mt.sin))(x0), -x0.sin(), "second derivative")
    _close(grad(grad(grad(mt.sin)))(x0), -x0.cos(), "third derivative")
    # grad inside grad through a closure over the outer variable
    outer = grad(lambda x: grad(lambda y: (x * y * y).sum())(mt.tensor(2.0, dtype=x.dtype)))
    _close(outer(x0), mt.tensor(4.0, dtype=mt.float64), "closure d/dx d/dy (x y^2)")
    rng = np.random.default_rng(3)
    x = _t(rng, 3).requires_grad_()
    assert gradcheck(lambda x: grad(lambda z: (z.sin() * z).sum())(x), (x,))
    assert gradgradcheck(lambda x: grad(lambda z: (z**3).sum())(x), (x,))
    assert gradcheck(lambda x: vmap(grad(lambda z: (z.exp() * z).sum()))(x.view(3, 1)), (x,))


def test_grad_errors():
    x = mt.randn(3)
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        grad(lambda x: x * 2)(x)
    with pytest.raises(RuntimeError, match="to return a Tensor, got <class 'float'>"):
        grad(lambda x: 3.0)(x)
    with pytest.raises(RuntimeError, match="Got argnum=1, but only 1 positional inputs"):
        grad(lambda x: x.sum(), argnums=1)(x)
    with pytest.raises(RuntimeError, match="argnums elements must be unique"):
        grad(lambda x, y: x.sum(), argnums=(0, 0))(x, x)
    with pytest.raises(RuntimeError, match="argnums must be non-empty"):
        grad(lambda x: x.sum(), argnums=())(x)
    with pytest.raises(RuntimeError, match="argnum must be int"):
        grad(lambda x: x.sum(), argnums=(0.5,))(x)
    with pytest.raises(ValueError, match="Thing passed to transform API must be Tensor"):
        grad(lambda x, n: x.sum() * n, argnums=1)(x, 3.0)
    with pytest.raises(RuntimeError, match="should be a tuple: \\(output, aux\\)"):
        grad(lambda x: x.sum(), has_aux=True)(x)


# --- vjp, jvp ---


def test_vjp_matches_autograd_functional():
    rng = np.random.default_rng(4)
    x, y, v = _t(rng, 2, 3), _t(rng, 3), _t(rng, 2, 3)

    def f(x, y):
        return x.tanh() * y + x * x

    out, fn = vjp(f, x, y)
    want_out, want = AF.vjp(f, (x, y), v)
    _close(out, want_out, "vjp output")
    assert not out.requires_grad
    got = fn(v)
    assert isinstance(got, tuple) and len(got) == 2
    for k in range(2):
        _close(got[k], want[k], f"vjp {k}")
    again = fn(2 * v)  # the graph is retained: vjp_fn can be called again
    _close(again[0], 2 * want[0], "vjp second call")
    out, fn, aux = vjp(lambda x: (x.exp(), {"a": x.exp(), "b": x}), x, has_aux=True)
    _close(aux["a"], x.exp(), "vjp aux")
    _close(fn(v)[0], v * x.exp(), "vjp with aux")
    with pytest.raises(RuntimeError, match="Expected pytree structure of cotangents"):
        vjp(lambda x: (x, x), x)[1](v)
    with pytest.raises(RuntimeError, match="must be floating-point or complex"):
        vjp(lambda x: x > 0, x)
    with pytest.raises(RuntimeError, match="expected f\\(\\*primals\\) to return only tensors"):
        vjp(lambda x: [x, 1.0], x)


def test_vjp_cotangent_that_requires_grad_keeps_the_graph():
    rng = np.random.default_rng(5)
    x, c = _t(rng, 3), _t(rng, 3).requires_grad_()
    _, fn = vjp(mt.sin, x)
    (g,) = fn(c)
    assert g.requires_grad
    (gc,) = mt.autograd.grad(g.sum(), c)
    _close(gc, x.cos(), "d(vjp)/dcotangent")


def test_jvp_matches_autograd_functional():
    rng = np.random.default_rng(6)
    x, y, tx, ty = _t(rng, 3), _t(rng, 3), _t(rng, 3), _t(rng, 3)

    def f(x, y):
        return x.sin() * y, (x * y).sum()

    out, jv = jvp(f, (x, y), (tx, ty))
    want_out, want = AF.jvp(f, (x, y), (tx, ty))
    for k in range(2):
        _close(out[k], want_out[k], f"jvp out {k}")
        _close(jv[k], want[k], f"jvp {k}")
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        jvp(mt.sin, x, (tx,))


# --- jacobians ---


def test_jacrev_jacfwd_match_autograd_functional_jacobian():
    rng = np.random.default_rng(7)
    x, y = _t(rng, 2, 3), _t(rng, 3)

    def f(x, y):
        return x.sin() * y, (x * x).sum(1)

    want = AF.jacobian(f, (x, y))
    for transform in (jacrev, jacfwd):
        got = transform(f, argnums=(0, 1))(x, y)
        for i in range(2):
            for j in range(2):
                _close(got[i][j], want[i][j], f"{transform.__name__} [{i}][{j}]")
        got0 = transform(f)(x, y)
        assert isinstance(got0, tuple) and len(got0) == 2
        _close(got0[1], want[1][0], f"{transform.__name__} argnums=0")
        assert tuple(got0[0].shape) == (2, 3, 2, 3)
    jac, aux = jacrev(lambda x: (x.exp(), x.sum()), has_aux=True)(y)
    _close(jac, mt.diag(y.exp()), "jacrev has_aux")
    _close(aux, y.sum(), "jacrev aux")
    jac, aux = jacfwd(lambda x: (x.exp(), x.sum()), 0, True)(y)
    _close(jac, mt.diag(y.exp()), "jacfwd has_aux")
    d = jacrev(lambda p: {"o": p["a"] * p["b"]})({"a": y, "b": 2 * y})
    _close(d["o"]["a"], mt.diag(2 * y), "pytree jacobian a")
    _close(d["o"]["b"], mt.diag(y), "pytree jacobian b")
    with pytest.raises(ValueError, match="`chunk_size` should be greater than 0"):
        jacrev(mt.sin, chunk_size=0)
    _close(jacrev(mt.sin, chunk_size=2)(y), mt.diag(y.cos()), "chunk_size")


def test_hessian_matches_autograd_functional_and_closed_form():
    rng = np.random.default_rng(8)
    x, y = _t(rng, 3), _t(rng, 3)

    def f(x, y):
        return (x.sin() * y * y).sum()

    h = hessian(f)(x, y)
    _close(h, AF.hessian(lambda x: f(x, y), x), "hessian vs autograd.functional")
    _close(h, mt.diag(-x.sin() * y * y), "hessian closed form")
    hh = hessian(f, argnums=(0, 1))(x, y)
    want = AF.hessian(f, (x, y))
    for i in range(2):
        for j in range(2):
            _close(hh[i][j], want[i][j], f"hessian [{i}][{j}]")
    _close(jacrev(jacrev(f))(x, y), h, "jacrev(jacrev)")


# --- vmap ---


def test_vmap_in_dims_out_dims_and_nesting():
    rng = np.random.default_rng(9)
    a, b, m = _t(rng, 4, 3), _t(rng, 3, 4), _t(rng, 3, 3)
    _close(vmap(mt.dot)(a, b.t()), (a * b.t()).sum(1), "vmap dot")
    _close(vmap(mt.dot, in_dims=(0, 1))(a, b), (a * b.t()).sum(1), "in_dims=(0, 1)")
    _close(vmap(mt.mv, in_dims=(None, 0))(m, a), a @ m.t(), "in_dims None")
    _close(vmap(lambda x: x * 2, out_dims=1)(a), (a * 2).t(), "out_dims=1")
    _close(vmap(lambda x: x * 2, in_dims=-1, out_dims=-1)(a), a * 2, "negative dims")
    _close(vmap(vmap(mt.mul))(a, a), a * a, "nested vmap")
    outer = vmap(vmap(mt.outer, in_dims=(None, 0)), in_dims=(0, None))(a, b.t())
    want = np.einsum("ik,jl->ijkl", _np(a), _np(b.t()))
    np.testing.assert_allclose(_np(outer), want, rtol=1e-12, err_msg="nested in_dims")
    out = vmap(
        lambda d, s: {"y": d["x"] * s, "z": (d["x"].sum(), d["c"])},
        in_dims=({"x": 0, "c": None}, None),
    )({"x": a, "c": m}, 3.0)
    _close(out["y"], 3 * a, "dict input")
    _close(out["z"][0], a.sum(1), "tuple output")
    _close(out["z"][1], m.expand(4, 3, 3), "unmapped output is broadcast")
    two = vmap(lambda x: (x, m.sum()), out_dims=(1, None))(a)
    _close(two[0], a.t(), "out_dims tuple")
    _close(two[1], m.sum(), "out_dims None: an output that does not depend on the batch")
    with pytest.raises(ValueError):  # a batched output cannot be unmapped, as in torch
        vmap(lambda x: x.sum(), out_dims=None)(a)
    _close(vmap(lambda x, k=1: x * k)(a, k=5), 5 * a, "kwargs are not mapped")
    _close(vmap(mt.sin, chunk_size=3)(a), a.sin(), "chunk_size")
    empty = vmap(lambda x: x.sum(0))(mt.zeros(0, 3))
    assert tuple(empty.shape) == (0,)


def test_vmap_errors():
    a = mt.ones(2, 3)
    with pytest.raises(ValueError, match="Expected all tensors to have the same size in the"):
        vmap(mt.add)(a, mt.ones(3, 3))
    with pytest.raises(ValueError, match="cannot vmap over non-Tensor arguments"):
        vmap(lambda x, n: x * n)(a, 2)
    with pytest.raises(ValueError, match="expected in_dim to satisfy -2 <= in_dim < 2"):
        vmap(mt.sin, in_dims=2)(a)
    with pytest.raises(ValueError, match="in_dims is not compatible with the structure"):
        vmap(mt.add, in_dims=(0,))(a, a)
    with pytest.raises(ValueError, match="expected `in_dims` to be int or a"):
        vmap(mt.sin, in_dims=[0])(a)
    with pytest.raises(ValueError, match="got no inputs"):
        vmap(lambda: mt.ones(1))()
    with pytest.raises(ValueError, match="Expected at least one Tensor to vmap over"):
        vmap(mt.sin, in_dims=(None,))(a)
    with pytest.raises(ValueError, match="must only return Tensors"):
        vmap(lambda x: 1.0)(a)
    with pytest.raises(ValueError, match="out_dims is not compatible"):
        vmap(lambda x: (x, x), out_dims=(0, 0, 0))(a)
    with pytest.raises(ValueError, match="chunk_size should be None or greater than 0"):
        vmap(mt.sin, chunk_size=0)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        vmap(mt.sin, randomness="sometimes")(a)


def test_vmap_randomness():
    x = mt.zeros(3, 4)
    same = vmap(lambda x: x + mt.rand(4), randomness="same")(x)
    _close(same[1], same[0], "same randomness")
    diff = vmap(lambda x: x + mt.rand(4), randomness="different")(x)
    assert not np.allclose(_np(diff[0]), _np(diff[1]))


# --- per-sample gradients (the flagship use) ---


def test_per_sample_gradients_equal_per_sample_loop():
    mt.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double()
    rng = np.random.default_rng(10)
    x, y = _t(rng, 5, 3), _t(rng, 5, 2)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(params, xi, yi):
        out = functional_call(model, params, (xi.unsqueeze(0),))
        return ((out - yi.unsqueeze(0)) ** 2).mean()

    per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    for i in range(5):
        model.zero_grad()
        ((model(x[i : i + 1]) - y[i : i + 1]) ** 2).mean().backward()
        for k, p in model.named_parameters():
            assert tuple(per_sample[k].shape) == (5, *p.shape)
            _close(per_sample[k][i], p.grad, f"sample {i} {k}")
    for k, p in model.named_parameters():  # the model is untouched
        assert isinstance(p, nn.Parameter) and getattr(model, k.split(".")[0]) is not None


def test_stack_module_state_ensemble():
    mt.manual_seed(1)
    models = [nn.Linear(3, 2).double() for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert tuple(params["weight"].shape) == (4, 2, 3) and params["weight"].is_leaf
    assert params["weight"].requires_grad and buffers == {}
    x = mt.tensor(np.random.default_rng(11).standard_normal((6, 3)))
    out = vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)), in_dims=(0, 0, None))(
        params, buffers, x
    )
    for i, m in enumerate(models):
        _close(out[i], m(x), f"ensemble member {i}")
    with pytest.raises(RuntimeError, match="Expected at least one model"):
        stack_module_state([])
    with pytest.raises(RuntimeError, match="same class"):
        stack_module_state([nn.Linear(2, 2), nn.Bilinear(2, 2, 2)])


# --- functional_call ---


class _Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.register_buffer("scale", mt.tensor(2.0))
        self.fail = False

    def forward(self, x, shift=0.0):
        if self.fail:
            raise ValueError("boom")
        return self.lin(x) * self.scale + shift


def test_functional_call_swaps_and_restores():
    mt.manual_seed(2)
    m = _Scaler()
    orig = {k: v for k, v in m.state_dict(keep_vars=True).items()}
    new = {"lin.weight": mt.eye(2), "lin.bias": mt.zeros(2), "scale": mt.tensor(3.0)}
    x = mt.tensor([[1.0, 2.0]])
    _close(functional_call(m, new, (x,)), 3 * x, "all swapped")
    _close(functional_call(m, new, x, {"shift": 1.0}), 3 * x + 1, "args tensor + kwargs")
    _close(
        functional_call(m, ({"lin.weight": mt.eye(2)}, {"lin.bias": mt.ones(2)}), x),
        2 * (x + 1),
        "tuple of dicts, buffer kept",
    )
    for k, v in m.state_dict(keep_vars=True).items():
        assert v is orig[k], k
    assert isinstance(m.lin.weight, nn.Parameter)
    m.fail = True
    with pytest.raises(ValueError, match="boom"):
        functional_call(m, new, (x,))
    for k, v in m.state_dict(keep_vars=True).items():
        assert v is orig[k], f"{k} restored after an exception"
    m.fail = False
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(m, ({"scale": mt.tensor(1.0)}, {"scale": mt.tensor(1.0)}), (x,))
    with pytest.raises(RuntimeError, match="Missing key\\(s\\): 'lin.bias', 'scale'"):
        functional_call(m, {"lin.weight": mt.eye(2)}, (x,), strict=True)
    with pytest.raises(RuntimeError, match="Unexpected key\\(s\\): 'nope'"):
        functional_call(m, {**new, "nope": mt.ones(1)}, (x,), strict=True)
    assert not hasattr(m, "nope")
    # gradients flow to the given tensors, not to the module's parameters
    w = mt.eye(2).requires_grad_()
    functional_call(m, {"lin.weight": w}, (x,)).sum().backward()
    assert w.grad is not None and m.lin.weight.grad is None


def test_functional_call_tied_weights_and_write_back():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight
            self.register_buffer("count", mt.tensor(0.0))

        def forward(self, x):
            self.count = self.count + 1
            return self.b(self.a(x))

    m = Tied()
    x = mt.tensor([[1.0, -1.0]])
    w = 2 * mt.eye(2)
    _close(functional_call(m, {"a.weight": w}, (x,)), 4 * x, "tied weights follow")
    _close(
        functional_call(m, {"a.weight": w}, (x,), tie_weights=False),
        2 * x @ m.a.weight.t(),
        "untied",
    )
    with pytest.raises(ValueError, match="which are tied"):
        functional_call(m, {"a.weight": w, "b.weight": mt.eye(2)}, (x,))
    state = {"count": mt.tensor(5.0)}
    functional_call(m, state, (x,))
    _close(state["count"], mt.tensor(6.0), "reassigned buffer written back")
    _close(m.count, mt.tensor(2.0), "the swapped-in call leaves the module buffer alone")


def test_stateless_functional_call_warns_and_matches():
    m = _Scaler()
    x = mt.tensor([[1.0, 2.0]])
    new = {"lin.weight": mt.eye(2), "lin.bias": mt.zeros(2)}
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        got = nn.utils.stateless.functional_call(m, new, (x,))
    _close(got, 2 * x, "stateless.functional_call")


def test_func_is_lazy():
    code = "import sys, minitorch; assert 'minitorch.func' not in sys.modules; minitorch.func.vmap"
    with warnings.catch_warnings():
        subprocess.run([sys.executable, "-c", code], check=True, cwd=".")


def test_transforms_on_every_device(device):
    rng = np.random.default_rng(12)
    x = mt.tensor(rng.standard_normal((4, 3)), device=device)
    w = mt.tensor(rng.standard_normal(3), device=device)
    per_sample = vmap(grad(lambda w, xi: (xi * w).sin().sum()), in_dims=(None, 0))(w, x)
    assert per_sample.device == x.device
    _close(per_sample, x * (x * w).cos(), "vmap(grad) on device")
    _close(jacrev(mt.sin)(w), mt.diag(w.cos()), "jacrev on device")
    _close(hessian(lambda w: (w**3).sum())(w), mt.diag(6 * w), "hessian on device")
    empty = vmap(mt.sin)(mt.zeros(0, 3, device=device))
    assert tuple(empty.shape) == (0, 3) and empty.device == x.device


def test_transforms_and_tree_map_rebuild_return_types():
    # torch.return_types (max, sort, ...) take one sequence, not one argument per field
    x = mt.tensor(np.arange(24.0).reshape(2, 3, 4) % 5)
    r = vmap(lambda v: v.max(0))(x)
    assert type(r).__name__ == "max" and tuple(r.values.shape) == (2, 4)
    np.testing.assert_array_equal(r.values.numpy(), (np.arange(24.0).reshape(2, 3, 4) % 5).max(1))
    s = mt.utils._pytree.tree_map(lambda t: t * 2, x[0].sort(-1))
    assert type(s).__name__ == "sort" and s.values[0, -1].item() == 6.0  # 2 * max(0, 1, 2, 3)
