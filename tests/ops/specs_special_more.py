"""Op-test rows for minitorch/_ops/special_more.py (torch.special's own functions) and the
composed minitorch.special functions ndtr and spherical_bessel_j0."""

from __future__ import annotations

import numpy as np

from tests.ops.specs_pointwise import FLOATS, NOGRAD, POS, S2, S, nonzero, row

try:
    import scipy.special as sc
except ImportError:  # the kernels' own fallbacks are then the code under test: compare with torch
    sc = None


def _ref(name):
    return getattr(sc, name) if sc is not None else None


def _entr(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a > 0, -a * np.log(np.where(a > 0, a, 1.0)), np.where(a < 0, -np.inf, 0.0))


def _spherical_j0(a):
    safe = np.where(a == 0, 1.0, a)
    return np.where(a == 0, 1.0, np.sin(safe) / safe)


def _xlog1py_ref(a, b):
    return np.where(a == 0, 0.0, a * np.log1p(b))


# fmt: off
SPECS = [
    row("special_erfcx", lambda L: L.special.erfcx, _ref("erfcx"), [S], domain=(-2.0, 3.0),
        dtypes=(*FLOATS, "int64")),
    row("special_ndtri", lambda L: L.special.ndtri, _ref("ndtri"), [S], domain=(0.05, 0.95),
        atol=1e-4, rtol=1e-4),
    row("special_log_ndtr", lambda L: L.special.log_ndtr, _ref("log_ndtr"), [S],
        domain=(-4.0, 3.0)),
    # i0e and i1e have a kink at 0 (the factor exp(-|x|)): inputs away from it
    row("special_i0e", lambda L: L.special.i0e, _ref("i0e"), [S], domain=nonzero),
    row("special_i1", lambda L: L.special.i1, _ref("i1"), [S], domain=(-3.0, 3.0),
        dtypes=(*FLOATS, "int64")),
    row("special_i1e", lambda L: L.special.i1e, _ref("i1e"), [S], domain=nonzero),
    row("special_xlog1py", lambda L: L.special.xlog1py, _xlog1py_ref, [S, (4,)],
        domain=[(-2.0, 2.0), (-0.5, 2.0)]),
    row("special_xlog1py_scalar_self", lambda L: lambda b: L.special.xlog1py(2.0, b),
        lambda b: 2.0 * np.log1p(b), [S], domain=(-0.5, 2.0)),
    row("special_xlog1py_scalar_other", lambda L: lambda a: L.special.xlog1py(a, 3),
        lambda a: a * np.log(4.0), [S], dtypes=(*FLOATS, "int64")),
    row("special_entr", lambda L: L.special.entr, _entr, [S], domain=POS),
    row("special_zeta", lambda L: L.special.zeta, _ref("zeta"), S2,
        domain=[(1.5, 4.0), (0.5, 3.0)], grad=(1,), atol=1e-5, rtol=1e-4),
    row("special_zeta_scalar_self", lambda L: lambda b: L.special.zeta(2.0, b),
        None if sc is None else (lambda b: sc.zeta(2.0, b)), [S], domain=(0.5, 3.0),
        atol=1e-5, rtol=1e-4),
    row("special_ndtr", lambda L: L.special.ndtr, _ref("ndtr"), [S], domain=(-4.0, 4.0)),
    row("special_expit", lambda L: L.special.expit, lambda a: 1 / (1 + np.exp(-a)), [S]),
    row("special_bessel_j0", lambda L: L.special.bessel_j0, _ref("j0"), [S],
        domain=(-10.0, 10.0), **NOGRAD),
    row("special_bessel_j1", lambda L: L.special.bessel_j1, _ref("j1"), [S],
        domain=(-10.0, 10.0), **NOGRAD),
    row("special_spherical_bessel_j0", lambda L: L.special.spherical_bessel_j0, _spherical_j0,
        [S], domain=(-6.0, 6.0), **NOGRAD),
]
# fmt: on
