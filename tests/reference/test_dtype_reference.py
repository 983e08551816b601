"""minitorch._dtype against PyTorch: promotion, casting, result types, finfo/iinfo, all dtypes."""

from __future__ import annotations

import itertools
import pickle

import pytest

torch = pytest.importorskip("torch")

from minitorch import _dtype as dt  # noqa: E402

PAIRS = [(dt.ALL_DTYPES[i], dt.ALL_DTYPES[j]) for i in range(10) for j in range(10)]
FLOATS = [d for d in dt.ALL_DTYPES if d.is_floating_point]
INTS = [d for d in dt.ALL_DTYPES if not d.is_floating_point and d is not dt.bool]
SCALARS = [True, 1, 2.5]


def tt(d):
    """The torch dtype of a minitorch dtype."""
    return getattr(torch, d.name)


@pytest.fixture(params=["float32", "float64"])
def default_dtype(request):
    """Run under both default dtypes, in minitorch and torch alike."""
    dt.set_default_dtype(getattr(dt, request.param))
    torch.set_default_dtype(getattr(torch, request.param))
    yield
    dt.set_default_dtype(dt.float32)
    torch.set_default_dtype(torch.float32)


def test_names_reprs_attributes():
    for d in dt.ALL_DTYPES:
        t = tt(d)
        assert repr(d) == repr(t) and str(d) == str(t)
        assert d.itemsize == t.itemsize
        assert d.is_floating_point == t.is_floating_point
        assert d.is_signed == t.is_signed
        assert d.is_complex == t.is_complex
    for alias in ["float", "double", "half", "long", "int", "short"]:
        assert getattr(dt, alias).name == str(getattr(torch, alias))[len("torch.") :]


def test_pickle_names_match_torch():
    # Both pickle a dtype as a module global of the same name.
    for d in dt.ALL_DTYPES:
        assert d.__reduce__() == tt(d).__reduce__() == d.name
        assert pickle.loads(pickle.dumps(d)) is d


@pytest.mark.parametrize("a, b", PAIRS, ids=str)
def test_promote_types(a, b):
    assert str(dt.promote_types(a, b)) == str(torch.promote_types(tt(a), tt(b)))


@pytest.mark.parametrize("a, b", PAIRS, ids=str)
def test_can_cast(a, b):
    assert dt.can_cast(a, b) == torch.can_cast(tt(a), tt(b))


def test_python_types_as_dtypes():
    for py in (bool, int, float):
        assert str(dt.promote_types(dt.float16, py)) == str(torch.promote_types(torch.float16, py))
        assert dt.can_cast(py, dt.int8) == torch.can_cast(py, torch.int8)


def _operands(d, kind):
    """A (minitorch description, torch operand) pair: kind is 'dim', 'zero' or a Python scalar."""
    if kind == "dim":
        return (d, 1), torch.zeros(2, dtype=tt(d))
    return (d, 0), torch.zeros((), dtype=tt(d))


@pytest.mark.parametrize("ka, kb", list(itertools.product(["dim", "zero"], repeat=2)))
def test_result_type_two_tensors(default_dtype, ka, kb):
    for a, b in PAIRS:
        (da, ta), (db, tb) = _operands(a, ka), _operands(b, kb)
        expected = str(torch.result_type(ta, tb))
        assert str(dt.result_type(da, db)) == expected, (a, ka, b, kb)
        assert str(dt.binary_dtype(*da, *db)) == expected, (a, ka, b, kb)


@pytest.mark.parametrize("kind", ["dim", "zero"])
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_result_type_tensor_and_scalar(default_dtype, kind, scalar):
    for d in dt.ALL_DTYPES:
        desc, t = _operands(d, kind)
        expected = str(torch.result_type(t, scalar))
        assert str(dt.result_type(desc, scalar)) == expected, (d, kind)
        assert str(dt.result_type(scalar, desc)) == str(torch.result_type(scalar, t)), (d, kind)
        assert str(dt.scalar_dtype(d, scalar)) == expected, (d, kind)


def test_result_type_two_scalars(default_dtype):
    for a, b in itertools.product(SCALARS, SCALARS):
        assert str(dt.result_type(a, b)) == str(torch.result_type(a, b)), (a, b)


def _clamp_dtype(*args, **kwargs):
    """The dtype of torch.clamp, which promotes all its operands; None where torch refuses."""
    try:
        return str(torch.clamp(*args, **kwargs).dtype)
    except (RuntimeError, NotImplementedError):
        return None


@pytest.mark.parametrize("kinds", list(itertools.product(["dim", "zero"], repeat=3)), ids=str)
def test_result_type_three_tensors(kinds):
    # torch.result_type takes two operands; clamp(x, min, max) applies it to three.
    for dtypes in itertools.product(dt.ALL_DTYPES, repeat=3):
        descs, tensors = zip(*map(_operands, dtypes, kinds), strict=True)
        expected = _clamp_dtype(*tensors)
        if expected is not None:
            assert str(dt.result_type(*descs)) == expected, (dtypes, kinds)


@pytest.mark.parametrize("kind", ["dim", "zero"])
def test_result_type_tensor_and_two_scalars(default_dtype, kind):
    for d in dt.ALL_DTYPES:
        desc, t = _operands(d, kind)
        for lo, hi in itertools.product(SCALARS, SCALARS):
            expected = _clamp_dtype(t, min=lo, max=hi)
            if expected is not None:
                assert str(dt.result_type(desc, lo, hi)) == expected, (d, kind, lo, hi)


@pytest.mark.parametrize("d", FLOATS, ids=str)
def test_finfo(d):
    ours, theirs = dt.finfo(d), torch.finfo(tt(d))
    for attr in ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]:
        assert getattr(ours, attr) == getattr(theirs, attr), attr
        assert type(getattr(ours, attr)) is type(getattr(theirs, attr)), attr
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)


def test_finfo_default(default_dtype):
    assert repr(dt.finfo()) == repr(torch.finfo())


@pytest.mark.parametrize("d", INTS, ids=str)
def test_iinfo(d):
    ours, theirs = dt.iinfo(d), torch.iinfo(tt(d))
    for attr in ["bits", "max", "min", "dtype"]:
        assert getattr(ours, attr) == getattr(theirs, attr), attr
        assert type(getattr(ours, attr)) is type(getattr(theirs, attr)), attr
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("d", dt.ALL_DTYPES, ids=str)
def test_finfo_iinfo_errors(d):
    for ours, theirs in [(dt.finfo, torch.finfo), (dt.iinfo, torch.iinfo)]:
        try:
            theirs(tt(d))
        except TypeError as e:
            with pytest.raises(TypeError) as info:
                ours(d)
            assert str(info.value) == str(e)
        else:
            ours(d)


def test_set_default_dtype_accepts_what_torch_accepts():
    try:
        for d in dt.ALL_DTYPES:
            try:
                torch.set_default_dtype(tt(d))
            except TypeError as e:
                with pytest.raises(TypeError) as info:
                    dt.set_default_dtype(d)
                assert str(e) in str(info.value)
            else:
                dt.set_default_dtype(d)
                assert str(dt.get_default_dtype()) == str(torch.get_default_dtype())
    finally:
        dt.set_default_dtype(dt.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("expr", ["x * 0.3", "0.3 * x", "x + 0.5", "x - 0.7", "x / 0.3", "x / 3"])
def test_bfloat16_scalar_arithmetic_matches_torch(expr):
    import minitorch

    pytest.importorskip("ml_dtypes")
    values = [1.0, 3.7, -2.25, 100.3, 0.013, -7.5e-3]
    results = []
    for lib in (minitorch, torch):
        x = lib.tensor(values, dtype=lib.bfloat16, requires_grad=True)
        y = eval(expr, {"x": x})
        y.float().sum().backward()
        results.append((str(y.dtype), y.float().tolist(), x.grad.float().tolist()))
    assert results[0] == results[1]


_HALF_EXPRS = [
    "x + 0.3", "x - 0.3", "0.3 - x", "x + 1.7", "x - 3001", "x * 0.3", "0.1 * x", "x * 3001",
    "x / 0.3", "0.3 / x", "x / 1.7", "torch.sub(x, y, alpha=-2)", "x * y", "x / y", "x + y",
    "x - y",
]  # fmt: skip


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("expr", _HALF_EXPRS)
def test_half_precision_scalar_arithmetic_matches_torch_bitwise(dtype, expr):
    # NOTE [ Half-precision arithmetic ]: one rounding of a float32 result; add/sub round the
    # number to the tensor's dtype first, mul/div do not. 2,000 random values catch a 1-ulp
    # disagreement (it hit 20-45% of the elements before).
    import numpy as np

    import minitorch

    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    # float32 sources: torch converts float64 to half through float32 (two roundings)
    rng = np.random.default_rng(0)
    xs, ys = (rng.standard_normal((2, 2000)) * 3).astype(np.float32)
    results = []
    for lib in (minitorch, torch):
        x = lib.tensor(xs, dtype=getattr(lib, dtype))
        y = lib.tensor(ys, dtype=getattr(lib, dtype))
        out = eval(expr, {"x": x, "y": y, "torch": lib})
        results.append((str(out.dtype).removeprefix("torch."), out.float().numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1], err_msg=expr)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("method, other", [("add_", 0.3), ("sub_", 1.7), ("mul_", 0.3),
                                           ("div_", 0.3), ("mul_", 3001)])  # fmt: skip
def test_half_precision_inplace_number_matches_torch_bitwise(dtype, method, other):
    import numpy as np

    import minitorch

    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    xs = (np.random.default_rng(1).standard_normal(2000) * 3).astype(np.float32)
    results = []
    for lib in (minitorch, torch):
        x = lib.tensor(xs, dtype=getattr(lib, dtype))
        getattr(x, method)(other)
        results.append(x.float().numpy())
    np.testing.assert_array_equal(results[0], results[1], err_msg=f"{method}({other})")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_float64_to_half_rounds_through_float32_as_torch(dtype):
    # c10 builds Half/BFloat16 from a float: a double is rounded twice (14 of these 200,000
    # float16 values differ from a direct rounding)
    import numpy as np

    import minitorch

    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    xs = np.random.default_rng(1).standard_normal(200_000) * 3
    ours, theirs = (
        [
            lib.tensor(xs).to(getattr(lib, dtype)),
            lib.tensor(xs, dtype=getattr(lib, dtype)),
            lib.tensor(xs[:5000].tolist(), dtype=getattr(lib, dtype)),
            lib.from_numpy(xs).clone().to(getattr(lib, dtype)),
        ]
        for lib in (minitorch, torch)
    )
    for k, (o, t) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_array_equal(o.float().numpy(), t.float().numpy(), err_msg=str(k))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_numbers_and_doubles_into_half_round_through_float32_as_torch(dtype):
    # every way a Python float or a float64 value reaches a half tensor rounds it as c10 does
    # (to float32, then to the half dtype): fills, copies, assignments, add/sub with a number,
    # as_tensor. The values are doubles whose direct rounding to the dtype differs (NumPy's
    # float16, and ml_dtypes' bfloat16 from version 0.7, round a double once).
    import numpy as np

    import minitorch

    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
        values = [-0.2978515644040967, -2.8828125666129134]
    else:
        values = [2.651367109761766, -2.745117160853688, -0.5847167724133167]
        direct = np.array(values).astype(np.float16)
        assert (direct != np.array(values).astype(np.float32).astype(np.float16)).all()

    def ways(lib, v):
        dt = getattr(lib, dtype)
        out = [lib.full((2,), v, dtype=dt), lib.as_tensor(np.array([v]), dtype=dt)]
        t = lib.zeros(2, dtype=dt)
        t.fill_(v)
        out.append(t)
        t = lib.zeros(2, dtype=dt)
        t.fill_(lib.tensor(v, dtype=lib.float64))
        out.append(t)
        t = lib.zeros(2, dtype=dt)
        t.copy_(lib.tensor([v, -v], dtype=lib.float64))
        out.append(t)
        t = lib.zeros(2, dtype=dt)
        t[0] = v
        t[1:] = -v
        out.append(t)
        out.append(lib.zeros(2, dtype=dt) + v)
        out.append(lib.zeros(2, dtype=dt) - v)
        return [o.float().numpy() for o in out]

    for v in values:
        for k, (o, t) in enumerate(zip(ways(minitorch, v), ways(torch, v), strict=True)):
            np.testing.assert_array_equal(o, t, err_msg=f"{v!r}: way {k}")
