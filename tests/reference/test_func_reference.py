"""minitorch.func against torch.func: grad, vjp, jvp, jacrev, jacfwd, hessian, vmap and
functional_call give the same values, structures and exception types."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().cpu().numpy()


def _both(*arrays):
    """The same float64 arrays as (minitorch tensors, torch tensors)."""
    return [minitorch.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays]


def _same(got, want, msg, rtol=1e-10, atol=1e-12):
    """Same pytree structure, shapes, dtypes and values."""
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), f"{msg}: {got!r} vs {want!r}"
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            _same(g, w, f"{msg}[{k}]", rtol, atol)
    elif isinstance(want, dict):
        assert list(got) == list(want), f"{msg}: keys {list(got)} vs {list(want)}"
        for k in want:
            _same(got[k], want[k], f"{msg}[{k!r}]", rtol, atol)
    else:
        assert tuple(got.shape) == tuple(want.shape), f"{msg}: {got.shape} vs {want.shape}"
        assert str(got.dtype) == str(want.dtype), msg
        assert got.requires_grad == want.requires_grad, f"{msg}: requires_grad"
        np.testing.assert_allclose(_np(got), _np(want), rtol=rtol, atol=atol, err_msg=msg)


def _f(lib, x, y):
    return (x.sin() * y.exp()).sum() + (x * x * y).sum()


def _g(lib, x, y):
    return {"a": x.tanh() * y, "b": (x.exp(), (x * y).sum(-1))}


@pytest.mark.parametrize("argnums", [0, 1, -1, (0, 1), (1, 0)])
def test_grad_and_grad_and_value(argnums):
    rng = np.random.default_rng(0)
    (mx, my), (tx, ty) = _both(rng.standard_normal((2, 3)), rng.standard_normal((2, 3)))
    got = minitorch.func.grad(lambda x, y: _f(minitorch, x, y), argnums)(mx, my)
    want = torch.func.grad(lambda x, y: _f(torch, x, y), argnums)(tx, ty)
    _same(got, want, f"grad argnums={argnums}")
    got = minitorch.func.grad_and_value(lambda x, y: _f(minitorch, x, y), argnums)(mx, my)
    want = torch.func.grad_and_value(lambda x, y: _f(torch, x, y), argnums)(tx, ty)
    _same(got, want, f"grad_and_value argnums={argnums}")


def test_grad_pytrees_aux_nesting_and_requires_grad():
    rng = np.random.default_rng(1)
    arrays = rng.standard_normal((3, 4))
    (ma, mb, mc), (ta, tb, tc) = _both(*arrays)

    def loss(p, c):
        return (p["w"] * p["v"][0] * c).sin().sum(), {"aux": p["w"] * 2}

    got = minitorch.func.grad(loss, has_aux=True)({"w": ma, "v": [mb]}, mc)
    want = torch.func.grad(loss, has_aux=True)({"w": ta, "v": [tb]}, tc)
    _same(got, want, "grad pytree + aux")
    got = minitorch.func.grad(minitorch.func.grad(minitorch.sin))(ma[0])
    want = torch.func.grad(torch.func.grad(torch.sin))(ta[0])
    _same(got, want, "grad(grad(sin))")
    got = minitorch.func.grad(lambda x: (x**3).sum())(ma.clone().requires_grad_())
    want = torch.func.grad(lambda x: (x**3).sum())(ta.clone().requires_grad_())
    _same(got, want, "grad of a requires_grad input keeps a graph")
    got = minitorch.func.grad(lambda x: (x * mb).sum())(ma)
    want = torch.func.grad(lambda x: (x * tb).sum())(ta)
    _same(got, want, "grad of a plain input is plain")


@pytest.mark.parametrize("argnums", [0, (0, 1)])
@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
def test_jacobians(name, argnums):
    rng = np.random.default_rng(2)
    (mx, my), (tx, ty) = _both(rng.standard_normal((2, 3)), rng.standard_normal(3))
    got = getattr(minitorch.func, name)(lambda x, y: _g(minitorch, x, y), argnums)(mx, my)
    want = getattr(torch.func, name)(lambda x, y: _g(torch, x, y), argnums)(tx, ty)
    _same(got, want, f"{name} argnums={argnums}")


def test_jacobians_with_aux_and_hessian():
    rng = np.random.default_rng(3)
    (mx, my), (tx, ty) = _both(rng.standard_normal(3), rng.standard_normal(3))

    def f(x, y):
        return (x.sin() * y * y).sum() + (x * y).exp().sum()

    for argnums in (0, 1, (0, 1)):
        got = minitorch.func.hessian(f, argnums)(mx, my)
        want = torch.func.hessian(f, argnums)(tx, ty)
        _same(got, want, f"hessian argnums={argnums}")
    got = minitorch.func.jacrev(lambda x: (x.exp(), x.sum()), has_aux=True)(mx)
    want = torch.func.jacrev(lambda x: (x.exp(), x.sum()), has_aux=True)(tx)
    _same(got, want, "jacrev has_aux")
    got = minitorch.func.jacfwd(lambda x: (x.exp(), x.sum()), has_aux=True)(mx)
    want = torch.func.jacfwd(lambda x: (x.exp(), x.sum()), has_aux=True)(tx)
    _same(got, want, "jacfwd has_aux")


def test_vjp_and_jvp():
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((2, 3)) for _ in range(5)]
    (mx, my, mv1, mv2, mv3), (tx, ty, tv1, tv2, tv3) = _both(*arrays)

    def f(x, y):
        return {"a": x.tanh() * y, "b": (x.exp(), (x * y).sum(-1))}

    m_out, m_fn = minitorch.func.vjp(f, mx, my)
    t_out, t_fn = torch.func.vjp(f, tx, ty)
    _same(m_out, t_out, "vjp output")
    m_cot = {"a": mv1, "b": (mv2, mv3[:, 0])}
    t_cot = {"a": tv1, "b": (tv2, tv3[:, 0])}
    _same(m_fn(m_cot), t_fn(t_cot), "vjp_fn")
    m_cot["a"].requires_grad_()
    t_cot["a"].requires_grad_()
    _same(m_fn(m_cot), t_fn(t_cot), "vjp_fn with a cotangent requiring grad")
    got = minitorch.func.jvp(lambda x, y: f(x, y)["b"], (mx, my), (mv1, mv2))
    want = torch.func.jvp(lambda x, y: f(x, y)["b"], (tx, ty), (tv1, tv2))
    _same(got, want, "jvp")


def test_vmap_in_dims_out_dims():
    rng = np.random.default_rng(5)
    arrays = rng.standard_normal((4, 3)), rng.standard_normal((3, 4)), rng.standard_normal((3, 3))
    (ma, mb, mm), (ta, tb, tm) = _both(*arrays)
    cases = [
        ("dot", lambda lib: lib.func.vmap(lib.dot, in_dims=(0, 1)), lambda a, b, m: (a, b)),
        ("mv", lambda lib: lib.func.vmap(lib.mv, in_dims=(None, 0)), lambda a, b, m: (m, a)),
        ("out1", lambda lib: lib.func.vmap(lambda x: x * 2, out_dims=1), lambda a, b, m: (a,)),
        ("neg", lambda lib: lib.func.vmap(lib.sin, -1, -1), lambda a, b, m: (b,)),
        ("nested", lambda lib: lib.func.vmap(lib.func.vmap(lib.mul)), lambda a, b, m: (a, a)),
        (
            "outer",
            lambda lib: lib.func.vmap(
                lib.func.vmap(lib.outer, in_dims=(None, 0)), in_dims=(0, None)
            ),
            lambda a, b, m: (a, m),
        ),
        (
            "pytree",
            lambda lib: lib.func.vmap(
                lambda d, s: {"y": d["x"] * s, "z": (d["x"].sum(), d["c"] + 0)},
                in_dims=({"x": 1, "c": None}, None),
                out_dims={"y": 1, "z": (0, 0)},
            ),
            lambda a, b, m: ({"x": b, "c": m}, 3.0),
        ),
        ("chunk", lambda lib: lib.func.vmap(lib.exp, chunk_size=3), lambda a, b, m: (a,)),
        (
            "tuple_out",
            lambda lib: lib.func.vmap(lambda x: (x, x.sum()), out_dims=(1, 0)),
            lambda a, b, m: (a,),
        ),
    ]
    for name, make, args in cases:
        got = make(minitorch)(*args(ma, mb, mm))
        want = make(torch)(*args(ta, tb, tm))
        _same(got, want, f"vmap {name}")


def test_per_sample_gradients_and_functional_call():
    minitorch.manual_seed(0)
    torch.manual_seed(0)
    m_model = minitorch.nn.Sequential(
        minitorch.nn.Linear(3, 4), minitorch.nn.BatchNorm1d(4), minitorch.nn.Tanh()
    ).double()
    t_model = torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Tanh()
    ).double()
    t_model.load_state_dict({k: torch.tensor(_np(v)) for k, v in m_model.state_dict().items()})
    m_model.eval()
    t_model.eval()
    rng = np.random.default_rng(6)
    (mx, my), (tx, ty) = _both(rng.standard_normal((5, 3)), rng.standard_normal((5, 4)))

    def per_sample(lib, model, x, y):
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def loss(p, b, xi, yi):
            out = lib.func.functional_call(model, (p, b), (xi.unsqueeze(0),))
            return ((out - yi) ** 2).mean()

        return lib.func.vmap(lib.func.grad(loss), in_dims=(None, None, 0, 0))(params, buffers, x, y)

    _same(per_sample(minitorch, m_model, mx, my), per_sample(torch, t_model, tx, ty), "per-sample")

    # train mode: the swapped-in buffers are updated in place, the module's are not
    m_model.train()
    t_model.train()
    m_buf = {k: v.clone() for k, v in m_model.named_buffers()}
    t_buf = {k: v.clone() for k, v in t_model.named_buffers()}
    got = minitorch.func.functional_call(m_model, m_buf, mx)
    want = torch.func.functional_call(t_model, t_buf, tx)
    _same(got, want, "functional_call train mode", rtol=1e-7)
    _same(m_buf, t_buf, "updated buffers", rtol=1e-7)
    _same(dict(m_model.named_buffers()), dict(t_model.named_buffers()), "module buffers kept")


def _error(lib, fn):
    try:
        fn(lib)
    except Exception as e:  # the type is what is compared
        return type(e).__name__
    return None


@pytest.mark.parametrize(
    "name, fn",
    [
        ("non-scalar", lambda lib: lib.func.grad(lambda x: x * 2)(lib.ones(3))),
        ("non-tensor", lambda lib: lib.func.grad(lambda x: 1.0)(lib.ones(3))),
        ("argnum range", lambda lib: lib.func.grad(lambda x: x.sum(), 1)(lib.ones(3))),
        ("argnum dup", lambda lib: lib.func.grad(lambda x, y: x.sum(), (0, 0))(lib.ones(1), 1)),
        ("float arg", lambda lib: lib.func.grad(lambda x, n: x.sum() * n, 1)(lib.ones(3), 2.0)),
        ("aux", lambda lib: lib.func.grad(lambda x: x.sum(), has_aux=True)(lib.ones(3))),
        ("vjp int out", lambda lib: lib.func.vjp(lambda x: x > 0, lib.ones(3))),
        ("vjp cot", lambda lib: lib.func.vjp(lambda x: (x, x), lib.ones(3))[1](lib.ones(3))),
        ("jacrev chunk", lambda lib: lib.func.jacrev(lib.sin, chunk_size=0)),
        ("vmap sizes", lambda lib: lib.func.vmap(lib.add)(lib.ones(2, 3), lib.ones(3, 3))),
        ("vmap non-tensor", lambda lib: lib.func.vmap(lambda x, n: x * n)(lib.ones(2), 2)),
        ("vmap in_dim", lambda lib: lib.func.vmap(lib.sin, in_dims=2)(lib.ones(2, 2))),
        ("vmap structure", lambda lib: lib.func.vmap(lib.add, in_dims=(0,))(lib.ones(2), 1)),
        ("vmap output", lambda lib: lib.func.vmap(lambda x: 1.0)(lib.ones(2))),
        ("vmap randomness", lambda lib: lib.func.vmap(lib.sin, randomness="x")(lib.ones(2))),
        (
            "fc strict",
            lambda lib: lib.func.functional_call(
                lib.nn.Linear(2, 2), {"weight": lib.ones(2, 2)}, lib.ones(2), strict=True
            ),
        ),
        (
            "fc duplicate",
            lambda lib: lib.func.functional_call(
                lib.nn.Linear(2, 2), ({"bias": lib.ones(2)}, {"bias": lib.ones(2)}), lib.ones(2)
            ),
        ),
    ],
)
def test_error_types(name, fn):
    assert _error(minitorch, fn) == _error(torch, fn) is not None, name
