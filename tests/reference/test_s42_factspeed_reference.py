"""The factories' common calls and the conversions (the forms minitorch reads inline or takes on
its no-grad fast path: NOTE [ The factories' common call ], _convert in _ops/convert.py) against
torch: values, dtypes, strides, flags, graph nodes, inference tensors and argument errors."""

import numpy as np
import pytest

from tests.reference._programs import Rec, assert_records_match, run_calls, run_program

torch = pytest.importorskip("torch")


def record(rec, name, t, values=True):
    """t's metadata as one text, and its values (not for empty(), whose memory is undefined)."""
    gf = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    rec(f"{name}.meta", f"{str(t.dtype).split('.')[-1]} {tuple(t.shape)} {t.stride()} "
        f"{t.device.type} {t.requires_grad} {t.is_leaf} {gf} {t.is_inference()}")  # fmt: skip
    if values:
        rec(name, t)


FACTORIES = [
    "zeros(32, 32)", "zeros((2, 3))", "zeros([2, 3])", "zeros(lib.Size([2, 3]))",
    "zeros(size=(2, 3))", "zeros(2, 3, dtype=lib.float64)", "zeros(2, 3, device='cpu')",
    "zeros(2, 3, requires_grad=True)", "zeros(2, 0)", "zeros(())", "zeros(4, dtype=lib.int64)",
    "ones(2, 3)", "ones((4,))",
    "ones(2, 3, dtype=lib.bool)", "ones(2, dtype=lib.uint8)", "ones(2, 3, dtype=lib.float16)",
    "full((2, 3), 2.0)", "full([2, 3], -0.0)", "full((3,), -100)",
    "full((2,), 7, dtype=lib.float64)", "full((2,), float('-inf'))",
    "full((2,), float('nan'), dtype=lib.float64)", "full((0, 3), 1.5)",
    "full((2,), 3.4028234663852886e38)", "full((2, 2), 0.1, requires_grad=True)",
    "full((2,), 2**63 - 1)", "full((2,), -(2**63))", "full(lib.Size([3]), 1e-45)",
    "eye(8)", "eye(3, 5)", "eye(5, 3, dtype=lib.int64)", "eye(0, 2)", "eye(3, dtype=lib.bool)",
    "eye(2, requires_grad=True)", "zeros_like(x)", "ones_like(xt)", "full_like(x, 2.5)",
    "full_like(xt, -1)", "zeros_like(xcl)", "ones_like(xe)", "zeros_like(x, dtype=lib.int32)",
    "full_like(x, 3.0, requires_grad=True)", "tensor([1, 2], dtype=lib.float32)",
    "tensor([2**53 + 1, -(2**63)], dtype=lib.float64)", "tensor([16777217], dtype=lib.float32)",
    "tensor(5, dtype=lib.float64)", "from_numpy(nd)", "as_tensor(nd)", "from_numpy(nd[:, ::2])",
]  # fmt: skip
EMPTIES = [
    "empty(2, 3)", "empty((0, 3))", "empty(2, 3, 4, 5, memory_format=lib.channels_last)",
    "empty_like(xt)", "empty_like(xcl)", "empty(2, dtype=lib.int64, requires_grad=False)",
]  # fmt: skip


def env(lib):
    x = lib.tensor(np.arange(20.0, dtype=np.float32).reshape(4, 5) - 7.5)
    return {
        "lib": lib, "x": x, "xt": x.t(), "xe": x[0].expand(3, 5), "np": np,
        "xcl": lib.arange(120.0).reshape(2, 3, 4, 5).contiguous(memory_format=lib.channels_last),
        "nd": np.arange(12, dtype=np.float32).reshape(3, 4),
    }  # fmt: skip


def test_factories_match_torch():
    def prog(lib, rec):
        g = env(lib)
        for code in FACTORIES:
            t = eval(f"lib.{code}", g)  # noqa: S307
            record(rec, code, t)
            with lib.inference_mode():
                record(rec, "inference " + code, eval(f"lib.{code}", g), values=False)  # noqa: S307
        for code in EMPTIES:
            record(rec, code, eval(f"lib.{code}", g), values=False)  # noqa: S307
        old = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            for code in ("zeros(2)", "ones((2,))", "full((2,), 2.0)", "full((2,), 2)", "eye(2)"):
                record(rec, "float64 default " + code, eval(f"lib.{code}", g))  # noqa: S307
        finally:
            lib.set_default_dtype(old)
        with lib.device("meta"):
            for code in ("zeros(2)", "ones(2, device='cpu')", "full((2,), 1.0)", "eye(2)"):
                record(rec, "meta " + code, eval(f"lib.{code}", g), values=False)  # noqa: S307

    want = run_program(prog, torch, rec=Rec(dtypes=True))
    import minitorch

    got = run_program(prog, minitorch, rec=Rec(dtypes=True))
    assert_records_match(want, got, 0.0, dtypes=True)


DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
          "bool")  # fmt: skip


def test_conversions_match_torch():
    def prog(lib, rec):
        g = env(lib)
        special = lib.tensor([1.5, -2.5, 300.7, -0.0, 65504.0, -129.5, 1e6, 0.25])
        sources = {
            "x": g["x"], "xt": g["xt"], "xe": g["xe"], "special": special,
            "f64": special.double(), "i64": lib.arange(-3, 5), "bool": g["x"] > 0,
            "0d": lib.tensor(2.5), "empty": lib.zeros(0, 3),
        }  # fmt: skip
        for sname, src in sources.items():
            for dname in DTYPES:
                dt = getattr(lib, dname)
                record(rec, f"{sname}.to({dname})", src.to(dt))
                record(rec, f"{sname}.to(dtype={dname}, copy=True)", src.to(dtype=dt, copy=True))
                record(rec, f"{sname}.type({dname})", src.type(dt))
                record(rec, f"{sname}.to(cpu, {dname})", src.to("cpu", dt))
            for m in ("double", "float", "long", "int", "bool", "half", "cpu"):
                record(rec, f"{sname}.{m}()", getattr(src, m)())
        x = g["x"]
        rec("same", str([x.to("cpu") is x, x.to(lib.float32) is x, x.to(x) is x, x.float() is x,
                         x.to(device="cpu") is x, x.to(dtype=lib.float32) is x, x.cpu() is x,
                         x.to("cpu", non_blocking=True) is x, x.to("cpu:0") is x,
                         x.to("cpu", lib.float32) is x, x.to(x.device, x.dtype) is x,
                         x.to("cpu:0", lib.float32) is x]))  # fmt: skip
        w = x.clone().requires_grad_()
        for code in ("w.double()", "w.to(lib.float16)", "w.to(lib.float32, copy=True)",
                     "w.long()", "w.to(lib.int32)", "w.type(lib.float64)"):  # fmt: skip
            record(rec, code, eval(code, {"w": w, "lib": lib}))  # noqa: S307
            with lib.no_grad():
                record(rec, "no_grad " + code, eval(code, {"w": w, "lib": lib}))  # noqa: S307
            with lib.inference_mode():
                record(rec, "inference " + code, eval(code, {"w": w, "lib": lib}))  # noqa: S307
        (w.double() * lib.arange(20.0, dtype=lib.float64).reshape(4, 5)).sum().backward()
        rec("grad", w.grad)

    want = run_program(prog, torch, rec=Rec(dtypes=True))
    import minitorch

    got = run_program(prog, minitorch, rec=Rec(dtypes=True))
    assert_records_match(want, got, 0.0, dtypes=True)


ERRORS = [
    "lib.zeros(-1)", "lib.zeros(2, -3)", "lib.ones((2, -3))", "lib.empty(2.0)",
    "lib.zeros(2, requires_grad=1)", "lib.ones(2, dtype=lib.int64, requires_grad=True)",
    "lib.zeros(2, 3, foo=1)", "lib.zeros()", "lib.ones((2, 3), 4)",
    "lib.full((2,), 1e39)", "lib.full((2,), 2**63)", "lib.full((2, -1), 1.0)",
    "lib.full((2,), 1.5, dtype=lib.int64, requires_grad=True)", "lib.full((2,), 'a')",
    "lib.zeros_like(x, requires_grad=1)", "lib.ones_like(lib.arange(3), requires_grad=True)",
    "lib.full_like(x, None)", "lib.eye(-1)", "lib.eye(3, dtype=lib.int64, requires_grad=True)",
    "x.to('foo')", "x.to(foo=1)", "x.to(lib.float64, non_blocking=1)",
    "x.to(device=lib.float64)", "x.to('cpu', foo=True)", "x.to(lib.float64, lib.float64)",
    "x.to('cpu', 'x')", "x.to('foo', lib.int64)", "x.to(None, lib.int64)",
    "lib.tensor({1: 2})", "lib.tensor('abc')", "lib.scalar_tensor('a')", "lib.tensor(None)",
    "lib.from_numpy(np.arange(6.0)[::-1])", "lib.from_numpy([1, 2])",
]  # fmt: skip


def test_errors_match_torch():
    def prog(lib, rec):
        run_calls(ERRORS, env(lib), rec)

    want = run_program(prog, torch, rec=Rec(first_line=True))
    import minitorch

    got = run_program(prog, minitorch, rec=Rec(first_line=True))
    assert_records_match(want, got, 0.0, rename=True)
