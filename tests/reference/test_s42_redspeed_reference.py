"""The reductions' common calls and their no-grad fast paths (session 42, redspeed) against torch:
values (NaN, signed zeros and infinities where torch has them), max/min indices, dtypes,
grad_fn names and saved attributes, first and second order gradients, and errors."""

import pytest

from tests.reference._programs import assert_program_matches, seeded_randn

torch = pytest.importorskip("torch")


def _special(lib, dt, seed, *shape):
    """seeded values with NaN, +-0. and +-inf among them."""
    x = seeded_randn(lib, lib.float64, seed, *shape) * 3
    flat = x.reshape(-1)
    specials = (float("nan"), 0.0, -0.0, float("inf"), -float("inf"))
    for i, v in zip((1, 4, 6, 9, 11), specials, strict=True):
        flat[i % flat.numel()] = v
    return flat.reshape(shape).to(dt)


def _calls(lib):
    return {
        "max()": lambda x: x.max(),
        "min()": lambda x: lib.min(x),
        "max(1)": lambda x: x.max(1),
        "min(-1, True)": lambda x: x.min(-1, True),
        "max(dim=0)": lambda x: lib.max(x, dim=0),
        "amax(1)": lambda x: x.amax(1),
        "amin(0, True)": lambda x: lib.amin(x, 0, True),
        "sum(1)": lambda x: x.sum(1),
        "sum(1, True)": lambda x: lib.sum(x, 1, True),  # (-1: its _saved_dim differs)
        "mean()": lambda x: x.mean(),
        "mean(1)": lambda x: x.mean(1),
        "mean(0, True)": lambda x: lib.mean(x, 0, True),
        "logsumexp(1)": lambda x: x.logsumexp(1),
        "logsumexp(-1, True)": lambda x: lib.logsumexp(x, -1, True),
        "var()": lambda x: x.var(),
        "std(1)": lambda x: x.std(1),
        "var(0, keepdim=True)": lambda x: x.var(0, keepdim=True),
        "norm()": lambda x: x.norm(),
        "prod()": lambda x: x.prod(),
    }


def _values(lib, dt, rec):
    for dtype in ("float32", "float64"):
        for shape in ((5, 7), (4, 3, 6)):
            for trans in (False, True):
                x = _special(lib, getattr(lib, dtype), 3, *shape)
                x = x.transpose(0, 1) if trans else x
                for name, fn in _calls(lib).items():
                    key = f"{dtype}{shape}{'T' if trans else ''}.{name}"
                    for mode in ("grad", "no_grad"):
                        ctx = lib.no_grad() if mode == "no_grad" else lib.enable_grad()
                        with ctx:
                            out = fn(x)
                        for i, t in enumerate(out if isinstance(out, tuple) else (out,)):
                            rec(f"{key}.{mode}.{i}", t)
                            if t.is_floating_point():  # (a NaN's sign is no value's)
                                rec(f"{key}.{mode}.{i}.signbit", t.signbit() & ~t.isnan())
    xi = (seeded_randn(lib, lib.float64, 4, 5, 6) * 10).to(lib.int64)
    for name in ("max()", "min()", "max(1)", "min(-1, True)", "amax(1)"):
        with lib.no_grad():
            out = _calls(lib)[name](xi)
        for i, t in enumerate(out if isinstance(out, tuple) else (out,)):
            rec(f"int64.{name}.{i}", t)


def test_values_and_indices_match_torch():
    assert_program_matches(_values, torch, "float64", tol=1e-6)


def _grads(lib, dt, rec):
    x = seeded_randn(lib, dt, 5, 4, 6)
    x.requires_grad_()
    calls = _calls(lib)
    for name, fn in calls.items():
        out = fn(x)
        t = out[0] if isinstance(out, tuple) else out
        rec(f"{name}.fn", type(t.grad_fn).__name__)
        for attr in ("_saved_dim", "_saved_keepdim", "_saved_correction", "_saved_ord"):
            if hasattr(t.grad_fn, attr):
                rec(f"{name}.{attr}", repr(getattr(t.grad_fn, attr)))
        if hasattr(t.grad_fn, "_saved_result"):
            rec(f"{name}.result", t.grad_fn._saved_result)
        up = lib.randn(tuple(t.shape), generator=lib.Generator().manual_seed(6), dtype=dt)
        (g,) = lib.autograd.grad(t, x, up, create_graph=True)
        rec(f"{name}.grad", g)
        if g.requires_grad:
            (gg,) = lib.autograd.grad((g * g).sum(), x, allow_unused=True)
            rec(f"{name}.gradgrad", gg if gg is not None else "none")


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_nodes_and_gradients_match_torch(dt):
    assert_program_matches(_grads, torch, dt)


def _errors(lib, dt, rec):
    x = seeded_randn(lib, dt, 7, 3, 4)
    bad = {
        "max(5)": lambda: x.max(5),
        "max(1, 1)": lambda: x.max(1, 1),
        "empty max()": lambda: x[:0].max(),
        "empty max(0)": lambda: x[:0].max(0),
        "sum(2)": lambda: x.sum(2),
        "mean(2)": lambda: x.mean(2),
        "int mean()": lambda: x.long().mean(),
        "amax(2)": lambda: x.amax(2),
        "logsumexp(2)": lambda: x.logsumexp(2),
        "std(2)": lambda: x.std(2),
    }
    for name, fn in bad.items():
        rec.err(name, fn)
        with lib.no_grad():
            rec.err(name + ".no_grad", fn)


def test_errors_match_torch():
    assert_program_matches(_errors, torch, "float32")
