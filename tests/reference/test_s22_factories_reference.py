"""Session 22: a seeded slice of the creation / conversion fuzzer, run against torch."""

import itertools
import random
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
          "bool"]  # fmt: skip
SPECIAL = [float("nan"), float("inf"), -float("inf"), 1e300, -1e10, 3.7, -3.7, -0.5, 255.9,
           256.0, -129.0, 70000.0, 2147483648.0, -2147483649.0, 4294967301.0, 9.3e18, -0.0,
           65520.0, 1e-8]  # fmt: skip


def _values(t):
    """(dtype name, shape, values as a list with NaN made comparable)."""
    if t.dtype in (torch.bfloat16, minitorch.bfloat16):
        t = t.float()
    vals = ["nan" if v != v else v for v in t.detach().reshape(-1).tolist()]
    return str(t.dtype).split(".")[-1], tuple(t.shape), vals


def _run(mod, code):
    g = {"T": mod, "np": np}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            exec(code, g)
            out = ("ok", _values(g["r"]))
        except Exception as e:  # noqa: BLE001
            out = ("err", type(e).__name__, str(e).replace("minitorch", "torch"))
    runtime = [str(x.message) for x in w if x.category is RuntimeWarning]
    return out, runtime


@pytest.mark.parametrize("src, dst", list(itertools.product(DTYPES, DTYPES)))
def test_to_every_pair_on_special_values(src, dst):
    code = f"x = T.tensor({SPECIAL!r}, dtype=T.float64).to(T.{src})\nr = x.to(T.{dst})"
    code = code.replace("nan", "float('nan')").replace("inf", "float('inf')")
    want, _ = _run(torch, code)
    got, _ = _run(minitorch, code)
    assert got == want


@pytest.mark.parametrize("src, dst", list(itertools.product(DTYPES, DTYPES)))
def test_to_does_not_warn_where_it_casts_like_torch(src, dst):
    if (src, dst) in (("float64", "float32"), ("float32", "float16")):
        pytest.skip("NumPy's overflow warning kept for speed (see _dtype.cast_may_warn)")
    x = minitorch.tensor(SPECIAL, dtype=minitorch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = x.to(getattr(minitorch, src))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x.to(getattr(minitorch, dst))


def _leaf_cases():
    leaves = ["np.float32(2.5)", "np.float16(2.5)", "np.float64(2.5)", "np.bool_(True)",
              "np.int8(3)", "np.int64(-2)", "T.tensor(2.5)", "T.tensor(True)", "T.tensor(3)",
              "np.array(3)", "np.array(2.5, dtype=np.float32)"]  # fmt: skip
    wraps = ["{x}", "[{x}]", "[{x}, 1]", "[1, {x}]", "[[{x}], [2]]"]
    out = []
    for leaf, wrap, dt in itertools.product(leaves, wraps, ["bool", "uint8", "int64", "float16",
                                                            "float32", None]):  # fmt: skip
        extra = "" if dt is None else f", dtype=T.{dt}"
        out.append(f"r = T.tensor({wrap.format(x=leaf)}{extra})")
    return out


@pytest.mark.parametrize("code", _leaf_cases())
def test_tensor_of_numpy_and_tensor_leaves(code):
    want, _ = _run(torch, code)
    got, _ = _run(minitorch, code)
    assert got == want


def _random_cases(n, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        v = rng.choice(SPECIAL + [2**63, -(2**63) - 1, 2**64, 300, -129, True, 2.5])
        dt = rng.choice(DTYPES + [None])
        extra = "" if dt is None else f", dtype=T.{dt}"
        fn = rng.choice(["scalar_tensor", "tensor", "as_tensor"])
        arg = repr(v).replace("nan", "float('nan')").replace("inf", "float('inf')")
        if rng.random() < 0.3 and -(2**63) <= v < 2**63:  # (NumPy's uint64 / object arrays:
            # minitorch's message lists the dtypes it has)
            arg = f"np.array([{arg}])"
        out.append(f"r = T.{fn}({arg}{extra})")
    return out


@pytest.mark.parametrize("code", _random_cases(150, 22))
def test_random_creation_from_scalars(code):
    want, _ = _run(torch, code)
    got, _ = _run(minitorch, code)
    if code.startswith("r = T.scalar_tensor(np.array"):  # both refuse an array
        assert got[0] == want[0] == "err"
        return
    assert got == want
