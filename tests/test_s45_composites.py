"""Session 45, helper composites: the no-node routes of cross, kron, lerp, addcmul and equal
(NOTE [ Cross products without a node ], NOTE [ Kronecker products without a node ],
NOTE [ lerp and addcmul without a node ]) return what the general route returns, bit for bit,
and leave the recorded path, the profiler, inference mode and other devices to it."""

import math

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import function
from tests._fastpath import both, error_of, full_path


def _make(shape, dtype, seed, specials=False):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64) * 3
    if specials and x.numel() >= 6:
        flat = x.view(-1)
        flat[0], flat[1], flat[2] = math.nan, math.inf, -0.0
        flat[3], flat[4], flat[5] = -math.inf, 1e300, 5e-324
    return x.to(dtype)


def _same(fast, full):
    assert type(fast) is type(full) is torch.Tensor
    assert fast.dtype == full.dtype and fast.shape == full.shape and fast.device == full.device
    assert fast.stride() == full.stride() and fast.is_contiguous() == full.is_contiguous()
    assert (fast.requires_grad, fast.grad_fn, fast.is_leaf) == (False, None, True)
    assert (full.requires_grad, full.grad_fn) == (False, None)
    assert fast._version == full._version == 0
    assert fast._base is None and full._base is None
    f, g = fast.numpy(), full.numpy()
    assert f.dtype == g.dtype
    assert f.tobytes() == g.tobytes()  # bit for bit: NaN, -0. and all
    assert f.flags.c_contiguous == g.flags.c_contiguous


def _same_error(fn):
    with torch.no_grad():
        fast = error_of(fn)
        with full_path():
            assert fast == error_of(fn)
    return fast


DTYPES = (torch.float32, torch.float64, torch.float16, torch.int64)

# --- cross ---

CROSS = [((4, 3), -1), ((3,), 0), ((2, 3, 5), 1), ((3, 3), 0), ((3, 3), -2), ((0, 3), 1),
         ((3, 2, 3), 2), ((3, 7), 0)]  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape,dim", CROSS, ids=str)
def test_cross_matches_the_general_route(dtype, shape, dim):
    a = _make(shape, dtype, 0, specials=dtype.is_floating_point)
    b = _make(shape, dtype, 1)
    _same(*both(lambda: torch.linalg.cross(a, b, dim=dim)))
    _same(*both(lambda: torch.cross(a, b, dim=dim)))
    _same(*both(lambda: a.cross(b, dim=dim)))
    _same(*both(lambda: torch.cross(a, a, dim)))
    if len(shape) == 2:  # non-contiguous and broadcast (expanded) operands
        at, bt = a.t().contiguous().t(), b.t().contiguous().t()
        _same(*both(lambda: torch.linalg.cross(at, bt, dim=dim)))
        e = b[:1].expand(shape)
        _same(*both(lambda: torch.linalg.cross(a, e, dim=dim)))
    if dim == -1:
        _same(*both(lambda: torch.linalg.cross(a, b)))


def test_cross_without_dim_and_broadcasting_as_before(fresh_once):
    a, b = _make((4, 3), torch.float32, 2), _make((1, 3), torch.float32, 3)
    _same(*both(lambda: torch.linalg.cross(a, b)))  # (broadcast: the general route)
    with pytest.warns(UserWarning, match="without specifying the dim arg is deprecated"):
        fast, full = both(lambda: torch.cross(a, a * 2))
    _same(fast, full)


CROSS_BAD = [
    lambda a, b, c: torch.linalg.cross(a, c),  # sizes 3 and 2
    lambda a, b, c: torch.linalg.cross(a, b, dim=0),  # size 4 along dim 0
    lambda a, b, c: torch.linalg.cross(a, b, dim=2),  # out of range
    lambda a, b, c: torch.linalg.cross(a, b, dim=-3),
    lambda a, b, c: torch.linalg.cross(a, b.double()),
    lambda a, b, c: torch.linalg.cross(a > 0, b > 0),
    lambda a, b, c: torch.linalg.cross(a, b[0]),  # ndim differs
    lambda a, b, c: torch.linalg.cross(a, b, dim=1.0),
    lambda a, b, c: torch.cross(a, c, dim=1),
    lambda a, b, c: torch.cross(a, b, dim=5),
    lambda a, b, c: torch.cross(a, b, dim="1"),
    lambda a, b, c: torch.cross(a, [1, 2, 3], dim=1),
    lambda a, b, c: torch.linalg.cross(a, b, dim=1, out=torch.empty(4, 3, dtype=torch.float64)),
]


@pytest.mark.parametrize("k", range(len(CROSS_BAD)))
def test_cross_errors_are_the_general_routes(k):
    a, b, c = _make((4, 3), torch.float32, 4), _make((4, 3), torch.float32, 5), torch.ones(4, 2)
    _same_error(lambda: CROSS_BAD[k](a, b, c))


def test_cross_out_and_recorded_path():
    a, b = _make((4, 3), torch.float32, 6), _make((4, 3), torch.float32, 7)
    out = torch.empty(4, 3)
    with torch.no_grad():
        r = torch.linalg.cross(a, b, out=out)
        fast = torch.linalg.cross(a, b)
    assert r is out and out.numpy().tobytes() == fast.numpy().tobytes()
    x = a.double().requires_grad_()
    y = b.double()
    z = torch.linalg.cross(x, y)
    assert type(z.grad_fn).__name__ == "LinalgCrossBackward0" and z.grad_fn._saved_other is y
    (g,) = torch.autograd.grad(z, x, torch.ones_like(z))
    np.testing.assert_array_equal(g.numpy(), np.cross(y.numpy(), np.ones((4, 3))))
    with torch.no_grad():
        assert torch.linalg.cross(x, y).grad_fn is None
        _same(*both(lambda: torch.linalg.cross(x, y)))


# --- kron ---

KRON = [((3, 4), (3, 4)), ((2,), (3, 4)), ((2, 3, 1), (4,)), ((), (3,)), ((), ()),
        ((0, 2), (3,)), ((2, 2), (1, 0)), ((1, 2, 3), (2, 1, 2))]  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("sa,sb", KRON, ids=str)
def test_kron_matches_the_general_route(dtype, sa, sb):
    a = _make(sa, dtype, 8, specials=dtype.is_floating_point)
    b = _make(sb, dtype, 9, specials=dtype.is_floating_point)
    _same(*both(lambda: torch.kron(a, b)))
    _same(*both(lambda: torch.kron(b, a)))
    _same(*both(lambda: a.kron(b)))
    if len(sa) == 2:
        at = a.t().contiguous().t()  # a transposed layout
        _same(*both(lambda: torch.kron(at, b)))
        _same(*both(lambda: torch.kron(b, at.t())))


def test_kron_mixed_dtypes_out_errors_and_recorded_path():
    a, b = _make((2, 3), torch.float32, 10), _make((3,), torch.float64, 11)
    _same(*both(lambda: torch.kron(a, b)))  # (promotion: the general route)
    _same(*both(lambda: torch.kron(a, b > 0)))
    out = torch.empty(4, 9)
    with torch.no_grad():
        r = torch.kron(a, a, out=out)
        fast = torch.kron(a, a)
    assert r is out and out.numpy().tobytes() == fast.numpy().tobytes()
    for bad in (
        lambda: torch.kron(a, a, a),
        lambda: torch.kron(a, [1.0]),
        lambda: torch.kron(a),
        lambda: torch.kron(a, a, out=torch.empty(6, 9, dtype=torch.int64)),
    ):
        _same_error(bad)
    x = a.double().requires_grad_()
    z = torch.kron(x, b)
    assert type(z.grad_fn).__name__ == "UnsafeViewBackward0"
    (g,) = torch.autograd.grad(z.sum(), x)
    np.testing.assert_allclose(g.numpy(), np.full((2, 3), b.numpy().sum()), rtol=1e-12)
    with torch.no_grad():
        _same(*both(lambda: torch.kron(x, b)))


# --- outer ---


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n,m", [(4, 3), (1, 5), (0, 3), (3, 0), (1, 1)], ids=str)
def test_outer_matches_the_general_route(dtype, n, m):
    a = _make((n,), dtype, 50, specials=dtype.is_floating_point)
    b = _make((m,), dtype, 51, specials=dtype.is_floating_point)
    _same(*both(lambda: torch.outer(a, b)))
    _same(*both(lambda: torch.ger(b, a)))
    _same(*both(lambda: a.outer(b)))
    c = _make((2 * n,), dtype, 52)[::2]  # a strided vector
    _same(*both(lambda: torch.outer(c, b)))
    _same(*both(lambda: torch.outer(b, c)))


def test_outer_other_cases_take_the_general_route():
    a, b = _make((4,), torch.float32, 53), _make((3,), torch.float32, 54)
    _same(*both(lambda: torch.outer(a, b.double())))
    _same(*both(lambda: torch.outer(a > 0, b > 0)))
    for bad in (
        lambda: torch.outer(a, b.view(3, 1)),
        lambda: torch.outer(a.view(2, 2), b),
        lambda: torch.outer(a, b, b),
        lambda: torch.outer(a, [1.0]),
        lambda: torch.outer(a),
        lambda: torch.outer(a, b, out=torch.empty(4, 3, dtype=torch.int64)),
    ):
        _same_error(bad)
    out = torch.empty(4, 3)
    with torch.no_grad():
        assert torch.outer(a, b, out=out) is out
        assert out.numpy().tobytes() == torch.outer(a, b).numpy().tobytes()
    x = a.double().requires_grad_()
    z = torch.outer(x, b.double())
    assert type(z.grad_fn).__name__ == "MulBackward0"
    (g,) = torch.autograd.grad(z.sum(), x)
    np.testing.assert_allclose(g.numpy(), np.full(4, b.double().sum().item()), rtol=1e-12)


# --- lerp, addcmul ---

WEIGHTS = [0.5, 0.2, 0.49999, -0.7, 1.0, 0.0, 2.5, 1, 0, -3, 1e30, math.nan, math.inf]
BIG = {torch.float32: (2050,), torch.float64: (70,)}  # (through BLAS's axpy where it is used)


LERP_SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((), ()), ((2, 1), (1, 3)), "big"]


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64), ids=str)
@pytest.mark.parametrize("w", WEIGHTS, ids=str)
@pytest.mark.parametrize("shapes", LERP_SHAPES, ids=str)
def test_lerp_matches_the_general_route(dtype, w, shapes):
    sa, sb = (BIG[dtype], BIG[dtype]) if shapes == "big" else shapes
    a = _make(sa, dtype, 12, specials=True)
    b = _make(sb, dtype, 13)
    _same(*both(lambda: torch.lerp(a, b, w)))
    _same(*both(lambda: a.lerp(b, w)))
    _same(*both(lambda: torch.lerp(b, a, weight=w)))


def test_lerp_other_cases_take_the_general_route():
    a, b = _make((3, 4), torch.float32, 14), _make((3, 4), torch.float32, 15)
    for fn in (
        lambda: torch.lerp(a, b, torch.tensor(0.3)),
        lambda: torch.lerp(a, b, torch.full((3, 4), 0.7)),
        lambda: torch.lerp(a.half(), b.half(), 0.3),
        lambda: torch.lerp(a.double(), b.double(), True),
        lambda: torch.lerp(a, b, np.float64(0.3)),
    ):
        _same(*both(fn))
    for bad in (
        lambda: torch.lerp(a, torch.ones(5), 0.5),
        lambda: torch.lerp(a, b.double(), 0.5),
        lambda: torch.lerp(a, b, "x"),
        lambda: torch.lerp(a, b, 0.5, 1),
        lambda: torch.lerp(a.long(), b.long(), 0.5),
        lambda: torch.lerp(a, 1.0, 0.5),
        lambda: torch.lerp(a, b, 0.5, out=torch.empty(3, 4, dtype=torch.int64)),
    ):
        _same_error(bad)
    out = torch.empty(3, 4)
    with torch.no_grad():
        assert torch.lerp(a, b, 0.25, out=out) is out
        assert out.numpy().tobytes() == torch.lerp(a, b, 0.25).numpy().tobytes()
    x = a.double().requires_grad_()
    z = torch.lerp(x, b.double(), 0.25)
    assert type(z.grad_fn).__name__ == "LerpBackward0"
    (g,) = torch.autograd.grad(z.sum(), x)
    assert (g.numpy() == 0.75).all()


VALUES = [1, 0.5, 2, -3, 0, 1.0, 1e-30, math.inf]


ADDCMUL_SHAPES = [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((), (), ()),
                  ((1, 4), (3, 4), (4,)), "big"]  # fmt: skip


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64), ids=str)
@pytest.mark.parametrize("value", VALUES, ids=str)
@pytest.mark.parametrize("shapes", ADDCMUL_SHAPES, ids=str)
def test_addcmul_matches_the_general_route(dtype, value, shapes):
    sx, s1, s2 = (BIG[dtype],) * 3 if shapes == "big" else shapes
    x = _make(sx, dtype, 16, specials=True)
    t1, t2 = _make(s1, dtype, 17), _make(s2, dtype, 18)
    _same(*both(lambda: torch.addcmul(x, t1, t2, value=value)))
    _same(*both(lambda: x.addcmul(t1, t2, value=value)))
    if value == 1:
        _same(*both(lambda: torch.addcmul(x, t1, t2)))


def test_addcmul_other_cases_take_the_general_route(fresh_once):
    x, a, b = (_make((3, 4), torch.float32, k) for k in (19, 20, 21))
    for fn in (
        lambda: torch.addcmul(x, a, b.double(), value=0.5),
        lambda: torch.addcmul(x.half(), a.half(), b.half(), value=0.5),
        lambda: torch.addcmul(x.long(), a.long(), b.long(), value=2),
        lambda: torch.addcmul(x, a, b, value=torch.tensor(0.5)),
        lambda: torch.addcmul(x, a, b, value=True),
    ):
        _same(*both(fn))
    for bad in (
        lambda: torch.addcmul(x, a, torch.ones(5), value=0.5),
        lambda: torch.addcmul(x, a, 2.0),
        lambda: torch.addcmul(x, a, b, value="v"),
        lambda: torch.addcmul(x > 0, a > 0, b > 0),
        lambda: torch.addcmul(x, a, b, value=0.5, out=torch.empty(3, 4, dtype=torch.int64)),
    ):
        _same_error(bad)
    with pytest.warns(UserWarning), torch.no_grad():  # the deprecated value-first form
        torch.addcmul(x, 0.5, a, b)
    x64 = x.double().requires_grad_()
    z = torch.addcmul(x64, a.double(), b.double(), value=2)
    assert type(z.grad_fn).__name__ == "AddcmulBackward0"
    (g,) = torch.autograd.grad(z.sum(), x64)
    assert (g.numpy() == 1).all()


# --- equal ---


def test_equal_matches_the_general_route():
    a = _make((3, 4), torch.float32, 22, specials=True)
    b = a.clone()
    c = torch.where(a == 0, 0.0, a)  # -0. against 0.: equal
    cases = [
        (a, b), (a, a), (b[:, :2], b[:, :2].contiguous()), (a, b.view(4, 3)), (a[:0], b[:0]),
        (a.nan_to_num(), b.nan_to_num()), (a.nan_to_num(), c.nan_to_num()),
        (a.nan_to_num(), b.nan_to_num().view(4, 3)), (a[:1].nan_to_num(), b[0].nan_to_num()),
        (a.double(), b.double()), (a, b.double()), (a.long(), b.int()), (a > 0, b > 0),
        (torch.tensor(1.0), torch.tensor(1.0)), (torch.tensor(1.0), torch.ones(1)),
    ]  # fmt: skip
    for x, y in cases:
        with torch.no_grad():
            fast = torch.equal(x, y)
            with full_path():
                full = torch.equal(x, y)
        assert fast is full, (x, y)
    assert torch.equal(a.nan_to_num(), c.nan_to_num()) is True
    assert torch.equal(a, b) is False  # (NaN)
    for bad in (lambda: torch.equal(a), lambda: torch.equal(a, b, b), lambda: torch.equal(a, 1)):
        _same_error(bad)


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64, torch.float16), ids=str)
def test_allclose_matches_the_general_route(dtype):
    a = _make((3, 4), dtype, 55, specials=True)
    near = a + a.abs() * 1e-6
    far = a + 1
    cases = [(a, a), (a, near), (a, far), (a.nan_to_num(), near.nan_to_num()), (a[0], a[0]),
             (torch.tensor(1.0, dtype=dtype), torch.tensor(1.0 + 1e-9, dtype=dtype)),
             (a[:0], a[:0]), (a.t(), a.t().contiguous())]  # fmt: skip
    for x, y in cases:
        for kwargs in ({}, {"equal_nan": True}, {"rtol": 0.0, "atol": 0.0}, {"rtol": 1e-3},
                       {"atol": 2.0, "equal_nan": True}):  # fmt: skip
            with torch.no_grad():
                fast = torch.allclose(x, y, **kwargs)
                with full_path():
                    full = torch.allclose(x, y, **kwargs)
            assert fast is full, (x, y, kwargs)
    assert torch.allclose(a, a, equal_nan=True) is True and torch.allclose(a, a) is False
    b = _make((3, 4), dtype, 57)
    assert torch.allclose(b, b + b.abs() * 1e-6) is True and torch.allclose(b, b + 1) is False


def test_allclose_other_cases_take_the_general_route():
    a = _make((3, 4), torch.float32, 56)
    with torch.no_grad():
        assert torch.allclose(a[:1].expand(3, 4), a[0]) is True  # (broadcast)
        assert torch.allclose(a.long(), a.long(), rtol=0, atol=0) is True
        assert torch.allclose(a, a + 1e-3, 1, 0) is True  # (int tolerances)
    for bad in (
        lambda: torch.allclose(a, a.double()),
        lambda: torch.allclose(a, a, rtol=-1.0),
        lambda: torch.allclose(a, a, atol=-1.0),
        lambda: torch.allclose(a, a, equal_nan=1),
        lambda: torch.allclose(a, torch.ones(5)),
        lambda: torch.allclose(a, [1.0]),
    ):
        _same_error(bad)


# --- what the fast paths must leave to the general route ---


def _composites():
    a, b = _make((4, 3), torch.float32, 23), _make((4, 3), torch.float32, 24)
    return [
        lambda: torch.linalg.cross(a, b),
        lambda: torch.cross(a, b, dim=1),
        lambda: torch.kron(a, b),
        lambda: torch.lerp(a, b, 0.3),
        lambda: torch.addcmul(a, a, b, value=0.5),
        lambda: torch.outer(a[0], b[1]),
    ]


def test_profile_sees_the_general_routes_ops():
    ops = _composites()
    with torch.no_grad(), torch.profiler.profile() as prof:
        for fn in ops:
            fn()
    names = [e.key for e in prof.key_averages()]
    for op in ("Mul", "Sub", "Cat", "LerpScalar", "Addcmul"):
        assert op in names, (op, names)
    assert function.fast_path[0]


def test_inference_mode_results_are_inference_tensors():
    ops = _composites()
    with torch.inference_mode():
        outs = [fn() for fn in ops]
    for out in outs:
        assert out.is_inference() and not out.requires_grad
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            out.add_(1)


def test_subclasses_take_the_general_route():
    class Sub(torch.Tensor):
        pass

    a, b = _make((4, 3), torch.float32, 25), _make((4, 3), torch.float32, 26)
    s = a.as_subclass(Sub)
    with torch.no_grad():
        for out in (
            torch.linalg.cross(s, b),
            torch.kron(s, b),
            torch.lerp(s, b, 0.3),
            torch.addcmul(s, b, b),
            torch.outer(s[0], b[0]),
        ):
            assert type(out) is Sub
    from minitorch._ops import einsum_op

    einsum_op._PLANS.clear()
    for _ in range(2):
        assert type(torch.einsum("ij,kj->ik", s, b)) is Sub
    assert einsum_op._PLANS == {}  # (no plan for a subclass: NOTE [ Einsum's plans ])


def test_other_devices_compute_the_same(device):
    a, b = _make((4, 3), torch.float32, 27), _make((4, 3), torch.float32, 28)
    ad, bd = a.to(device), b.to(device)
    with torch.no_grad():
        pairs = [
            (torch.linalg.cross(ad, bd), torch.linalg.cross(a, b)),
            (torch.cross(ad, bd, dim=1), torch.cross(a, b, dim=1)),
            (torch.kron(ad, bd), torch.kron(a, b)),
            (torch.lerp(ad, bd, 0.3), torch.lerp(a, b, 0.3)),
            (torch.addcmul(ad, ad, bd, value=0.5), torch.addcmul(a, a, b, value=0.5)),
            (torch.outer(ad[0], bd[1]), torch.outer(a[0], b[1])),
        ]
        assert torch.equal(ad, ad.clone()) and not torch.equal(ad, bd)
    for on_device, on_cpu in pairs:
        assert on_device.device == ad.device and on_device.dtype == on_cpu.dtype
        assert on_device.stride() == on_cpu.stride()
        assert on_device.cpu().numpy().tobytes() == on_cpu.numpy().tobytes()


# --- einsum's plans ---

EINSUMS = [
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("ij,jk", [(3, 4), (4, 2)]),
    ("i j , j k -> i k", [(3, 4), (4, 2)]),
    ("ab,cd->acbd", [(3, 4), (2, 2)]),
    ("ij->j", [(3, 4)]),
    ("ij->ji", [(3, 4)]),  # a view, planned as the permutation
    ("ijk->kij", [(2, 3, 4)]),
    ("ii->i", [(3, 3)]),  # a diagonal: no plan
    ("iij,jk->ik", [(2, 2, 3), (3, 4)]),  # a diagonal of one operand: no plan
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,jk", [(2, 3, 4), (4, 5)]),
    ("bij,bjk->bik", [(1, 3, 4), (2, 4, 5)]),  # a size-1 dim dropped: no plan
    ("i,j,k->ijk", [(2,), (3,), (4,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("i,i", [(0,), (0,)]),
]


def _einsum_operands(shapes, dtype, requires_grad=False):
    return [
        _make(s, dtype, 30 + k).requires_grad_(requires_grad and dtype.is_floating_point)
        for k, s in enumerate(shapes)
    ]


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64, torch.int64), ids=str)
@pytest.mark.parametrize("eq,shapes", EINSUMS, ids=[e for e, _ in EINSUMS])
def test_einsum_plan_gives_what_the_reading_gives(eq, shapes, dtype):
    from minitorch._ops import einsum_op

    for requires_grad in (False, True):
        ops = _einsum_operands(shapes, dtype, requires_grad)
        einsum_op._PLANS.clear()
        first = torch.einsum(eq, *ops)  # read: its plan kept where it can be
        kept = dict(einsum_op._PLANS)
        second = torch.einsum(eq, *ops)  # from the plan
        third = torch.einsum(eq, ops)  # (the operands as one list)
        assert einsum_op._PLANS == kept
        for r in (second, third):
            assert r.dtype == first.dtype and r.shape == first.shape
            assert r.stride() == first.stride()
            assert r.detach().numpy().tobytes() == first.detach().numpy().tobytes()
            assert type(r.grad_fn).__name__ == type(first.grad_fn).__name__
            assert r.requires_grad == first.requires_grad
            assert (r._base is None) == (first._base is None)
        if first.requires_grad:
            g = [torch.autograd.grad(r.sum(), ops, allow_unused=True) for r in (first, second)]
            for a, b in zip(*g, strict=True):
                assert a.numpy().tobytes() == b.numpy().tobytes()
        planned = kept != {}
        # (an integer einsum of one dtype is planned too: torch's pairwise plan casts nothing)
        assert planned == (eq not in ("ii->i", "iij,jk->ik", "bij,bjk->bik")), kept
        if first._base is not None:  # the permuted view: of the operand, sharing its memory
            assert second._base is ops[0] and third._base is ops[0]


EINSUM_BAD = [
    ("ij,jk->ik", [(3, 4), (5, 2)]),
    ("ij,jk->ik", [(3, 4)]),
    ("ij->k", [(3, 4)]),
    ("ij->ii", [(3, 4)]),
    ("i.j->ij", [(3, 4)]),
    ("ijk->ij", [(3, 4)]),
    ("ii->i", [(3, 4)]),
    ("ij,jk->ik", [(3, 4), (4,)]),
]


@pytest.mark.parametrize("k", range(len(EINSUM_BAD)))
def test_einsum_errors_are_never_kept(k):
    from minitorch._ops import einsum_op

    eq, shapes = EINSUM_BAD[k]
    ops = _einsum_operands(shapes, torch.float32)
    einsum_op._PLANS.clear()
    first = error_of(lambda: torch.einsum(eq, *ops))
    assert einsum_op._PLANS == {}
    assert error_of(lambda: torch.einsum(eq, *ops)) == first
    good = _einsum_operands([(3, 4), (4, 2)], torch.float32)
    torch.einsum("ij,jk->ik", *good)  # kept; the same equation on other shapes is read again
    if eq == "ij,jk->ik":
        assert error_of(lambda: torch.einsum(eq, *ops)) == first


def test_einsum_plans_are_bounded_and_per_dtype(device):
    from minitorch._ops import einsum_op

    einsum_op._PLANS.clear()
    a = torch.ones(2, 3, device=device)
    for n in range(1, einsum_op._MAX_PLANS + 5):
        torch.einsum("ij,jk->ik", a, torch.ones(3, n, device=device))
    assert 0 < len(einsum_op._PLANS) <= einsum_op._MAX_PLANS
    v = torch.ones(3, device=device)
    assert torch.einsum("i,j->ij", v, v).dtype == torch.float32
    mixed = torch.einsum("i,j->ij", v, v.double())  # another key: the dtypes differ
    assert mixed.dtype == torch.float64
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        torch.einsum("ij,jk->ik", a, torch.ones(3, 2, dtype=torch.float64, device=device))
    b = torch.randn(2, 3, generator=torch.Generator().manual_seed(40)).to(device)
    r1 = torch.einsum("ij,kj->ik", b, b)
    r2 = torch.einsum("ij,kj->ik", b, b)
    assert r1.device == b.device and r1.cpu().numpy().tobytes() == r2.cpu().numpy().tobytes()


# --- digamma's and trigamma's steps at once (host) against the step loop (a device's) ---


class _NotHost:
    """NumPy under another name: minitorch's special functions take their device route (the
    step loops) with it, on the same kernels."""

    def __getattr__(self, name):
        return getattr(np, name)


_SPECIAL_VALUES = [0.0, -0.0, 1.0, -1.0, -2.0, 0.5, 0.49999, -0.5, 9.0, 9.999999, 10.0, 1e-30,
                   -1e-30, 1e30, -1e30, math.inf, -math.inf, math.nan, 6.5, 3e38, 1e-45, 2.5,
                   -1000.0, -3.0000002, 1.4616, 1e17, 5e-324]  # fmt: skip


@pytest.mark.parametrize("fn", ["_digamma", "_trigamma"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_special_steps_at_once_match_the_loop(fn, dtype):
    from minitorch._ops import special

    kernel = getattr(special, fn)
    rng = np.random.default_rng(41)
    with np.errstate(all="ignore"):
        for trial in range(60):
            n = int(rng.integers(0, 30))
            draw = (
                rng.standard_normal(n) * 3,
                rng.uniform(-50, 50, n),
                rng.choice(_SPECIAL_VALUES, n),
                rng.uniform(-2, 12, n),
            )[trial % 4]
            x = draw.astype(dtype).reshape([(n,), (1, n), (n, 1)][trial % 3])
            host, loop = kernel(np, x), kernel(_NotHost(), x)
            assert host.dtype == loop.dtype and host.shape == loop.shape
            assert host.tobytes() == loop.tobytes(), (x, host, loop)
        x = rng.uniform(-3, 12, (3, 4, 5)).astype(dtype)  # (more dims: all below 10 or not)
        for v in (x, np.abs(x) % 9, np.full((2, 3), 11.0, dtype)):
            assert kernel(np, v).tobytes() == kernel(_NotHost(), v).tobytes()


def test_digamma_and_polygamma_on_other_devices(device):
    g = torch.Generator().manual_seed(42)
    x = torch.randn(4, 5, generator=g) * 4
    x[0, :4] = torch.tensor([0.0, -1.0, math.inf, math.nan])
    for t in (x, x.double()):
        td = t.to(device)
        for fn in (torch.digamma, lambda v: torch.polygamma(1, v), torch.special.digamma):
            a, b = fn(td), fn(t)
            assert a.device == td.device and a.dtype == b.dtype
            assert a.cpu().numpy().tobytes() == b.numpy().tobytes()
    y = x.double().requires_grad_()  # the recorded path: ψ's gradient is ψ'
    (gy,) = torch.autograd.grad(torch.digamma(y).sum(), y)
    with torch.no_grad():
        assert gy.numpy().tobytes() == torch.polygamma(1, y).numpy().tobytes()
