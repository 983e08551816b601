"""torch._grouped_mm / F.grouped_mm against PyTorch: values, dtypes, gradients, node names, and
the exception type and message of bad calls."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

# (a's shape, b's shape, offs or None): every layout, with an empty group in each cut one
LAYOUTS = [
    ((12, 8), (3, 8, 16), [4, 4, 12]),  # tokens sorted by expert
    ((8, 16), (16, 16), [4, 4, 16]),  # weight-gradient form: offs cuts K
    ((3, 8, 8), (8, 16), [4, 4, 16]),  # offs cuts N
    ((3, 5, 8), (3, 8, 16), None),  # batched
]


def _inputs(lib, sa, sb, offs, dtype, rng_seed=0):
    rng = np.random.default_rng(rng_seed)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    dt = getattr(lib, dtype)
    ta = lib.tensor(a, dtype=lib.float32).to(dt).requires_grad_()
    tb = lib.tensor(b, dtype=lib.float32).to(dt).requires_grad_()
    to = None if offs is None else lib.tensor(offs, dtype=lib.int32)
    return ta, tb, to


def _np(t):
    return t.detach().float().cpu().numpy()


@pytest.mark.parametrize("sa, sb, offs", LAYOUTS)
@pytest.mark.parametrize("dtype, tol", [("float32", 1e-5), ("bfloat16", 2e-2), ("float16", 2e-3)])
def test_values_and_gradients(sa, sb, offs, dtype, tol):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    results = []
    for lib in (mt, torch):
        a, b, o = _inputs(lib, sa, sb, offs, dtype)
        out = lib.nn.functional.grouped_mm(a, b, offs=o)
        g = lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)))
        out.backward(g.to(out.dtype))
        results.append((out, a.grad, b.grad))
    (out, ga, gb), (t_out, t_ga, t_gb) = results
    assert str(out.dtype) == str(t_out.dtype) and str(ga.dtype) == str(t_ga.dtype)
    assert out.grad_fn.name() == t_out.grad_fn.name() == "GroupedMmBackward0"
    scale = max(sa[-1], sb[-2], 8)  # rounding grows with the summed length
    rtol = atol = tol * scale
    np.testing.assert_allclose(_np(out), _np(t_out), rtol=rtol, atol=atol, err_msg="out")
    np.testing.assert_allclose(_np(ga), _np(t_ga), rtol=rtol, atol=atol, err_msg="grad a")
    np.testing.assert_allclose(_np(gb), _np(t_gb), rtol=rtol, atol=atol, err_msg="grad b")


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e), str(e).split("\n")[0]
    return None


BAD_CALLS = {
    "float64 a": lambda T, a, b, o: T._grouped_mm(a.double(), b, o),
    "int64 b": lambda T, a, b, o: T._grouped_mm(a, b.long(), o),
    "1-d a": lambda T, a, b, o: T._grouped_mm(a[0], b, o),
    "4-d b": lambda T, a, b, o: T._grouped_mm(a, b[None], o),
    "contraction": lambda T, a, b, o: T._grouped_mm(a[:, :4], b, o),
    "stride": lambda T, a, b, o: T._grouped_mm(T.randn(12, 6), T.randn(3, 6, 16), o),
    "stepped b": lambda T, a, b, o: T._grouped_mm(a, T.randn(3, 8, 32)[:, :, ::2], o),
    "no offs": lambda T, a, b, o: T._grouped_mm(a, b),
    "offs 3d x 3d": lambda T, a, b, o: T._grouped_mm(T.randn(3, 4, 8), b, o),
    "offs 2-d": lambda T, a, b, o: T._grouped_mm(a, b, o[None]),
    "offs int64": lambda T, a, b, o: T._grouped_mm(a, b, o.long()),
    "offs list": lambda T, a, b, o: T._grouped_mm(a, b, [4, 4, 12]),
    "bias": lambda T, a, b, o: T._grouped_mm(a, b, o, bias=T.randn(16)),
    "out_dtype": lambda T, a, b, o: T._grouped_mm(a, b, o, out_dtype=T.float16),
    "batch": lambda T, a, b, o: T._grouped_mm(a, b, o[:2]),
    "batched": lambda T, a, b, o: T._grouped_mm(T.randn(2, 4, 8), b),
    "mixed": lambda T, a, b, o: T._grouped_mm(a, b.half(), o),
    "mixed batched": lambda T, a, b, o: T._grouped_mm(T.randn(3, 4, 8), b.half()),
    "2d x 2d cut": lambda T, a, b, o: T._grouped_mm(T.randn(8, 12), T.randn(8, 16), o),
    "F positional offs": lambda T, a, b, o: T.nn.functional.grouped_mm(a, b, o),
    "scalar a": lambda T, a, b, o: T._grouped_mm(1.0, b),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_errors_match(name):
    got, want = (
        _error(lambda T=T, o=o: BAD_CALLS[name](T, T.randn(12, 8), T.randn(3, 8, 16), o))
        for T, o in (
            (mt, mt.tensor([4, 4, 12], dtype=mt.int32)),
            (torch, torch.tensor([4, 4, 12], dtype=torch.int32)),
        )
    )
    assert want is not None
    assert got == want, name


def test_uneven_offs_slice_as_torch():
    # offs past the operand clamp, a decreasing pair is an empty group (torch's CPU slices)
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((12, 8)), rng.standard_normal((3, 8, 16))
    for offs in ([5, 2, 12], [2, 2, 20], [4, 12, 12]):
        got, want = (
            T._grouped_mm(T.tensor(a, dtype=T.float32), T.tensor(b, dtype=T.float32),
                          T.tensor(offs, dtype=T.int32))
            for T in (mt, torch)
        )  # fmt: skip
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-5, atol=1e-5, err_msg=str(offs))
