"""The products and joins that take the no-grad fast paths (NOTE [ Products on the no-grad fast
path ], NOTE [ Joins on the no-grad fast path ]) against torch: values, layouts, versions and
the errors of calls the fast paths hand to the full path, under no_grad and with grad mode on
and nothing requiring grad."""

import pytest

from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_randn as randn

torch = pytest.importorskip("torch")


def _record(rec, name, t):
    rec(name, t)
    rec(f"{name}.layout", f"{tuple(t.shape)} {t.stride()} v{t._version} {t.requires_grad}")


def _products(lib, dt, rec):
    x, w = randn(lib, dt, 1, 16, 32), randn(lib, dt, 2, 32, 24)
    v, b = randn(lib, dt, 3, 32), randn(lib, dt, 4, 24)
    x3, b3 = randn(lib, dt, 5, 4, 16, 32), randn(lib, dt, 6, 4, 32, 8)
    cases = {
        "x@w": lambda: x @ w, "mm": lambda: lib.mm(x, w),
        "x@w.t": lambda: x @ w.t().contiguous().t(),
        "mv": lambda: x @ v, "vm": lambda: v @ w, "fold": lambda: x3 @ w, "bmm": lambda: x3 @ b3,
        "torch.bmm": lambda: lib.bmm(x3, b3), "addmm": lambda: lib.addmm(b, x, w),
        "addmm2": lambda: lib.addmm(randn(lib, dt, 7, 16, 24), x, w),
        "big": lambda: randn(lib, dt, 8, 70, 80) @ randn(lib, dt, 9, 80, 90),
    }  # fmt: skip
    for grad in (False, True):
        with lib.set_grad_enabled(grad):
            for name, fn in cases.items():
                _record(rec, f"{name}.{grad}", fn())


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_products_match_torch(dt):
    assert_program_matches(_products, torch, dt, tol=1e-5 if dt == "float32" else None)


def _joins(lib, dt, rec):
    x, y = randn(lib, dt, 1, 3, 4), randn(lib, dt, 2, 3, 4)
    cl = randn(lib, dt, 3, 2, 3, 4, 5).to(memory_format=lib.channels_last)
    for grad in (False, True):
        with lib.set_grad_enabled(grad):
            for d in (0, 1, -1):
                _record(rec, f"cat{d}.{grad}", lib.cat([x, y.t().t(), x[:, :4]], d))
                _record(rec, f"catT{d}.{grad}", lib.cat((x.t(), y.t()), d))
                _record(rec, f"stack{d}.{grad}", lib.stack([x, y.t().t()], d))
                _record(rec, f"stackT{d}.{grad}", lib.stack([x.t(), y.t()], d))
            _record(rec, f"cat_empty.{grad}", lib.cat([x, lib.zeros(0, dtype=dt), y], 1))
            _record(rec, f"stack2.{grad}", lib.stack([x, y], 2))
            _record(rec, f"cat_cl.{grad}", lib.cat([cl, cl], 1))
            _record(rec, f"stack_cl.{grad}", lib.stack([cl, cl], 1))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_joins_match_torch(dt):
    assert_program_matches(_joins, torch, dt, tol=0.0)


def _int_joins(lib, dt, rec):
    x = lib.arange(12, dtype=dt).reshape(3, 4)
    for grad in (False, True):
        with lib.set_grad_enabled(grad):
            _record(rec, f"cat.{grad}", lib.cat([x, x.t().t()], 1))
            _record(rec, f"stack.{grad}", lib.stack([x.t(), x.t()], -1))
            _record(rec, f"bool.{grad}", lib.cat([x > 3, x < 5]))


def test_integer_joins_match_torch():
    assert_program_matches(_int_joins, torch, "int64", tol=0.0)


CALLS = [
    "lib.cat([x, y])", "lib.cat([x, x.t()])", "lib.cat([x, x[None]])", "lib.cat([x, x.sum()])",
    "lib.cat([x, x], 2)", "lib.cat([x, x], -3)", "lib.stack([x, y])", "lib.stack([x, x], 3)",
    "lib.stack([x, x], -4)", "lib.stack([x, x.sum()])", "lib.stack([])", "lib.cat([])",
    "x @ y", "lib.mm(x, y)", "lib.mm(x, x.t().double())", "lib.mm(x, x[0])", "lib.bmm(x3, x3)",
    "lib.bmm(x3, x3.mT[:1])", "lib.bmm(x, x.t())", "x @ x[0, :3]", "x[0] @ x", "x3 @ y",
    "lib.addmm(x[0], x, x.t())", "lib.addmm(y, x, x.t())", "lib.addmm(x[0, :2], x.t(), x)",
    "lib.addmm(x.sum(), x.t(), x)", "x @ x.sum()", "lib.matmul(x, x.t(), out=x)",
]  # fmt: skip


def _errors(lib, rec):
    for requires_grad in (False, True):  # (with grad mode on: the full path, or a node)
        x, y = lib.ones(2, 3), lib.ones(4, 5)
        x3 = lib.ones(2, 3, 4)
        env = {"lib": lib, "x": x, "y": y, "x3": x3}
        for t in env.values() if requires_grad else ():
            if t is not lib:
                t.requires_grad_()
        for grad in (False, True):
            with lib.set_grad_enabled(grad):
                run_calls(CALLS, env, rec)


def test_errors_match_torch():
    assert_calls_match(_errors, torch)
