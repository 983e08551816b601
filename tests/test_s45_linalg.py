"""Session 45, linalg: the small-matrix routes of the LU family, of triangular solves and of
Householder products (NOTE [ Small LU factors in Python floats ], NOTE [ Small triangles by one
where ], NOTE [ Householder products without views ]) give the general routes' results bit for
bit: values, dtypes, strides, warnings, errors, nodes and gradients (first and second order)."""

import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import linalg_solve as ls
from minitorch.autograd import function


@pytest.fixture(autouse=True)
def _warn_always():
    """torch.lu_solve's deprecation warns every call, so both routes of a comparison see it."""
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        yield
    finally:
        torch.set_warn_always(before)


SPECIAL = (np.inf, -np.inf, np.nan, 0.0, -0.0, 1e300, -1e300, 5e-324)


def _matrix(rng, shape, kind):
    """Random matrices of a kind: 0 normal, 1 rounded (zero pivots, ties), 2 small integers
    (singular ones), 3 with NaN, 4 with infinities, zeros, huge and subnormal entries."""
    a = rng.standard_normal(shape)
    if kind == 1:
        a = np.round(a)
    elif kind == 2:
        a = rng.integers(-2, 3, size=shape).astype(np.float64)
    elif kind == 3:
        a[rng.random(shape) < 0.15] = np.nan
    elif kind == 4:
        mask = rng.random(shape) < 0.2
        a[mask] = rng.choice(SPECIAL, size=int(mask.sum()))
    return a


def _general(monkeypatch):
    """The general routes: NumPy's LU loop, NumPy's pivot swaps, triu/tril in the solves."""
    monkeypatch.setattr(ls, "_LU_BY_FLOATS", 0)
    monkeypatch.setattr(ls, "_PERM_BY_INTS", -1)
    monkeypatch.setattr(ls, "_TRI_MASKED", -1)


def _same_array(x, y, what):
    assert x.dtype == y.dtype, what
    assert x.shape == y.shape, what
    assert x.strides == y.strides, what
    assert x.tobytes() == y.tobytes(), what  # NaN where NaN, the sign of zero: bit for bit


def _record(fn):
    """fn()'s arrays (or its error) and warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn()
        except Exception as e:
            out = (type(e), str(e))
    return out, [(w.category, str(w.message)) for w in caught]


def _shapes():
    out = []
    for m in range(1, 6):
        for n in range(1, 6):
            out.append((m, n))
    return out + [(2, 3, 3), (3, 2, 4), (2, 4, 2), (1, 2, 2, 2), (0, 3, 3), (3, 0), (0, 2)]


def test_lu_floats_give_numpys_loop_bits(monkeypatch):
    rng = np.random.default_rng(0)
    taken = []
    floats = ls._lu_floats

    def spy(*args):
        r = floats(*args)
        taken.append(r is not None)
        return r

    monkeypatch.setattr(ls, "_lu_floats", spy)
    for shape in _shapes():
        for kind in range(5):
            for _ in range(6):
                a = _matrix(rng, shape, kind)
                fast, fast_w = _record(lambda a=a: ls._lu_raw(np, a))
                with monkeypatch.context() as mp:
                    mp.setattr(ls, "_LU_BY_FLOATS", 0)
                    slow, slow_w = _record(lambda a=a: ls._lu_raw(np, a))
                assert fast_w == slow_w, (shape, kind)
                for x, y, what in zip(fast, slow, ("LU", "pivots", "info"), strict=True):
                    _same_array(x, y, f"{what} of {shape} kind {kind}: {a!r}")
    assert sum(taken) > 300  # the floats decided most cases
    assert not all(taken)  # and handed the non-finite ones back


def test_lu_floats_only_where_they_pay():
    calls = []
    floats = ls._lu_floats
    try:
        ls._lu_floats = lambda *args: calls.append(args[2]) or floats(*args)
        ls._lu_raw(np, np.eye(3))
        ls._lu_raw(np, np.ones((2, 3, 3)))
        ls._lu_raw(np, np.eye(3, dtype=np.float32))  # float32 rounds each step: NumPy's loop
        ls._lu_raw(np, np.ones((64, 3, 3)))  # a batch: NumPy's loop, one pass per column
        ls._lu_raw(np, np.ones((0, 3, 3)))
    finally:
        ls._lu_floats = floats
    assert calls == [1, 2]


def test_lu_floats_byte_order():
    a = np.random.default_rng(1).standard_normal((3, 3)).astype(">f8")
    fast = ls._lu_raw(np, a)
    saved = ls._LU_BY_FLOATS
    try:
        ls._LU_BY_FLOATS = 0
        slow = ls._lu_raw(np, a)
    finally:
        ls._LU_BY_FLOATS = saved
    for x, y in zip(fast, slow, strict=True):
        _same_array(x, y, "big-endian")


def test_perm_by_ints_gives_numpys_swaps(monkeypatch):
    rng = np.random.default_rng(2)
    for shape in _shapes():
        m, n = shape[-2:]
        k = min(m, n)
        batch = shape[:-2]
        lu = rng.standard_normal(shape)
        piv = (rng.integers(0, max(m, 1), size=batch + (k,)) + 1).astype(np.int32)
        piv = np.maximum(piv, np.arange(1, k + 1, dtype=np.int32))  # as getrf's: i <= p_i
        fast = ls._perm_raw(np, lu, piv)
        with monkeypatch.context() as mp:
            mp.setattr(ls, "_PERM_BY_INTS", -1)
            slow = ls._perm_raw(np, lu, piv)
        _same_array(fast, slow, f"P of {shape}")


def _tensors(arrays, grad, device="cpu"):
    return [torch.tensor(a, requires_grad=grad, device=device) for a in arrays]


def _outputs(out):
    if isinstance(out, torch.Tensor):
        return [out]
    return [o for o in out if isinstance(o, torch.Tensor)]


def _describe(fn, arrays, grad, seed, device="cpu"):
    """fn's outputs (dtype, shape, strides, bytes, requires_grad, node name) and, with grad, the
    gradients of a random upstream gradient and of their squared sum (double backward)."""
    xs = _tensors(arrays, grad, device)
    out, caught = _record(lambda: fn(*xs))
    if isinstance(out, tuple) and out and isinstance(out[0], type):
        return [out, caught]
    outs = _outputs(out)
    rows = [caught]
    for o in outs:
        a = o.detach().cpu().numpy()
        node = type(o.grad_fn).__name__ if o.grad_fn is not None else None
        rows.append((a.dtype, a.shape, o.stride(), a.tobytes(), o.requires_grad, node))
    diff = [o for o in outs if o.requires_grad]
    if grad and diff:
        rng = np.random.default_rng(seed)
        ups = [torch.tensor(rng.standard_normal(o.shape), device=device) for o in diff]
        try:
            gs = torch.autograd.grad(diff, xs, ups, create_graph=True, allow_unused=True)
            gs = [g for g in gs if g is not None]
            rows += [g.detach().cpu().numpy().tobytes() for g in gs]
            total = sum((g * g).sum() for g in gs if g.requires_grad)
            if isinstance(total, torch.Tensor):
                ggs = torch.autograd.grad(total, xs, allow_unused=True)
                rows += [g.cpu().numpy().tobytes() for g in ggs if g is not None]
        except RuntimeError as e:  # a singular matrix's backward
            rows.append((type(e), str(e)))
    return rows


def _lu_cases(rng, kind):
    """(name, fn, arrays) of the public LU functions and triangular solves."""
    cases = []
    for shape in ((3, 3), (2, 3, 3), (4, 3), (3, 5), (1, 1)):
        a = _matrix(rng, shape, kind)
        cases += [
            ("lu_factor", lambda a: torch.linalg.lu_factor_ex(a), [a]),
            ("lu", lambda a: torch.linalg.lu(a), [a]),
            ("lu_unpack", lambda a: torch.lu_unpack(*torch.linalg.lu_factor_ex(a)[:2]), [a]),
            (
                "lu_unpack_data",
                lambda a: torch.lu_unpack(*torch.linalg.lu_factor_ex(a)[:2], unpack_pivots=False),
                [a],
            ),
        ]
    for batch in ((), (2,)):
        a = _matrix(rng, batch + (3, 3), kind)
        b = _matrix(rng, batch + (3, 2), 0)
        bt = _matrix(rng, batch + (2, 3), 0)
        for left in (True, False):
            for adjoint in (True, False):
                cases.append(
                    (
                        f"lu_solve {left} {adjoint}",
                        lambda a, b, bt, left=left, adjoint=adjoint: torch.linalg.lu_solve(
                            *torch.linalg.lu_factor_ex(a)[:2],
                            b if left else bt,
                            left=left,
                            adjoint=adjoint,
                        ),
                        [a, b, bt],
                    )
                )
        cases.append(
            (
                "lu_solve (old)",
                lambda a, b: torch.lu_solve(b, *torch.linalg.lu_factor_ex(a)[:2]),
                [a, b],
            )
        )
        for upper in (True, False):
            for unit in (True, False):
                cases.append(
                    (
                        f"solve_triangular {upper} {unit}",
                        lambda a, b, bt, upper=upper, unit=unit: (
                            torch.linalg.solve_triangular(a, b, upper=upper, unitriangular=unit),
                            torch.linalg.solve_triangular(
                                a, bt, upper=upper, left=False, unitriangular=unit
                            ),
                        ),
                        [a, b, bt],
                    )
                )
        cases += [
            ("det", lambda a: torch.linalg.det(a), [a]),
            ("solve_ex", lambda a, b: torch.linalg.solve_ex(a, b), [a, b]),
            ("inv_ex", lambda a: torch.linalg.inv_ex(a), [a]),
        ]
    return cases


@pytest.mark.parametrize("kind", range(5))
def test_public_lu_and_triangular_solves_match_the_general_routes(kind, monkeypatch):
    rng = np.random.default_rng(10 + kind)
    for name, fn, arrays in _lu_cases(rng, kind):
        for grad in (False, True):
            fast = _describe(fn, arrays, grad, kind)
            with monkeypatch.context() as mp:
                _general(mp)
                slow = _describe(fn, arrays, grad, kind)
            assert fast == slow, f"{name} (kind {kind}, grad {grad})"


def test_float32_lu_and_solves_match_the_general_routes(monkeypatch):
    rng = np.random.default_rng(20)
    for name, fn, arrays in _lu_cases(rng, 0):
        arrays = [a.astype(np.float32) for a in arrays]
        fast = _describe(fn, arrays, True, 0)
        with monkeypatch.context() as mp:
            _general(mp)
            slow = _describe(fn, arrays, True, 0)
        assert fast == slow, name


def test_devices_take_the_general_routes_with_the_same_bits(device):
    rng = np.random.default_rng(30)
    for name, fn, arrays in _lu_cases(rng, 1)[::3]:
        here = _describe(fn, arrays, True, 1)
        there = _describe(fn, arrays, True, 1, device)
        # (the warnings aside: the strict device's solve of a singular matrix warns where
        # NumPy's does not, as before this session)
        assert here[1:] == there[1:], f"{name} on {device}"


def test_triangular_masks_are_triu_and_tril():
    x = np.arange(1.0, 17.0).reshape(4, 4)
    for upper in (True, False):
        for unit in (True, False):
            keep, fill = ls._triangle_masks(4, upper, unit, x.dtype)
            got = np.where(keep, x, fill)
            want = ls._triangle_raw(np, x, upper, unit)
            _same_array(got, want, f"{upper} {unit}")
            assert (
                ls._triangle_masks(4, upper, unit, x.dtype)
                is ls._TRI_MASKS[(4, upper, unit, x.dtype)]
            )


def test_singular_triangles_give_inf_and_nan_as_before(monkeypatch):
    a = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0], [4.0, 5.0, 0.0]])
    b = np.array([[1.0, 0.0], [2.0, -0.0], [3.0, 1.0]])
    for upper in (True, False):
        for unit in (True, False):

            def fn(a, b, upper=upper, unit=unit):
                return torch.linalg.solve_triangular(a, b, upper=upper, unitriangular=unit)

            fast = _describe(fn, [a, b], True, 3)
            with monkeypatch.context() as mp:
                _general(mp)
                slow = _describe(fn, [a, b], True, 3)
            assert fast == slow
    x = torch.linalg.solve_triangular(torch.tensor(a), torch.tensor(b), upper=True)
    assert not np.isfinite(x.numpy()).all()  # the zero pivot's inf/nan, not an error


def _householder_cases(rng):
    cases = []
    for batch in ((), (2,)):
        for m, n, k in ((4, 3, 3), (4, 3, 2), (3, 3, 0), (5, 2, 1), (1, 1, 1)):
            h = rng.uniform(-1, 1, batch + (m, n))
            tau = rng.uniform(-1, 1, batch + (k,))
            tau_full = rng.uniform(-1, 1, batch + (min(m, n),))
            c = rng.uniform(-1, 1, batch + (m, 2))
            ct = rng.uniform(-1, 1, batch + (2, m))
            cases += [
                ("householder_product", torch.linalg.householder_product, [h, tau]),
                ("orgqr", torch.orgqr, [h, tau]),
                ("ormqr", torch.ormqr, [h, tau_full, c]),
                (
                    "ormqr right T",
                    lambda h, t, c: torch.ormqr(h, t, c, left=False, transpose=True),
                    [h, tau_full, ct],
                ),
            ]
    return cases


def test_householder_without_views_matches_the_full_path():
    rng = np.random.default_rng(40)
    for name, fn, arrays in _householder_cases(rng):
        with torch.no_grad():
            fast = _describe(fn, arrays, False, 0)
            with_grad_inputs = _describe(fn, arrays, True, 0)  # requires_grad, not recorded
            function.fast_path[0] = False  # (as a profile does): the views as Tensor ops
            try:
                full = _describe(fn, arrays, False, 0)
            finally:
                function.fast_path[0] = True
        assert fast == full == with_grad_inputs, name
        recorded = _describe(fn, arrays, True, 0)  # the graph: the Tensor ops' own route
        assert recorded[1][:4] == fast[1][:4], name  # its values too


def test_householder_on_devices(device):
    rng = np.random.default_rng(41)
    for name, fn, arrays in _householder_cases(rng)[:8]:
        with torch.no_grad():
            here = _describe(fn, arrays, False, 0)
            there = _describe(fn, arrays, False, 0, device)
        assert here == there, f"{name} on {device}"


def test_householder_route_skips_the_view_ops():
    from minitorch._ops import shape as shape_ops

    h = torch.tensor(np.random.default_rng(42).uniform(-1, 1, (4, 3)))
    tau = torch.tensor([0.5, -0.25, 1.5], dtype=torch.float64)
    calls = []
    narrow = shape_ops.narrow

    def spy(*args, **kwargs):
        calls.append(args[1:])
        return narrow(*args, **kwargs)

    shape_ops.narrow = spy
    try:
        with torch.no_grad():
            torch.linalg.householder_product(h, tau)
        fast_calls = len(calls)
        calls.clear()
        torch.linalg.householder_product(h.requires_grad_(), tau)
    finally:
        shape_ops.narrow = narrow
    assert len(calls) > fast_calls  # the recorded route narrows a column a reflector


def test_cholesky_nan_check_reads_the_lower_triangle():
    from minitorch._ops import linalg_factor as lf

    rng = np.random.default_rng(50)
    seen = set()
    for n in (1, 2, 3, 5, 16, 17):
        for batch in ((), (3,)):
            for _ in range(20):
                x = rng.standard_normal(batch + (n, n))
                x[rng.random(x.shape) < 0.05] = np.nan
                low = np.tril(np.abs(x) + 1)
                want = bool(np.isnan(np.tril(x)).any())
                assert lf._nan_pivot(np, x, low) is want
                seen.add(want)
    assert seen == {True, False}
    # the public error, for a NaN below the diagonal only (above it: not read)
    a = torch.tensor([[4.0, float("nan")], [1.0, 3.0]], dtype=torch.float64)
    assert torch.linalg.cholesky(a).isfinite().all()
    with pytest.raises(torch.linalg.LinAlgError, match="not positive-definite"):
        torch.linalg.cholesky(a.mT)


def test_profiled_lu_and_lu_unpack_match():
    rng = np.random.default_rng(60)
    for shape in ((3, 3), (2, 4, 3), (3, 5)):
        arrays = [_matrix(rng, shape, 0)]
        for name, fn in (
            ("lu", lambda a: torch.linalg.lu(a)),
            ("lu_unpack", lambda a: torch.lu_unpack(*torch.linalg.lu_factor_ex(a)[:2])),
        ):
            plain = _describe(fn, arrays, True, 6)
            with torch.autograd.profiler.profile() as prof:
                profiled = _describe(fn, arrays, True, 6)
            assert plain == profiled, f"{name} {shape}"
            names = {e.name for e in prof.function_events}
            assert any("arrow" in n for n in names), names  # the narrows, as before
