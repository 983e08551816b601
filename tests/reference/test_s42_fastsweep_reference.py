"""The ops with a no-grad fast path (NOTE [ The no-grad fast path ] in
minitorch/autograd/function.py) against torch under no_grad and inference mode: values (bit for
bit where torch's kernel rounds as NumPy's does, to a few ulps for the transcendental ones),
dtypes, shapes, strides, autograd fields and version counters, for every layout, special value and
kind of number where minitorch's full path already gave torch's result."""

import operator
import warnings
from functools import partial

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402
from tests.reference._programs import assert_records_match, run_program  # noqa: E402

NAN, INF = float("nan"), float("inf")

VALUES = [
    0.0, -0.0, 1.0, -1.5, 2.5, NAN, INF, -INF, 1e-40, -1e-42, 1e-310, 65504.0, 7e4, 3e38,
    1e300, 88.7, -88.8, 710.0, -745.5, 0.1, 1e-8, -1e-8, 20.0, -20.0, 11.1, 3.3, -0.5, 0.75,
    5e-5, -6e-8, 1e4, -1e5, 42.0, -7.0, 0.3, 1.0000001,
]  # fmt: skip

LAYOUTS = ("contiguous", "t", "flip", "step", "expand", "0d", "channels_last", "empty", "size1")


def make(lib, dtype, layout, seed):
    """The same tensor in either library: VALUES shuffled by seed, in dtype and layout."""
    v = np.random.default_rng(seed).permutation(np.array(VALUES)).reshape(6, 6)
    dt = getattr(lib, dtype)
    if dtype == "bool":
        t = lib.tensor((v > 0.5).tolist())
    elif not dt.is_floating_point:
        ints = np.nan_to_num(v, posinf=300, neginf=-300).clip(-3e4, 3e4).astype(np.int64)
        if dtype == "uint8":
            ints = np.abs(ints) % 256
        t = lib.tensor(ints.tolist()).to(dt)
    else:
        t = lib.tensor(v.tolist(), dtype=lib.float64).to(dt)
    if layout == "t":
        return t.t()
    if layout == "flip":
        return t.flip(0)
    if layout == "step":
        return t[::2, 1::2]
    if layout == "expand":
        return t[:1].expand(6, 6)
    if layout == "0d":
        return t[1, 3]
    if layout == "channels_last":
        return t.reshape(1, 4, 3, 3).contiguous(memory_format=lib.channels_last)
    if layout == "empty":
        return t[:0]
    if layout == "size1":
        return t[:1, :, None]
    return t


def record(rec, name, lib, r, signbit=True):
    """r's layout and autograd fields as text (compared exactly), its values as an array, and
    the sign bits of a float result (so -0. and 0. differ) unless signbit is False (torch's
    maximum/minimum pick either zero of a tie and either sign of NaN, by where its vector
    loop reaches the element)."""
    rec(
        name + " meta",
        f"{str(r.dtype).split('.')[-1]} {tuple(r.shape)} {r.stride()} {r.requires_grad} "
        f"{r.grad_fn is None} {r.is_leaf} {r.is_inference()} "
        f"{'-' if r.is_inference() else r._version} {type(r).__name__}",
    )
    rec(name, r)
    if r.dtype.is_floating_point and r.dtype != lib.bfloat16 and signbit:
        a = np.array(r.detach().numpy())
        rec(name + " signbit", np.signbit(a) & ~np.isnan(a))  # (NaN's sign: not torch's promise)


def assert_close_records(want, got, rtol):
    """torch's records (want) and minitorch's (got): the same names and texts, and arrays of the
    same shape with NaN and infinities at the same places and the other values within rtol of
    torch's each (rtol(name) for a callable), or a few of the dtype's smallest subnormals of it.
    (_programs' tolerances are relative to an array's largest value, which these arrays' 3e38
    would make meaningless for their small values.)"""
    assert [n for n, _ in want] == [n for n, _ in got]
    for (name, a), (_, b) in zip(want, got, strict=True):
        if not isinstance(a, np.ndarray):
            assert str(b) == str(a), f"{name}: torch {a!r}, minitorch {b!r}"
            continue
        assert isinstance(b, np.ndarray) and a.shape == b.shape, name
        if a.dtype.kind not in "fc":
            np.testing.assert_array_equal(b, a, err_msg=name)
            continue
        r = rtol(name) if callable(rtol) else rtol
        tiny = 4 * np.finfo(a.dtype).smallest_subnormal if r else 0.0
        np.testing.assert_allclose(b, a, rtol=r, atol=tiny, err_msg=name)


def _ulps(name):
    """Exact, except a few float32 ulps for exp and sigmoid (NumPy's and torch's kernels)."""
    return 1e-6 if " exp" in name or " sigmoid" in name else 0.0


def assert_exact(prog):
    """prog(lib, rec) records the same under torch and minitorch, arrays exactly (NaN where NaN)."""
    want = run_program(prog, torch)
    got = run_program(prog, minitorch)
    assert_records_match(want, got, 0.0)


BINARY = [
    ("*", operator.mul), ("+", operator.add), ("-", operator.sub), ("/", operator.truediv),
    ("mul", lambda lib, a, b: lib.mul(a, b)), ("add", lambda lib, a, b: lib.add(a, b)),
    ("sub", lambda lib, a, b: lib.sub(a, b)), ("div", lambda lib, a, b: lib.div(a, b)),
    ("maximum", lambda lib, a, b: lib.maximum(a, b)),
    ("minimum", lambda lib, a, b: lib.minimum(a, b)),
]  # fmt: skip


def _binary(name, op, lib, a, b):
    return op(a, b) if name in ("*", "+", "-", "/") else op(lib, a, b)


# torch's CPU kernels for these dtypes are NumPy's operations: exact
PAIR_DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16", "int32",
               "int64", "bool"]  # fmt: skip


@pytest.mark.parametrize("dtype", PAIR_DTYPES)
def test_two_tensors_every_layout(dtype):
    def prog(lib, rec):
        with lib.no_grad():
            for layout in LAYOUTS:
                x = make(lib, dtype, layout, 1)
                y = make(lib, dtype, layout, 2)
                for name, op in BINARY:
                    if dtype == "bool" and name in ("-", "sub", "maximum", "minimum"):
                        continue  # (torch's errors: not a fast path)
                    what = f"{name} {layout}"
                    r = rec.err(what, partial(_binary, name, op, lib, x, y))
                    if r is not None:
                        record(rec, what, lib, r, signbit=name not in ("maximum", "minimum"))

    assert_exact(prog)


NUMBERS = [2, -3, 0, 1, 7, 0.5, 0.1, -0.0, 1e-45, 1e-320, 1e300, 3.5e38, 7e4, 2**24 + 1,
           2**31, 2**53 + 1, 2**63 - 1, -(2**63), NAN, INF, -INF]  # fmt: skip
# numbers of other kinds: on the right only (a NumPy scalar on the left is NumPy's operator)
OTHER_NUMBERS = [True, False, np.float32(2.5), np.float64(0.1), np.int64(3), np.bool_(True)]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int64", "uint8"])
def test_tensor_and_numbers(dtype):
    ops = [("*", operator.mul), ("+", operator.add), ("-", operator.sub),
           ("/", operator.truediv)]  # fmt: skip
    # (a half tensor expanded: the products and quotients of its half path are laid out (1, 6),
    # torch's (6, 1), as before the fast path, which half tensors and numbers do not take)
    layouts = ["contiguous", "t", "0d", "channels_last"]
    if dtype not in ("float16", "bfloat16"):
        layouts.append("expand")

    def prog(lib, rec):
        with lib.no_grad():
            for layout in layouts:
                x = make(lib, dtype, layout, 3)
                for number in NUMBERS + OTHER_NUMBERS:
                    n = repr(number)
                    for name, op in ops:
                        _result(rec, lib, f"x {name} {n} {layout}", partial(op, x, number))
                        if number.__class__ in (int, float):
                            _result(rec, lib, f"{n} {name} x {layout}", partial(op, number, x))
                    for name, fn in (("mul", lib.mul), ("add", lib.add), ("sub", lib.sub),
                                     ("div", lib.div)):  # fmt: skip
                        _result(rec, lib, f"{name}(x, {n}) {layout}", partial(fn, x, number))
                    # clamp's bounds (its fast path: |bound| <= 65504, the rest range-checked
                    # as torch's); bfloat16's clamp at 1e-45 differs from torch's, as before
                    # the fast path
                    if not (dtype == "bfloat16" and 0 < abs(number) < 1e-40):
                        lo, hi = -abs(float(number)), abs(number)
                        _result(rec, lib, f"clamp {n} {layout}", partial(x.clamp, lo, hi))
                        _result(rec, lib, f"clamp(min) {n} {layout}", partial(x.clamp, min=number))
                        _result(rec, lib, f"clip(max) {n} {layout}", partial(x.clip, max=number))

    assert_exact(prog)


def _result(rec, lib, what, fn):
    r = rec.err(what, fn)
    if r is not None:
        record(rec, what, lib, r)


# exponents a float32 holds exactly (torch's vector loop computes float32 ** e in float32, its
# tail in double: an exponent float32 rounds, 1e-320 or 2**24 + 1, gives other answers by position)
POW_EXPONENTS = [2, -3, 0, 1, 7, 0.5, -0.0, 7e4, 2**31, NAN, INF, -INF, 3, -2, -0.5, 1.5, -1,
                 2.0, 0.25, -(2**63)]  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
def test_pow_with_number_exponents(dtype):
    exponents = POW_EXPONENTS if dtype.startswith("float") else [0, 1, 2, 3, 7, -1, -3]

    def prog(lib, rec):
        with lib.no_grad():
            for layout in ("contiguous", "t", "0d", "expand", "channels_last"):
                x = make(lib, dtype, layout, 10)
                for e in exponents:
                    _result(rec, lib, f"x ** {e!r} {layout}", partial(operator.pow, x, e))
                    _result(rec, lib, f"pow(x, {e!r}) {layout}", partial(lib.pow, x, e))
                    _result(rec, lib, f"x.pow({e!r}) {layout}", partial(x.pow, e))

    want = run_program(prog, torch)
    got = run_program(prog, minitorch)
    ulps = {"float32": 2.4e-7, "float64": 4.5e-16}.get(dtype, 0.0)  # C's pow against NumPy's
    assert_close_records(want, got, lambda name: 0.0 if name.endswith("signbit") else ulps)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64", "uint8"])
def test_neg_relu_and_exact_pows(dtype):
    def prog(lib, rec):
        with lib.no_grad():
            for layout in LAYOUTS:
                x = make(lib, dtype, layout, 4)
                record(rec, f"neg {layout}", lib, -x)
                record(rec, f"torch.neg {layout}", lib, lib.neg(x))
                if dtype != "uint8":
                    record(rec, f"relu {layout}", lib, lib.relu(x))
                    record(rec, f"F.relu {layout}", lib, lib.nn.functional.relu(x))
                if dtype.startswith("float"):
                    for e in (1, 2, 0, -1, 2.0, 1.0, 0.0, -0.0, 3):  # exact in both
                        record(rec, f"x ** {e!r} {layout}", lib, x**e)

    assert_exact(prog)


UNARY = ["exp", "log", "sqrt", "tanh", "sigmoid", "sum"]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_unary_pow_and_sum_to_a_few_ulps(dtype):
    def prog(lib, rec):
        with lib.no_grad():
            for layout in LAYOUTS:
                x = make(lib, dtype, layout, 5)
                # (a half input expanded: some of minitorch's results are laid out (1, 6), as
                # before the fast path; torch's (6, 1))
                strides = dtype in ("float32", "float64") or layout != "expand"
                for name in UNARY:
                    r = getattr(lib, name)(x)
                    rec(f"{name} {layout} meta", f"{r.dtype} {tuple(r.shape)}")
                    rec(f"{name} {layout} strides", str(r.stride() if strides else "-"))
                    rec(f"{name} {layout}", r)
                for e in (0.5, -0.5, 1.5, 3.0, -2, 1 / 3):
                    r = lib.pow(x, e)
                    rec(f"pow {e!r} {layout} meta", f"{r.dtype} {tuple(r.shape)}")
                    rec(f"pow {e!r} {layout} strides", str(r.stride() if strides else "-"))
                    rec(f"pow {e!r} {layout}", r)
            big = make(lib, dtype, "contiguous", 6).repeat(40, 30)  # large enough for gemv sums
            rec("big sum", big.nan_to_num(0.0, 0.0, 0.0).sum())

    want = run_program(prog, torch)
    got = run_program(prog, minitorch)
    tol = {"float16": 1e-3, "bfloat16": 8e-3, "float32": 1e-6, "float64": 1e-14}[dtype]
    assert_close_records(want, got, tol)


def test_zero_dim_tensors_on_either_side_and_other_dtypes():
    def prog(lib, rec):
        x = make(lib, "float32", "contiguous", 7)
        h = make(lib, "float16", "t", 8)
        i = make(lib, "int64", "flip", 9)
        scalars = [lib.tensor(2.5), lib.tensor(-0.0, dtype=lib.float64), lib.tensor(3),
                   lib.tensor(True), lib.tensor(7e4, dtype=lib.float16), lib.tensor(200).byte(),
                   lib.tensor(1.5).bfloat16()]  # fmt: skip
        with lib.no_grad():
            for k, s in enumerate(scalars):
                for t, tn in ((x, "f32"), (h, "f16"), (i, "i64")):
                    for name, op in BINARY[:4]:
                        what = f"{tn} {name} s{k}"
                        r = rec.err(what, lambda op=op, t=t, s=s: op(t, s))
                        if r is not None:
                            record(rec, what, lib, r)
                        what = f"s{k} {name} {tn}"
                        r = rec.err(what, lambda op=op, t=t, s=s: op(s, t))
                        if r is not None:
                            record(rec, what, lib, r)

    assert_exact(prog)


def test_autograd_fields_in_every_grad_mode():
    def prog(lib, rec):
        a = lib.tensor([1.5, -2.0, 0.25], requires_grad=True)
        b = lib.tensor([0.5, 3.0, -1.0])
        ops = [("mul", lambda: a * b), ("add", lambda: a + 2.0), ("sub", lambda: b - a),
               ("div", lambda: a / b), ("exp", lambda: a.exp()), ("sum", lambda: a.sum()),
               ("neg", lambda: -a), ("relu", lambda: a.relu()), ("pow", lambda: a**2),
               ("clamp", lambda: a.clamp(0, 1)), ("max", lambda: lib.maximum(a, b)),
               ("sigmoid", lambda: lib.sigmoid(a))]  # fmt: skip
        for mode, ctx in (("no_grad", lib.no_grad), ("inference", lib.inference_mode),
                          ("set_grad_enabled(False)", lambda: lib.set_grad_enabled(False)),
                          ("enable_grad", lib.enable_grad)):  # fmt: skip
            for name, fn in ops:
                with ctx():
                    r = fn()
                record(rec, f"{mode} {name}", lib, r)
                rec(f"{mode} {name} grad_fn", type(r.grad_fn).__name__)
        with lib.inference_mode():
            inf_a = a.detach() * 1.0
        with lib.no_grad():  # an inference tensor used outside inference mode
            for name, r in (("mul", inf_a * b), ("exp", inf_a.exp()), ("sum", inf_a.sum()),
                            ("clamp", inf_a.clamp(0, 1)), ("neg", -inf_a)):  # fmt: skip
                # (not the version: torch's sum of an inference tensor outside comes at 1)
                rec(f"inference input {name}", r)
                rec(f"inference input {name} fields", f"{r.is_inference()} {r.requires_grad}")
        with lib.inference_mode():
            r = inf_a * 2.0
        rec("inplace on inference result", rec.err("ip", lambda: r.add_(1)) or "")

    want = run_program(prog, torch)
    got = run_program(prog, minitorch)
    assert_close_records(want, got, _ulps)


def test_subclasses_and_parameters():
    def prog(lib, rec):
        class Plain(lib.Tensor):
            pass

        class Off(lib.Tensor):
            __torch_function__ = lib._C._disabled_torch_function_impl

        base = lib.tensor([[1.0, -2.0], [0.5, 3.0]])
        plain = lib.tensor([[2.0, 1.0], [-1.0, 0.25]])
        p = lib.nn.Parameter(base.clone())
        with lib.no_grad():
            for cname, s in (("Plain", base.as_subclass(Plain)), ("Off", base.as_subclass(Off)),
                             ("Parameter", p)):  # fmt: skip
                for name, fn in (("s*2", lambda s=s: s * 2.0), ("p*s", lambda s=s: plain * s),
                                 ("s+p", lambda s=s: s + plain), ("exp", lambda s=s: s.exp()),
                                 ("sum", lambda s=s: s.sum()), ("neg", lambda s=s: -s),
                                 ("clamp", lambda s=s: s.clamp(0, 1)),
                                 ("max", lambda s=s: lib.maximum(plain, s))):  # fmt: skip
                    r = fn()
                    rec(f"{cname} {name} type", type(r).__name__)
                    rec(f"{cname} {name}", r.as_subclass(lib.Tensor))
                    rec(f"{cname} {name} requires_grad", str(r.requires_grad))

    want = run_program(prog, torch)
    got = run_program(prog, minitorch)
    assert_close_records(want, got, _ulps)


def test_no_warnings_for_special_values():
    # with the filters in force (pytest's and minitorch's own), as a user runs
    def run(lib):
        x = lib.tensor([0.0, -1.0, 1000.0, INF, -INF, NAN])
        h = lib.tensor([60000.0, 1e-7], dtype=lib.float16)
        with lib.no_grad(), warnings.catch_warnings(record=True) as caught:
            outs = [x / 0, 1 / x, x / x, x * x, x - x, x + x, x * INF, x.log(), x.sqrt(),
                    x.exp(), x.sigmoid(), x.tanh(), x.sum(), h * h, h + h, h.exp(), h.sum(),
                    x * 1e300, x.double() * 1e300, x[0] / x[0], x**-1, x**0.5,
                    x.clamp(-1, 1), lib.maximum(x, -x), -x, x.relu()]  # fmt: skip
        return [str(w.message) for w in caught], [np.array(r.float().numpy()) for r in outs]

    want, got = run(torch), run(minitorch)
    assert got[0] == want[0] == []
    for k, (a, b) in enumerate(zip(want[1], got[1], strict=True)):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=0, err_msg=f"out {k}")
