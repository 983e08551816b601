"""What torch 2.13 does differently on different host CPUs, for the reference tests that must
pass on any CI machine (session 48: on an AVX2 AMD EPYC VM they failed where they passed on the
machines before).

torch's sqrt: NOTE [ torch's sqrt by host ]. On that EPYC a fifth of torch's float32 sqrt results
(and 1.5% of float64's) are an ulp off, whatever ATEN_CPU_CAPABILITY or MKL_CBWR say; NumPy's
(minitorch's) are correctly rounded. torch_sqrt_rounds() tells which host this is, so a test
loosens a bit-for-bit comparison only there.

torch's CPU convolution of a bfloat16 or float16 input runs on its
oneDNN kernel only where the CPU has the instructions for it (bfloat16: AVX-512; float16:
AVX-512-FP16 or AMX), and on its slow kernels elsewhere (an AVX2 AMD EPYC). minitorch gives the
oneDNN host's behaviour. The helpers here let the reference tests accept the slow kernels'
variant of a oneDNN message where this host's torch runs the dtype slowly, and compare exactly
where it runs it on oneDNN:
- oneDNN's "Input type (A) and weight type (B) should be the same or input should be a MKLDNN
  tensor and weight is a dense tensor" (or bias) is the slow kernels' "expected scalar type A
  but found B";
- oneDNN's "non-positive dilation is not supported" is their "dilation should be greater than
  zero, but got ..." (in each kernel's format);
- a bias of another dtype, which oneDNN refuses, the slow 1-d/2-d kernels add cast to the
  input's dtype (no error)."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# a dtype's name -> (its type in oneDNN's refusal, its scalar type in the slow kernels')
TYPE_NAMES = {
    "float16": ("torch.HalfTensor", "Half"),
    "bfloat16": ("CPUBFloat16Type", "BFloat16"),
    "float32": ("torch.FloatTensor", "Float"),
    "float64": ("torch.DoubleTensor", "Double"),
}
_BY_TYPE = {t: (name, scalar) for name, (t, scalar) in TYPE_NAMES.items()}
_REFUSAL = re.compile(
    r"Input type \((?P<input>\S+)\) and (?P<what>weight|bias) type \((?P<other>\S+)\) should be"
    r" the same or input should be a MKLDNN tensor and (?P=what) is a dense tensor"
)


def onednn_refusal(input_dtype: str, what: str, other_dtype: str) -> str:
    """oneDNN's refusal of a weight or bias (what) of another dtype than the input."""
    return (
        f"Input type ({TYPE_NAMES[input_dtype][0]}) and {what} type "
        f"({TYPE_NAMES[other_dtype][0]}) should be the same or input should be a MKLDNN tensor "
        f"and {what} is a dense tensor"
    )


@functools.cache
def slow_here(dtype: str) -> bool:
    """Whether this host's torch convolves a `dtype` input on its slow kernels where minitorch
    gives oneDNN's behaviour (bfloat16 or float16 without the CPU's support; float32's choice
    is the same on every x86 host): probed by a conv2d with a float32 weight."""
    if dtype not in ("bfloat16", "float16"):
        return False
    x = torch.ones(1, 1, 2, 2, dtype=getattr(torch, dtype))
    try:
        torch.nn.functional.conv2d(x, torch.ones(1, 1, 1, 1))
    except RuntimeError as e:
        return str(e) != onednn_refusal(dtype, "weight", "float32")
    raise AssertionError(f"torch convolved a {dtype} input with a float32 weight")


def slow_variant(got: str, want: str) -> bool:
    """Whether torch's message `want` is its slow kernels' variant of oneDNN's message `got`
    (minitorch's; see the module's docstring)."""
    m = _REFUSAL.fullmatch(got)
    if m is not None:
        names = (_BY_TYPE.get(m["input"]), _BY_TYPE.get(m["other"]))
        if None in names:
            return False
        return want == f"expected scalar type {names[0][1]} but found {names[1][1]}"
    if got == "non-positive dilation is not supported":
        return want.startswith("dilation should be greater than zero, but got ")
    return False


def slow_variant_here(got: str, want: str, dtype: str) -> bool:
    """slow_variant, where this host's torch convolves the input's dtype (the one oneDNN's
    refusal `got` names, else `dtype`) on its slow kernels; False elsewhere."""
    return slow_here(refused_dtype(got) or dtype) and slow_variant(got, want)


def refused_dtype(got: str) -> str | None:
    """The input's dtype named by oneDNN's refusal `got`, or None for another message."""
    m = _REFUSAL.fullmatch(got)
    return None if m is None or m["input"] not in _BY_TYPE else _BY_TYPE[m["input"]][0]


def as_onednn_records(want, got):
    """torch's records (want, Rec.err's texts) with each one that is the slow kernels' variant
    of minitorch's oneDNN refusal (got) read as minitorch's, where this host's torch runs the
    input's dtype slowly: the slow message, or "no error" for a bias (compared only where torch
    raises; minitorch's refusal stays the record)."""
    out = []
    for (n, a), (_, b) in zip(want, got, strict=False):
        if isinstance(a, str) and isinstance(b, str) and a != b and b.startswith("RuntimeError: "):
            msg = b.removeprefix("RuntimeError: ")
            dt = refused_dtype(msg)
            if dt is not None and slow_here(dt):
                bias = " and bias type " in msg and a == "no error"
                if bias or slow_variant(msg, a.removeprefix("RuntimeError: ")):
                    a = b
        out.append((n, a))
    return out + want[len(out) :]


@functools.cache
def torch_sqrt_rounds() -> bool:
    """Whether torch's float32 sqrt is correctly rounded (as NumPy's is) on this host, on 0-d and
    on vector tensors (NOTE [ torch's sqrt by host ] above)."""
    x = np.random.default_rng(0).uniform(0, 1, 256).astype(np.float32)
    vector = np.array_equal(torch.from_numpy(x).sqrt().numpy(), np.sqrt(x))
    return vector and all(torch.tensor(v).sqrt().item() == np.sqrt(v) for v in x[:64])


def gelu32_as_formula(want, x):
    """torch's float32 gelu values `want` of the inputs `x`, read as ATen's formula x Phi(x) gives
    them, which minitorch follows on every host. torch's float32 gelu of a contiguous tensor is
    oneDNN's kernel, built for the host's CPU: on an AVX2 AMD EPYC (2026-12-06) it gives +0. for
    the zero of a non-positive input and inf for +inf, where the CI hosts' gives -0. and NaN; the
    formula (torch's 0-d, strided and float64 gelu) gives -0. and inf. So a zero of a
    non-positive input reads as -0., and the value at +inf as inf."""
    want = want.copy()
    want[np.isposinf(x)] = np.inf
    want[(want == 0) & np.signbit(x)] = -0.0
    return want
