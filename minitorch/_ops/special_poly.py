"""torch.special's orthogonal polynomials: Chebyshev (four kinds, plain and shifted), Hermite
(physicists' and probabilists'), Laguerre and Legendre. They live under minitorch.special only,
as in torch."""

from __future__ import annotations

from minitorch._ops._common import cast, promote_float, scalar_like
from minitorch._ops.pointwise import _out
from minitorch._ops.pointwise_more import _arr, _not_implemented
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import _raise_broadcast_error

# torch has these only under torch.special: minitorch.special imports them from here.
__all__: list[str] = []

# NOTE [ Orthogonal polynomials ]
# torch evaluates P_n(x) per element with n truncated to an integer (n as a float: 2.5 -> 2;
# NaN, inf or beyond int64 read as negative), 0 for n < 0, fixed values at the interval ends,
# a closed form for the Chebyshev kinds inside the interval once n is past a threshold, and
# else the three-term recurrence from P_0 = 1 and P_1, each element leaving its loop early once
# its value is NaN (which it then stays). minitorch runs the same recurrence, in the same
# operation order, on whole arrays:
# - on the host, over only the elements that need it, sorted by degree so that the running ones
#   are a shrinking prefix (no masking), with in-place ufuncs, and dropping the elements whose
#   value turned NaN (a value past overflow turns NaN within a few steps). A huge degree on a
#   value that stays bounded (Legendre inside (-1, 1), Laguerre at x > 0) still takes its n
#   steps, as in torch: a few microseconds a step as arrays, so the last few float64 elements
#   with a long way to go run one at a time on Python floats (~0.2 us a step). (Products of the
#   2x2 step matrices, vectorised over the steps, would be fast but lose accuracy: 1e-4
#   relative for Laguerre at x = 1e-3, n = 2e5, where the step-by-step recurrence keeps 1e-7.)
# - on a GPU, over every element with a mask, the steps bounded by the largest degree: a Python
#   number n bounds them itself, a tensor n is read back to the host (one sync per call;
#   torch's kernel loops per element on the device).
# Differences from torch: a NaN x gives NaN (torch's kernel returns an unrelated value for
# some kinds); the GPU read of a tensor n.

# the host loop looks for NaN values to drop every this many steps
_NAN_CHECK = 32
# at most this many float64 elements with at least this many steps to go run one at a time on
# Python floats (_scalar_recurrence)
_SCALAR_ELEMENTS = 16
_SCALAR_STEPS = 256


def _poly_args(input, n, op: str):
    """(x, n as int64, device, xp): x and n broadcast and promoted as torch's binary kernels
    do (integers to the default float), as arrays."""
    if not isinstance(input, Tensor) and not isinstance(n, Tensor):
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got "
            f"({type(input).__name__}, {type(n).__name__})"
        )
    a, b, dt = promote_float(input, n, op)
    a, b = (v if not isinstance(v, Tensor) or v.dtype is dt else cast(v, dt) for v in (a, b))
    a = a if isinstance(a, Tensor) else cast(scalar_like(a, b), dt)
    b = b if isinstance(b, Tensor) else cast(scalar_like(b, a), dt)
    if a._data.dtype.itemsize < 4:
        raise _not_implemented(f"{op}_cpu", dt)
    xp = a._device.backend.xp
    try:
        x, nf = xp.broadcast_arrays(a._data, b._data)
    except ValueError as e:  # NumPy's broadcasting error as torch's size mismatch
        _raise_broadcast_error(None, (a, b), e)
    # n to int64 as torch's C++ cast: NaN, inf and out-of-range come out negative (a zero
    # polynomial); in range, truncated toward zero
    nn = xp.where(xp.abs(nf) < 2.0**63, nf, -1).astype("int64")
    return x, nn, a._device, xp


class _Recurrence:
    """P_{k+1} = (A_k P_k - B_k P_{k-1}) / C_k for one family, A_k from a per-element constant
    c (coefficient(x)) and k; B_k and C_k numbers (C_k None: no division). The product A_k P_k
    and the subtraction are fused, as torch's compiled kernels compute them: the product is
    not rounded (so it does not overflow float32 on its own; inf - inf would be NaN where torch
    gets -inf). Emulated for float32 through float64, where the product is exact; float64 is
    left to round the product (last-bit differences)."""

    def __init__(self, coefficient, a_of, b_of, c_of=None, *, scalar):
        self.coefficient = coefficient  # x -> c
        self.scalar = scalar  # (k, c, q, p) -> P_{k+1}, on Python floats (float64)
        self.a_of = a_of  # (xp, c, k, out) -> A_k into out (None: A_k is c itself)
        self.b_of = b_of  # k -> B_k (None: 1)
        self.c_of = c_of  # k -> C_k (None: no division)

    def step(self, xp, k, c, q, p, out, a, t, wide):
        """P_{k+1} into out from P_k = q, P_{k-1} = p; a, t scratch in the dtype, wide a
        float64 scratch (float32 only)."""
        if self.a_of is not None:
            self.a_of(xp, c, k, a)
            c = a
        b = self.b_of(k) if self.b_of is not None else None
        if b is not None:
            xp.multiply(p, b, out=t)
            p = t
        if wide is None:
            xp.multiply(c, q, out=out)
            xp.subtract(out, p, out=out)
        else:
            xp.multiply(c, q, out=wide, dtype="float64")
            xp.subtract(wide, p, out=out, dtype="float64", casting="same_kind")
        if self.c_of is not None:
            xp.divide(out, self.c_of(k), out=out)


def _host_recurrence(xp, rec, x, n, p1, need):
    """P_n (at the elements need marks; elsewhere anything) on the host: the elements that need
    the recurrence, sorted by degree (descending) so the running ones are a prefix."""
    res = xp.empty_like(x).reshape(-1)
    idx = xp.flatnonzero(need)
    if idx.size == 0:
        return res.reshape(x.shape)
    whole = idx.size == x.size
    deg = n.reshape(-1) if whole else n.reshape(-1)[idx]
    c = rec.coefficient(x.reshape(-1) if whole else x.reshape(-1)[idx])
    q = (p1.reshape(-1) if whole else p1.reshape(-1)[idx]).copy()
    if int(deg.min()) != int(deg.max()):
        order = xp.argsort(-deg, kind="stable")
        idx, deg, c, q = idx[order], deg[order], c[order], q[order]
    p, out = xp.ones_like(q), xp.empty_like(q)
    m, k = q.size, 1
    while m:
        # the steps k .. stop-1 run with the first m elements (those of degree > k)
        stop = int(deg[m - 1])
        if m <= _SCALAR_ELEMENTS and q.dtype.itemsize == 8 and stop - k >= _SCALAR_STEPS:
            for i in range(m):  # a few elements with a long way to go: one at a time
                res[idx[i]] = _scalar_recurrence(
                    rec.scalar, float(c[i]), float(q[i]), float(p[i]), k, int(deg[i])
                )
            break
        scratch = [xp.empty(m, dtype=q.dtype) for _ in range(2)]
        wide = xp.empty(m, dtype="float64") if q.dtype.itemsize == 4 else None
        while k < stop:
            rec.step(xp, k, c[:m], q[:m], p[:m], out[:m], *scratch, wide)
            p, q, out = q, out, p
            k += 1
            if k % _NAN_CHECK == 0 and k < stop:
                # a NaN value stays NaN: those elements are done (the order is kept)
                nan = xp.isnan(q[:m])
                if nan.any():
                    res[idx[:m][nan]] = q[:m][nan]
                    keep = xp.flatnonzero(~nan)
                    idx, deg, c, q, p = (v[:m][keep] for v in (idx, deg, c, q, p))
                    out, m = xp.empty_like(q), keep.size
                    break
        if k < stop:
            continue  # elements were dropped: the segment's bounds again
        # the elements of degree k are done
        first = int(xp.searchsorted(-deg[:m], -k, side="left"))
        res[idx[first:m]] = q[first:m]
        m = first
    return res.reshape(x.shape)


def _scalar_recurrence(step, c, q, p, k, n):
    """P_n of one element from q = P_k, p = P_{k-1}, on Python floats (the host's float64, so
    the same values as the arrays' steps): a few of them run faster so than as arrays of a few
    elements, whose steps cost microseconds each. Stops at a NaN as torch's loop does."""
    while k < n:
        stop = min(n, k + _NAN_CHECK)
        for j in range(k, stop):
            p, q = q, step(j, c, q, p)
        k = stop
        if q != q:
            break
    return q


def _device_recurrence(xp, rec, x, n, p1, need, n_number):
    """P_n by the recurrence on every element, each stopping at its own n. The steps run to a
    Python number n itself (no device read), or, for a tensor n, to its largest value read
    back (the one host sync: see NOTE [ Orthogonal polynomials ])."""
    if n_number is None:
        kmax = int(xp.where(need, n, 0).max()) if n.size else 0
    else:
        kmax = int(n_number) if abs(n_number) < 2.0**63 else 0
    c = rec.coefficient(x)
    p, q = xp.ones_like(x), p1
    wide = xp.empty(x.shape, dtype="float64") if x.dtype.itemsize == 4 else None
    a, t = xp.empty_like(x), xp.empty_like(x)
    for k in range(1, kmax):
        r = xp.empty_like(x)
        rec.step(xp, k, c, q, p, r, a, t, wide)
        live = n > k
        p, q = xp.where(live, q, p), xp.where(live, r, q)
    return q


def _polynomial(input, n, op, out, *, first, rec, ends=None, closed=None):
    """The evaluation NOTE [ Orthogonal polynomials ] describes. first(x) -> P_1; rec the
    _Recurrence; ends(xp, x, n) -> (where x is at an end, the values there); closed =
    (threshold, arg(x), form(xp, x, n)): the closed form where |arg(x)| < 1 and n > threshold."""
    n_number = n if isinstance(n, (int, float)) and not isinstance(n, bool) else None
    x, n, dev, xp = _poly_args(input, n, op)
    p1 = first(x)
    need = n > 1
    if closed is not None:
        threshold, arg, form = closed
        inside = (xp.abs(arg(x)) < 1) & (n > threshold)
        need = need & ~inside
    if ends is not None:
        at_end, end_values = ends(xp, x, n)
        need = need & ~at_end
    if dev.type == "cpu":
        res = _host_recurrence(xp, rec, x, n, p1, need)
    else:
        res = _device_recurrence(xp, rec, x, n, p1, need, n_number)
    res = xp.where(n == 1, p1, xp.where(n == 0, 1, res))
    if closed is not None:
        res = xp.where(inside, form(xp, x, n), res)
    if ends is not None:
        res = xp.where(at_end, end_values, res)
    res = xp.where(n < 0, 0, res).astype(x.dtype, copy=False)
    return _out(_make(_arr(xp, res), dev, False, None), out)


# The Chebyshev kinds: P_1 from y (x, or 2x - 1 when shifted), the closed form inside (-1, 1)
# with theta = acos(y), and the values at y = 1 and y = -1 ((-1)^n times the second).
_CHEBYSHEV = {
    "t": (lambda y: y, lambda xp, t, nf: xp.cos(nf * t), (1, 1), (1, 1)),
    "u": (
        lambda y: y + y,
        lambda xp, t, nf: xp.sin((nf + 1) * t) / xp.sin(t),
        ("n+1", 1),
        ("n+1", 1),
    ),
    "v": (
        lambda y: y + y - 1,
        lambda xp, t, nf: xp.cos((nf + 0.5) * t) / xp.cos(t / 2),
        (1, 1),
        ("2n+1", 1),
    ),
    "w": (
        lambda y: y + y + 1,
        lambda xp, t, nf: xp.sin((nf + 0.5) * t) / xp.sin(t / 2),
        ("2n+1", 1),
        (1, 1),
    ),
}


def _end_value(spec, n):
    value = spec[0]
    return n + 1 if value == "n+1" else 2 * n + 1 if value == "2n+1" else 1


def _chebyshev(kind: str, shifted: bool, input, n, out):
    op = ("shifted_" if shifted else "") + f"chebyshev_polynomial_{kind}"
    p1_of, form, at_one, at_minus_one = _CHEBYSHEV[kind]

    def arg(x):
        return x + x - 1 if shifted else x

    def ends(xp, x, n):
        hi = x == 1
        lo = (x == 0) if shifted else (x == -1)
        sign = xp.where(n % 2 == 1, -1, 1)
        values = xp.where(hi, _end_value(at_one, n), sign * _end_value(at_minus_one, n))
        return hi | lo, values

    def closed_form(xp, x, n):
        return form(xp, xp.arccos(arg(x)), n.astype(x.dtype))

    # torch takes the closed form from degree 7 for T and the shifted kinds, 9 for U, V, W
    threshold = 6 if kind == "t" or shifted else 8
    # T_{k+1} = 2y T_k - T_{k-1}, the same for every kind
    rec = _Recurrence(lambda x: arg(x) + arg(x), None, None, scalar=lambda k, c, q, p: c * q - p)
    return _polynomial(
        input,
        n,
        op,
        out,
        first=lambda x: p1_of(arg(x)),
        rec=rec,
        ends=ends,
        closed=(threshold, arg, closed_form),
    )


def chebyshev_polynomial_t(input, n, *, out=None):
    """The Chebyshev polynomial of the first kind T_n(input). Mirrors
    torch.special.chebyshev_polynomial_t (not differentiable, as torch); see
    NOTE [ Orthogonal polynomials ]."""
    return _chebyshev("t", False, input, n, out)


def chebyshev_polynomial_u(input, n, *, out=None):
    """The Chebyshev polynomial of the second kind U_n(input). Mirrors
    torch.special.chebyshev_polynomial_u (not differentiable, as torch)."""
    return _chebyshev("u", False, input, n, out)


def chebyshev_polynomial_v(input, n, *, out=None):
    """The Chebyshev polynomial of the third kind V_n(input). Mirrors
    torch.special.chebyshev_polynomial_v (not differentiable, as torch)."""
    return _chebyshev("v", False, input, n, out)


def chebyshev_polynomial_w(input, n, *, out=None):
    """The Chebyshev polynomial of the fourth kind W_n(input). Mirrors
    torch.special.chebyshev_polynomial_w (not differentiable, as torch)."""
    return _chebyshev("w", False, input, n, out)


def shifted_chebyshev_polynomial_t(input, n, *, out=None):
    """T_n(2 input - 1). Mirrors torch.special.shifted_chebyshev_polynomial_t."""
    return _chebyshev("t", True, input, n, out)


def shifted_chebyshev_polynomial_u(input, n, *, out=None):
    """U_n(2 input - 1). Mirrors torch.special.shifted_chebyshev_polynomial_u."""
    return _chebyshev("u", True, input, n, out)


def shifted_chebyshev_polynomial_v(input, n, *, out=None):
    """V_n(2 input - 1). Mirrors torch.special.shifted_chebyshev_polynomial_v."""
    return _chebyshev("v", True, input, n, out)


def shifted_chebyshev_polynomial_w(input, n, *, out=None):
    """W_n(2 input - 1). Mirrors torch.special.shifted_chebyshev_polynomial_w."""
    return _chebyshev("w", True, input, n, out)


def _add_twice(xp, c, k, out):
    """(k + k) + c, as torch's Laguerre step writes it."""
    xp.add(c, k + k, out=out)


def _times_odd(xp, c, k, out):
    """(k + k + 1) c, as torch's Legendre step writes it."""
    xp.multiply(c, k + k + 1, out=out)


def hermite_polynomial_h(input, n, *, out=None):
    """The physicists' Hermite polynomial H_n(input): H_{k+1} = 2x H_k - 2k H_{k-1}. Mirrors
    torch.special.hermite_polynomial_h (not differentiable, as torch)."""
    rec = _Recurrence(
        lambda x: x + x, None, lambda k: k + k, scalar=lambda k, c, q, p: c * q - (k + k) * p
    )
    return _polynomial(input, n, "hermite_polynomial_h", out, first=lambda x: x + x, rec=rec)


def hermite_polynomial_he(input, n, *, out=None):
    """The probabilists' Hermite polynomial He_n(input): He_{k+1} = x He_k - k He_{k-1}.
    Mirrors torch.special.hermite_polynomial_he (not differentiable, as torch)."""
    rec = _Recurrence(lambda x: x, None, lambda k: k, scalar=lambda k, c, q, p: c * q - k * p)
    return _polynomial(input, n, "hermite_polynomial_he", out, first=lambda x: x, rec=rec)


def laguerre_polynomial_l(input, n, *, out=None):
    """The Laguerre polynomial L_n(input): (k + 1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}, 1 at
    x = 0. Mirrors torch.special.laguerre_polynomial_l (not differentiable, as torch)."""

    def ends(xp, x, n):
        return x == 0, xp.ones_like(x)

    rec = _Recurrence(
        lambda x: 1 - x,
        _add_twice,
        lambda k: k,
        lambda k: k + 1,
        scalar=lambda k, c, q, p: (((k + k) + c) * q - k * p) / (k + 1),
    )
    return _polynomial(
        input, n, "laguerre_polynomial_l", out, first=lambda x: 1 - x, rec=rec, ends=ends
    )


def legendre_polynomial_p(input, n, *, out=None):
    """The Legendre polynomial P_n(input): (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}.
    Mirrors torch.special.legendre_polynomial_p (not differentiable, as torch)."""

    def ends(xp, x, n):
        at = xp.abs(x) == 1
        values = xp.where((x > 0) | (n % 2 == 0), 1, -1).astype(x.dtype)
        return at, values

    rec = _Recurrence(
        lambda x: x,
        _times_odd,
        lambda k: k,
        lambda k: k + 1,
        scalar=lambda k, c, q, p: (((k + k + 1) * c) * q - k * p) / (k + 1),
    )
    return _polynomial(
        input, n, "legendre_polynomial_p", out, first=lambda x: x, rec=rec, ends=ends
    )
