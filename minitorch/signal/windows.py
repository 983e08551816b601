"""Window functions of torch.signal.windows (scipy.signal.windows' definitions): each returns M
points, symmetric by default (sym=False: the first M of M + 1, for spectral analysis), computed
in the requested float32/float64 dtype. Mirrors torch.signal.windows."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from minitorch import _dtype
from minitorch._factories import _device, _dtype_arg, _put, _require_grad
from minitorch._ops.tensor_misc import strided
from minitorch._tensor import Tensor, _make

__all__ = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
    "general_hamming", "hamming", "hann", "kaiser", "nuttall",
]  # fmt: skip


def _check(name: str, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:  # (torch's default is strided: None is refused too)
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    dt = _dtype_arg(dtype, _dtype.default_float(), name)
    if dt not in (_dtype.float32, _dtype.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dt}")
    return dt


def _finish(values, M: int, dt, device, requires_grad) -> Tensor:
    """The window from formula's (pre, last): last (a Tensor op) applied to the first M points
    of pre, a leaf. torch builds these windows from tensor ops, so with requires_grad its window
    is not a leaf but that op's output (grad_fn SumBackward1, SinBackward0, ...), as here."""
    pre, last = values
    dev = _device(device)
    host = np.ascontiguousarray(pre[..., :M].astype(dt.np, copy=False))
    return last(_require_grad(_make(_put(host, dev), dev, False, None), requires_grad))


def _build(M: int, sym: bool, dt, device, requires_grad, formula, one_by_formula=False) -> Tensor:
    """The window: M = 0 or 1 give empty or a single one, a leaf (as torch, which computes the
    one point by the formula at n = 0 where one_by_formula); else formula(n, f) over
    n = 0 .. N-1 in dt's arithmetic (f its scalar type), N = M (sym) or M + 1, cut to M."""
    if M == 1 and one_by_formula:
        return _finish(formula(np.zeros(1, dt.np), dt.np.type), 1, dt, device, requires_grad)
    if M <= 1:
        return _finish((np.ones(M, dtype=dt.np), _same), M, dt, device, requires_grad)
    n = np.arange(M if sym else M + 1, dtype=dt.np)
    return _finish(formula(n, dt.np.type), M, dt, device, requires_grad)


def _same(t: Tensor) -> Tensor:
    return t


def _sum(t: Tensor) -> Tensor:
    return t.sum(0)


def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """sum_i (-1)^i a_i cos(2 pi i n / (N - 1)). Mirrors torch.signal.windows.general_cosine."""
    dt = _check("general_cosine", M, dtype, layout)
    # any iterable, as torch's: a tensor of one coefficient works, a longer one's truth value
    # raises as torch's does
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")

    def formula(n, f):
        k = n * f(2 * math.pi / (len(n) - 1))
        return np.stack([f((-1) ** i * c) * np.cos(f(i) * k) for i, c in enumerate(a)]), _sum

    return _build(M, sym, dt, device, requires_grad, formula)


def general_hamming(
    M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None, requires_grad=False
):
    """alpha - (1 - alpha) cos(2 pi n / (N - 1)). Mirrors torch.signal.windows.general_hamming."""
    return general_cosine(
        M,
        a=[alpha, 1.0 - alpha],
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )


def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """Mirrors torch.signal.windows.hann."""
    return general_hamming(
        M,
        alpha=0.5,
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )


def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """Mirrors torch.signal.windows.hamming."""
    return general_hamming(
        M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """Mirrors torch.signal.windows.blackman."""
    _check("blackman", M, dtype, layout)  # its errors name it, unlike hann's and hamming's
    return general_cosine(
        M,
        a=[0.42, 0.5, 0.08],
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )


def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The minimum 4-term Blackman-Harris window. Mirrors torch.signal.windows.nuttall."""
    a = [0.3635819, 0.4891775, 0.1365995, 0.0106411]
    return general_cosine(
        M, a=a, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """1 - |2 n / (N - 1) - 1|. Mirrors torch.signal.windows.bartlett."""
    dt = _check("bartlett", M, dtype, layout)

    def formula(n, f):
        return np.abs(f(2) * n / f(len(n) - 1) - f(1)), lambda t: 1 - t

    return _build(M, sym, dt, device, requires_grad, formula)


def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """sin(pi (n + 1/2) / N). Mirrors torch.signal.windows.cosine."""
    dt = _check("cosine", M, dtype, layout)

    def formula(n, f):
        return f(math.pi / len(n)) * (n + f(0.5)), Tensor.sin

    return _build(M, sym, dt, device, requires_grad, formula, one_by_formula=True)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """exp(-((n - (N - 1) / 2) / std)^2 / 2). Mirrors torch.signal.windows.gaussian."""
    dt = _check("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")

    def formula(n, f):
        x = (n - f((len(n) - 1) / 2)) / f(std)
        return -(x * x) / f(2), Tensor.exp

    return _build(M, sym, dt, device, requires_grad, formula, one_by_formula=True)


def exponential(
    M,
    *,
    center=None,
    tau=1.0,
    sym=True,
    dtype=None,
    layout=strided,
    device=None,
    requires_grad=False,
):
    """exp(-|n - center| / tau), center (N - 1) / 2 by default. Mirrors
    torch.signal.windows.exponential."""
    dt = _check("exponential", M, dtype, layout)
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")

    def formula(n, f):
        c = f((len(n) - 1) / 2 if center is None else center)
        return -np.abs(n - c) / f(tau), Tensor.exp

    # torch's single point is the formula's at n = 0 (exp(-|center| / tau) with a center)
    return _build(M, sym, dt, device, requires_grad, formula, one_by_formula=True)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta). Mirrors torch.signal.windows.kaiser."""
    dt = _check("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")

    def formula(n, f):
        r = f(2) * n / f(len(n) - 1) - f(1)
        arg = f(beta) * np.sqrt(np.maximum(f(1) - r * r, f(0)))
        # I0 of both in float64, cast, then divided in the window's dtype (as torch's)
        den = float(f(np.i0(float(beta))))
        return np.i0(arg.astype(np.float64)).astype(f), lambda t: t / den

    return _build(M, sym, dt, device, requires_grad, formula)
