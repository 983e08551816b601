"""The no-node routes of session 45's helper composites against torch: cross, kron, outer, lerp,
addcmul, equal and allclose of plain CPU tensors under no_grad, einsum from its plan, digamma
and trigamma from their steps at once (tests/test_s45_composites.py compares each with
minitorch's general route, bit for bit): values, dtypes, shapes and strides, and the same ops
recorded (node names and gradients)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._programs import Rec, assert_records_match, run_program


def _program(dt_name):
    rng = np.random.default_rng(45)
    a_np, b_np = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    x_np, y_np = rng.standard_normal((3, 4)), rng.standard_normal((2, 5))
    v_np, w_np = rng.standard_normal(4), rng.standard_normal(3)
    s_np = rng.uniform(-4, 12, (3, 4))

    def prog(lib, rec):
        dt = getattr(lib, dt_name)
        a, b, x, y, v, w, s = (
            lib.tensor(n, dtype=dt) for n in (a_np, b_np, x_np, y_np, v_np, w_np, s_np)
        )
        with lib.no_grad():
            outs = {
                "cross": lib.linalg.cross(a, b),
                "cross_dim0": lib.cross(a[:3], b[:3], dim=0),
                "kron": lib.kron(x, y),
                "kron_ranks": lib.kron(v, x),
                "outer": lib.outer(v, w),
                "lerp": lib.lerp(x, x.flip(0), 0.3),
                "lerp_high": lib.lerp(x, x.flip(0), 0.8),
                "addcmul": lib.addcmul(x, x.flip(1), x.t().reshape(3, 4), value=0.5),
                "einsum": lib.einsum("ij,kj->ik", x, x),
                "einsum_again": lib.einsum("ij,kj->ik", x, x),
                "einsum_batch": lib.einsum("bij,bjk->bik", x.view(1, 3, 4), x.t().view(1, 4, 3)),
                "digamma": lib.digamma(s),
                "trigamma": lib.polygamma(1, s),
            }
            for name, out in outs.items():
                rec(name, out)
                rec(name + ".stride", str(tuple(out.stride())))
            rec("equal", str(lib.equal(x, x.clone())))
            rec("equal_shape", str(lib.equal(x, x.reshape(4, 3))))
            rec("allclose", str(lib.allclose(x, x + 1e-9)))
            rec("allclose_far", str(lib.allclose(x, x + 1e-2)))
        # the same ops recorded
        ar, xr = a.clone().requires_grad_(), x.clone().requires_grad_()
        for name, out in (
            ("cross", lib.linalg.cross(ar, b)),
            ("kron", lib.kron(xr, y)),
            ("lerp", lib.lerp(xr, x.flip(0), 0.3)),
            ("addcmul", lib.addcmul(xr, x, x.flip(1), value=0.5)),
            ("einsum", lib.einsum("ij,kj->ik", xr, x)),
        ):
            rec(name + ".node", type(out.grad_fn).__name__)
            go = lib.tensor(rng_go(out.shape), dtype=dt)
            leaf = ar if name == "cross" else xr
            (g,) = lib.autograd.grad(out, leaf, go)
            rec(name + ".grad", g)

    return prog


def rng_go(shape):
    return np.random.default_rng(sum(shape) + 7).standard_normal(tuple(shape))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_composites_match_torch(dt):
    torch = pytest.importorskip("torch")
    import minitorch

    want = run_program(_program(dt), torch, rec=Rec(dtypes=True))
    got = run_program(_program(dt), minitorch, rec=Rec(dtypes=True))
    tol = 1e-12 if dt == "float64" else 1e-5
    # (torch's ψ and ψ' are its own series, 20 ulps from the function: NOTE [ Digamma and
    # trigamma: torch's series, or the function's value ])
    assert_records_match(want, got, lambda n, v: 1e-4 if "gamma" in n else tol, dtypes=True)
