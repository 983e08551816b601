"""NumPy drop-in: ufuncs and NumPy functions on tensors run minitorch ops, keep grads and devices.

Table-driven: every ufunc in `_numpy_interop.UFUNCS` and every function in `FUNCTIONS` has a row; a
row's NumPy call runs once on ndarrays (the reference) and once on tensors (the drop-in), and
gradients through the NumPy call are compared with gradients through the minitorch call.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch import _numpy_interop
from minitorch._backend.strict import count_transfers

_RNG = np.random.default_rng(0)


def _normal(*shape):
    return _RNG.standard_normal(shape)


def _uniform(lo, hi, *shape):
    return _RNG.uniform(lo, hi, shape)


A = _normal(2, 3)
B = _normal(2, 3)
C = _normal(3, 4)
V = _normal(3)
W = _normal(4)
P = _uniform(0.5, 2.0, 2, 3)
SQ = _normal(3, 3) + 3 * np.eye(3)
T3 = _normal(2, 3, 4)
COL = _normal(2, 1, 3)
ROW = _normal(1, 3)
IDX = np.array([[0, 2], [1, 1]])

# --- tables --------------------------------------------------------------------------------------

# (id, numpy call, minitorch call or None (not differentiable), inputs)
FUNCTION_ROWS = [
    ("sum", lambda a: np.sum(a, axis=0), lambda a: mt.sum(a, 0), [A]),
    ("sum_all", lambda a: np.sum(a), lambda a: a.sum(), [A]),
    ("sum_keepdims", lambda a: np.sum(a, axis=(0, 2), keepdims=True),
     lambda a: a.sum((0, 2), keepdim=True), [T3]),
    ("sum_dtype", lambda a: np.sum(a, axis=1, dtype=np.float32), None, [A]),
    ("mean", lambda a: np.mean(a, axis=1), lambda a: a.mean(1), [A]),
    ("std", lambda a: np.std(a, axis=0, ddof=1), lambda a: a.std(0), [A]),
    ("std_all", lambda a: np.std(a), lambda a: a.std(correction=0), [A]),
    ("var", lambda a: np.var(a, axis=1, keepdims=True),
     lambda a: a.var(1, correction=0, keepdim=True), [A]),
    ("prod", lambda a: np.prod(a, axis=1), lambda a: a.prod(1), [P]),
    ("prod_all", lambda a: np.prod(a), lambda a: a.prod(), [P]),
    ("max", lambda a: np.max(a, axis=0), lambda a: a.amax(0), [A]),
    ("amax", lambda a: np.amax(a, axis=1, keepdims=True), lambda a: a.amax(1, True), [A]),
    ("min", lambda a: np.min(a), lambda a: a.amin(), [A]),
    ("amin", lambda a: np.amin(a, axis=(0, 1)), lambda a: a.amin((0, 1)), [T3]),
    ("argmax", lambda a: np.argmax(a, axis=1), None, [A]),
    ("argmax_all", lambda a: np.argmax(a), None, [A]),
    ("argmin", lambda a: np.argmin(a, axis=0), None, [A]),
    ("cumsum", lambda a: np.cumsum(a, axis=1), lambda a: a.cumsum(1), [A]),
    ("cumsum_flat", lambda a: np.cumsum(a), lambda a: a.reshape(-1).cumsum(0), [A]),
    ("cumprod", lambda a: np.cumprod(a, axis=0), lambda a: a.cumprod(0), [P]),
    ("reshape", lambda a: np.reshape(a, (3, 2)), lambda a: a.reshape(3, 2), [A]),
    ("reshape_int", lambda a: np.reshape(a, -1), lambda a: a.reshape(-1), [A]),
    ("ravel", lambda a: np.ravel(a), lambda a: a.reshape(-1), [A]),
    ("transpose", lambda a: np.transpose(a), lambda a: a.permute(2, 1, 0), [T3]),
    ("transpose_axes", lambda a: np.transpose(a, (1, 0, 2)), lambda a: a.permute(1, 0, 2), [T3]),
    ("moveaxis", lambda a: np.moveaxis(a, 0, -1), lambda a: a.movedim(0, -1), [T3]),
    ("swapaxes", lambda a: np.swapaxes(a, 0, 2), lambda a: a.transpose(0, 2), [T3]),
    ("squeeze", lambda a: np.squeeze(a), lambda a: a.squeeze(), [COL]),
    ("squeeze_axis", lambda a: np.squeeze(a, axis=1), lambda a: a.squeeze(1), [COL]),
    ("expand_dims", lambda a: np.expand_dims(a, (0, 2)),
     lambda a: a.unsqueeze(0).unsqueeze(2), [A]),
    ("concatenate", lambda a, b: np.concatenate([a, b], axis=1),
     lambda a, b: mt.cat([a, b], 1), [A, B]),
    ("concatenate_none", lambda a, b: np.concatenate((a, b), axis=None),
     lambda a, b: mt.cat([a.reshape(-1), b.reshape(-1)]), [A, B]),
    ("stack", lambda a, b: np.stack([a, b], axis=1), lambda a, b: mt.stack([a, b], 1), [A, B]),
    ("vstack", lambda a, b: np.vstack([a, b]), lambda a, b: mt.vstack([a, b]), [A, B]),
    ("hstack", lambda a, b: np.hstack([a, b]), lambda a, b: mt.hstack([a, b]), [A, B]),
    ("split", lambda a: np.split(a, 3, axis=1), lambda a: mt.split(a, 1, 1), [A]),
    ("split_indices", lambda a: np.split(a, [1, 3], axis=1),
     lambda a: mt.split(a, [1, 2, 1], 1), [_normal(2, 4)]),
    ("where", lambda a, b: np.where(a > 0, a, b), lambda a, b: mt.where(a > 0, a, b), [A, B]),
    ("clip", lambda a: np.clip(a, -0.5, 0.5), lambda a: a.clamp(-0.5, 0.5), [A]),
    ("clip_array", lambda a, b: np.clip(a, b, None), lambda a, b: mt.clamp(a, min=b), [A, B]),
    ("abs", lambda a: np.abs(a), lambda a: a.abs(), [A]),
    ("exp", lambda a: np.exp(a), lambda a: a.exp(), [A]),
    ("log", lambda a: np.log(a), lambda a: a.log(), [P]),
    ("sqrt", lambda a: np.sqrt(a), lambda a: a.sqrt(), [P]),
    ("maximum", lambda a, b: np.maximum(a, b), mt.maximum, [A, B]),
    ("minimum", lambda a, b: np.minimum(a, b), mt.minimum, [A, B]),
    ("matmul", lambda a, c: np.matmul(a, c), mt.matmul, [A, C]),
    ("dot", lambda a, c: np.dot(a, c), mt.matmul, [A, C]),
    ("dot_1d", lambda a, b: np.dot(a, b), mt.dot, [V, _normal(3)]),
    ("dot_nd", lambda a, c: np.dot(a, c), lambda a, c: mt.tensordot(a, c, ([2], [0])),
     [T3, _normal(4, 5)]),
    ("einsum", lambda a, c: np.einsum("ij,jk->ik", a, c),
     lambda a, c: mt.einsum("ij,jk->ik", a, c), [A, C]),
    ("tensordot", lambda a, c: np.tensordot(a, c, axes=1),
     lambda a, c: mt.tensordot(a, c, 1), [A, C]),
    ("tensordot_axes", lambda a, b: np.tensordot(a, b, axes=([0, 1], [0, 1])),
     lambda a, b: mt.tensordot(a, b, ([0, 1], [0, 1])), [A, B]),
    ("outer", lambda v, w: np.outer(v, w), mt.outer, [V, W]),
    ("linalg.norm", lambda a: np.linalg.norm(a), lambda a: mt.linalg.norm(a.reshape(-1)), [A]),
    ("linalg.norm_axis", lambda a: np.linalg.norm(a, axis=1),
     lambda a: mt.linalg.norm(a, dim=1), [A]),
    ("sort", lambda a: np.sort(a, axis=1), lambda a: a.sort(1).values, [A]),
    ("sort_flat", lambda a: np.sort(a, axis=None), lambda a: a.reshape(-1).sort().values, [A]),
    ("argsort", lambda a: np.argsort(a, axis=0), None, [A]),
    ("take", lambda a: np.take(a, [0, 2], axis=1), lambda a: a[:, [0, 2]], [A]),
    ("take_flat", lambda a: np.take(a, [1, 4]), lambda a: a.reshape(-1)[[1, 4]], [A]),
    ("take_along_axis", lambda a: np.take_along_axis(a, IDX, axis=1),
     lambda a: a.gather(1, mt.tensor(IDX, device=a.device)), [A]),
    ("pad", lambda a: np.pad(a, 1), None, [A]),
    ("pad_widths", lambda a: np.pad(a, ((1, 0), (0, 2)), constant_values=3.0),
     lambda a: mt.nn.functional.pad(a, [0, 2, 1, 0], value=3.0), [A]),
    ("flip", lambda a: np.flip(a, axis=0), lambda a: a.flip(0), [A]),
    ("flip_all", lambda a: np.flip(a), lambda a: a.flip((0, 1)), [A]),
    ("roll", lambda a: np.roll(a, 1, axis=1), lambda a: a.roll(1, 1), [A]),
    ("roll_flat", lambda a: np.roll(a, 2), lambda a: a.roll(2), [A]),
    ("tile", lambda a: np.tile(a, (2, 1)), lambda a: a.tile((2, 1)), [A]),
    ("repeat", lambda a: np.repeat(a, 2, axis=0), lambda a: a.repeat_interleave(2, 0), [A]),
    ("repeat_flat", lambda a: np.repeat(a, 2), lambda a: a.repeat_interleave(2), [A]),
    ("broadcast_to", lambda r: np.broadcast_to(r, (4, 3)), lambda r: r.expand(4, 3), [ROW]),
    ("zeros_like", lambda a: np.zeros_like(a), None, [A]),
    ("ones_like", lambda a: np.ones_like(a, dtype=np.float32), None, [A]),
    ("full_like", lambda a: np.full_like(a, 7.0), None, [A]),
    ("allclose", lambda a: np.allclose(a, a + 1e-9), None, [A]),
    ("allclose_false", lambda a, b: np.allclose(a, b), None, [A, B]),
    ("isclose", lambda a, b: np.isclose(a, b), None, [A, B]),
    ("array_equal", lambda a: np.array_equal(a, a), None, [A]),
    ("array_equal_false", lambda a, b: np.array_equal(a, b), None, [A, B]),
    ("array_equal_shape", lambda a, r: np.array_equal(a, r), None, [A, ROW]),
    ("shape", lambda a: np.shape(a), None, [T3]),
    ("ndim", lambda a: np.ndim(a), None, [T3]),
    ("size", lambda a: np.size(a), None, [T3]),
    ("size_axis", lambda a: np.size(a, 1), None, [T3]),
    ("round", lambda a: np.round(a, 1), None, [A]),
    ("around", lambda a: np.around(a), None, [A]),
    ("trace", lambda a: np.trace(a), lambda a: a.diagonal().sum(), [SQ]),
]  # fmt: skip

# The NumPy function each row exercises (the registry check reads the id before any '_' suffix).
_ROW_FUNCS = {
    "linalg.norm": np.linalg.norm, "take_along_axis": np.take_along_axis,
    "expand_dims": np.expand_dims, "broadcast_to": np.broadcast_to,
    "zeros_like": np.zeros_like, "ones_like": np.ones_like, "full_like": np.full_like,
    "array_equal": np.array_equal,
}  # fmt: skip

_LINALG_ROWS = [
    ("inv", lambda a: np.linalg.inv(a), [SQ]),
    ("det", lambda a: np.linalg.det(a), [SQ]),
    ("solve", lambda a, b: np.linalg.solve(a, b), [SQ, _normal(3, 2)]),
]

_UNIT = (0.2, 0.9)  # inside every inverse trig / log domain
_UNARY_DIFF = [
    "negative", "positive", "absolute", "fabs", "exp", "exp2", "expm1", "log", "log2", "log10",
    "log1p", "sqrt", "square", "reciprocal", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
    "sinh", "cosh", "tanh", "arcsinh", "arctanh",
]  # fmt: skip
_BINARY_DIFF = [
    "add", "subtract", "multiply", "divide", "true_divide", "power", "arctan2", "hypot",
    "logaddexp", "logaddexp2", "maximum", "minimum", "fmax", "fmin",
]  # fmt: skip
_UNARY_NODIFF = ["sign", "floor", "ceil", "trunc", "rint", "isnan", "isinf", "isfinite",
                 "signbit"]  # fmt: skip
_BINARY_NODIFF = ["floor_divide", "remainder", "fmod", "equal", "not_equal", "less", "less_equal",
                  "greater", "greater_equal"]  # fmt: skip
_LOGICAL = ["logical_and", "logical_or", "logical_xor", "logical_not"]
_INTEGER = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


def _ufunc_inputs(name):
    ufunc = getattr(np, name)
    if name in _LOGICAL:
        return [_RNG.random((2, 3)) > 0.5 for _ in range(ufunc.nin)]
    if name in _INTEGER:
        return [_RNG.integers(0, 4, (2, 3)) for _ in range(ufunc.nin)]
    if name == "arccosh":
        return [_uniform(1.2, 3.0, 2, 3)]
    if name == "matmul":
        return [A, C]
    if name in ("floor_divide", "remainder", "fmod"):
        return [_uniform(-3, 3, 2, 3), _uniform(0.5, 2, 2, 3)]
    if name in _UNARY_NODIFF:
        return [_uniform(-3, 3, 2, 3)]
    return [_uniform(*_UNIT, 2, 3) for _ in range(ufunc.nin)]


UFUNC_ROWS = sorted(_numpy_interop.UFUNCS)
_UFUNC_DIFF = set(_UNARY_DIFF) | set(_BINARY_DIFF) | {"arccosh", "matmul"}


# --- helpers -------------------------------------------------------------------------------------


def _dev(device):
    """The canonical device a tensor created on `device` has ('cuda' -> 'cuda:0')."""
    return mt.empty(0, device=device).device


def _leaves(arrays, device, grad):
    return [mt.tensor(a, device=device, requires_grad=grad) for a in arrays]


def _outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _host(t):
    return t.detach().cpu().numpy()


def _check_forward(got, ref, device, name):
    if isinstance(ref, (np.ndarray, np.generic)):
        assert isinstance(got, mt.Tensor), f"{name}: got {type(got).__name__}, not a Tensor"
        assert got.device == _dev(device), name
        assert tuple(got.shape) == np.shape(ref), f"{name}: {tuple(got.shape)} vs {np.shape(ref)}"
        assert got.dtype is mt._dtype.from_numpy(np.asarray(ref).dtype), f"{name}: {got.dtype}"
        np.testing.assert_allclose(_host(got), ref, rtol=1e-6, atol=1e-9, err_msg=name)
    else:  # Python values: bools, shapes, sizes
        assert type(got) is type(ref) and got == ref, f"{name}: {got!r} vs {ref!r}"


def _grads(fn, arrays, device, upstream):
    leaves = _leaves(arrays, device, True)
    outs = _outputs(fn(*leaves))
    pairs = zip(outs, upstream, strict=True)
    total = sum((o * mt.tensor(u, device=device)).sum() for o, u in pairs)
    total.backward()
    return [_host(x.grad) if x.grad is not None else None for x in leaves]


def _check_grads(np_fn, mt_fn, arrays, device, name):
    """Gradients through the NumPy call equal those through the minitorch call (random upstream)."""
    refs = _outputs(np_fn(*arrays))
    upstream = [_normal(*np.shape(r)) for r in refs]
    via_numpy = _grads(np_fn, arrays, device, upstream)
    via_minitorch = _grads(mt_fn, arrays, device, upstream)
    for i, (g_np, g_mt) in enumerate(zip(via_numpy, via_minitorch, strict=True)):
        assert g_np is not None, f"{name}: no gradient reached input {i} through the NumPy call"
        np.testing.assert_allclose(g_np, g_mt, rtol=1e-10, atol=1e-12, err_msg=f"{name} #{i}")


# --- __array_function__ --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, np_fn, mt_fn, arrays", FUNCTION_ROWS, ids=[r[0] for r in FUNCTION_ROWS]
)
def test_numpy_function(name, np_fn, mt_fn, arrays, device):
    ref = np_fn(*arrays)
    with count_transfers() as transfers:
        got = np_fn(*_leaves(arrays, device, False))
    assert transfers.count == 0 or not isinstance(ref, (np.ndarray, np.generic, list)), name
    refs, gots = _outputs(ref), _outputs(got)
    assert len(refs) == len(gots), name
    for g, r in zip(gots, refs, strict=True):
        _check_forward(g, r, device, name)
    if mt_fn is not None:
        _check_grads(np_fn, mt_fn, arrays, device, name)


def test_every_listed_function_has_a_row():
    covered = {_ROW_FUNCS.get(n, None) for n, *_ in FUNCTION_ROWS}
    for n, *_ in FUNCTION_ROWS:
        base = n.split("_")[0] if n not in _ROW_FUNCS else n
        covered.add(getattr(np, base, None))
    covered |= {np.linalg.inv, np.linalg.det, np.linalg.solve}
    missing = [f.__name__ for f in _numpy_interop.FUNCTIONS if f not in covered]
    assert not missing, f"FUNCTIONS entries without a test row: {missing}"


@pytest.mark.parametrize("name, np_fn, arrays", _LINALG_ROWS, ids=[r[0] for r in _LINALG_ROWS])
def test_linalg_functions(name, np_fn, arrays):
    ts = _leaves(arrays, "cpu", False)
    if getattr(mt.linalg, name, None) is None:
        with pytest.raises(TypeError, match=rf"numpy\.linalg\.{name} has no minitorch op"):
            np_fn(*ts)
    else:
        _check_forward(np_fn(*ts), np_fn(*arrays), "cpu", name)
        mt_fn = getattr(mt.linalg, name)
        _check_grads(np_fn, mt_fn, arrays, "cpu", f"linalg.{name}")


def test_linalg_solve_promotes_like_numpy():
    if getattr(mt.linalg, "solve", None) is None:
        pytest.skip("minitorch.linalg.solve is not implemented")
    a = mt.tensor(SQ, dtype=mt.float32)
    x = np.linalg.solve(a, np.ones(3))  # float32 tensor, float64 ndarray
    assert x.dtype is mt.float64
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(SQ, np.ones(3)), rtol=1e-5)


def test_scalar_results_are_0d_tensors():
    t = mt.tensor(A, requires_grad=True)
    s = np.sum(t)
    assert isinstance(s, mt.Tensor) and s.ndim == 0 and s.requires_grad
    assert isinstance(np.linalg.norm(t), mt.Tensor)


def test_numpy_argument_names_and_out():
    t = mt.tensor(A)
    out = mt.empty(3, dtype=mt.float64)
    assert np.sum(t, axis=0, out=out) is out
    np.testing.assert_allclose(out.numpy(), A.sum(0))
    with pytest.raises(TypeError, match="needs a minitorch Tensor out"):
        np.sum(t, axis=0, out=np.empty(3))
    with pytest.raises(TypeError, match="numpy.sum does not support"):
        np.sum(t, where=np.ones((2, 3), bool))


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda t: np.median(t), "numpy.median"),
        (lambda t: np.fft.fft(t), "numpy.fft.fft"),
        (lambda t: np.unwrap(t), "numpy.unwrap"),
    ],
    ids=["median", "fft", "unwrap"],
)
def test_unmapped_functions_run_as_numpy_on_host_tensors(call, name, device):
    # as for torch's tensors (np.unique, np.median, sklearn's metrics); no hidden device copy
    t = mt.tensor(A, device=device)
    if t.device.type != "cpu":
        with pytest.raises(TypeError, match=rf"{name.split('.')[-1]} has no minitorch op"):
            call(t)
        return
    result = call(t)
    assert not isinstance(result, mt.Tensor)  # NumPy's own result (an array or a NumPy scalar)
    np.testing.assert_allclose(result, call(A))
    assert np.unique(mt.tensor([3, 1, 3])).tolist() == [1, 3]


# --- __array_ufunc__ -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", UFUNC_ROWS)
def test_ufunc(name, device):
    ufunc = getattr(np, name)
    arrays = _ufunc_inputs(name)
    ref = ufunc(*arrays)
    with count_transfers() as transfers:
        got = ufunc(*_leaves(arrays, device, False))
    assert transfers.count == 0, name
    _check_forward(got, ref, device, name)
    if name in _UFUNC_DIFF:
        _check_grads(ufunc, _numpy_interop.UFUNCS[name], arrays, device, name)


def test_every_ufunc_row_is_classified():
    known = _UFUNC_DIFF | set(_UNARY_NODIFF) | set(_BINARY_NODIFF) | set(_LOGICAL) | set(_INTEGER)
    assert set(UFUNC_ROWS) == known, set(UFUNC_ROWS) ^ known


def test_mixed_operands_keep_the_graph(device):
    t = mt.tensor(A, device=device, requires_grad=True)
    for result in (
        np.multiply(B, t),
        np.add(t, 2.0),
        np.subtract(2.0, t),
        np.float64(3.0) * t,
        B * t,
        np.power(t, 2),
        np.maximum(t, [0.0, 0.1, 0.2]),
    ):
        assert isinstance(result, mt.Tensor) and result.requires_grad, type(result)
        assert result.device == _dev(device)
    np.testing.assert_allclose(_host(np.subtract(2.0, t)), 2.0 - A)
    # torch's promotion: a Python float does not widen a float32 tensor.
    assert np.add(mt.ones(2), 1.5).dtype is mt.float32


def test_ndarray_operators_still_give_tensors():
    t = mt.tensor(A)
    assert isinstance(B * t, mt.Tensor)
    assert isinstance(B + t, mt.Tensor)
    assert isinstance(B == t, mt.Tensor) and (B == t).dtype is mt.bool
    np.testing.assert_allclose((B - t).numpy(), B - A)


def test_tensor_operators_take_arrays_with_numpys_promotion():
    # torch hands `tensor op ndarray` to the array's reflected operator: NumPy's promotion
    x = mt.tensor([1.0, 2.0])
    for result, dtype, want in (
        (x + np.array([1.0, 2.0]), mt.float64, [2.0, 4.0]),
        (x * np.array([1.0, 2.0], dtype=np.float32), mt.float32, [1.0, 4.0]),
        (x - np.array(0.5), mt.float64, [0.5, 1.5]),
        (mt.tensor([1, 2]) * np.array([0.5, 1.0], dtype=np.float32), mt.float64, [0.5, 2.0]),
        (x == np.array([1.0, 3.0]), mt.bool, [True, False]),
    ):
        assert isinstance(result, mt.Tensor) and result.dtype is dtype, (result, dtype)
        assert result.tolist() == want


def test_numpy_scalars_act_as_python_numbers():
    # np.sqrt(d), np.log(...) are np.float64, a float subclass NumPy itself treats as float64
    q = mt.ones(2, 4)
    scores = q @ q.T / np.sqrt(4)
    assert scores.dtype is mt.float32
    assert (scores @ mt.ones(2, 2)).dtype is mt.float32
    assert mt.exp(mt.arange(0, 8, 2).float() * (-np.log(10000.0) / 8)).dtype is mt.float32
    assert (mt.tensor([1, 2]) * np.float64(0.5)).dtype is mt.float32
    assert q.clamp(max=np.int64(3)).dtype is mt.float32
    assert mt.clamp(q.half(), min=np.float64(2.0)).dtype is mt.float16
    assert mt.pow(np.int64(2), mt.tensor([1, 2])).tolist() == [2, 4]
    with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
        mt.add(mt.tensor([1]), mt.tensor([1]), alpha=np.float32(2.0))


def test_equality_with_other_objects_is_false():
    x = mt.tensor([1, 2])
    for other in (None, "cpu", [1, 2], object()):
        assert (x == other) is False and (x != other) is True


def test_ufunc_out():
    t = mt.tensor(A, requires_grad=True)
    out = mt.empty(2, 3, dtype=mt.float64)
    assert np.exp(t, out=out) is out
    out.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), np.exp(A), rtol=1e-12)
    only_out = mt.zeros(2, 3, dtype=mt.float64)
    assert np.add(A, B, out=only_out) is only_out
    np.testing.assert_allclose(only_out.numpy(), A + B)
    # An ndarray out keeps working for plain data (`arr += tensor`), and refuses a graph.
    arr = B.copy()
    arr += mt.tensor(A)
    np.testing.assert_allclose(arr, A + B)
    with pytest.raises(TypeError, match="would drop the graph"):
        np.add(B, t, out=B.copy())


def test_ndarray_out_refuses_device_tensors():
    s = mt.tensor(A, device="strict")
    arr = B.copy()
    with pytest.raises(TypeError, match=r"\.cpu\(\)"):
        arr += s


def _rand_grad(t, *shape):
    return mt.tensor(_normal(*shape), device=t.device)


@pytest.mark.parametrize(
    "np_call, mt_call",
    [
        (lambda t: np.add.reduce(t), lambda t: t.sum(0)),
        (lambda t: np.add.reduce(t, axis=1, keepdims=True), lambda t: t.sum(1, keepdim=True)),
        (lambda t: np.add.reduce(t, axis=None), lambda t: t.sum()),
        (lambda t: np.multiply.reduce(t, axis=1), lambda t: t.prod(1)),
        (lambda t: np.multiply.reduce(t, axis=None), lambda t: t.prod()),
        (lambda t: np.maximum.reduce(t, axis=1), lambda t: t.amax(1)),
        (lambda t: np.minimum.reduce(t), lambda t: t.amin(0)),
        (lambda t: np.add.accumulate(t, axis=1), lambda t: t.cumsum(1)),
        (lambda t: np.multiply.accumulate(t), lambda t: t.cumprod(0)),
        (lambda t: np.maximum.accumulate(t, axis=1), lambda t: t.cummax(1).values),
        (lambda t: np.minimum.accumulate(t), lambda t: t.cummin(0).values),
        (lambda t: np.multiply.outer(t[0], t[1]), lambda t: mt.outer(t[0], t[1])),
        (lambda t: np.add.outer(t, t[0]), lambda t: t.unsqueeze(-1) + t[0]),
        (lambda t: np.subtract.outer(t[1], t[0]), lambda t: t[1].unsqueeze(-1) - t[0]),
    ],
    ids=["add.reduce", "add.reduce_keep", "add.reduce_all", "multiply.reduce",
         "multiply.reduce_all", "maximum.reduce", "minimum.reduce", "add.accumulate",
         "multiply.accumulate", "maximum.accumulate", "minimum.accumulate", "multiply.outer",
         "add.outer", "subtract.outer"],
)  # fmt: skip
def test_ufunc_methods(np_call, mt_call, device):
    np.testing.assert_allclose(
        _host(np_call(mt.tensor(P, device=device))), np_call(P), rtol=1e-12, err_msg="forward"
    )
    _check_grads(np_call, mt_call, [P], device, "method")


def test_logical_reduce():
    m = _RNG.random((2, 3)) > 0.3
    t = mt.tensor(m)
    np.testing.assert_array_equal(np.logical_and.reduce(t, axis=1).numpy(), m.all(1))
    np.testing.assert_array_equal(np.logical_or.reduce(t).numpy(), m.any(0))


_NO_OP_UFUNCS = [
    (lambda t: np.gcd(t, t), "numpy.gcd"),
    (lambda t: np.cbrt(t), "numpy.cbrt"),
    (lambda t: np.subtract.reduce(t), "numpy.subtract.reduce"),
    (lambda t: np.divide.accumulate(t), "numpy.divide.accumulate"),
    (lambda t: np.add.reduceat(t, [0, 1]), "numpy.add.reduceat"),
    (lambda t: np.add.reduce(t, initial=10.0), "numpy.add.reduce"),
    (lambda t: np.frexp(t), "numpy.frexp"),
]
_NO_OP_IDS = ["gcd", "cbrt", "subtract.reduce", "divide.accumulate", "reduceat", "initial", "frexp"]


@pytest.mark.parametrize("call, name", _NO_OP_UFUNCS, ids=_NO_OP_IDS)
def test_ufuncs_without_an_op_run_on_the_host_and_return_tensors(call, name):
    # as torch's __array_wrap__: NumPy's values, in NumPy's dtypes, as tensors
    t = mt.tensor([1, 2, 3]) if "gcd" in name else mt.tensor([1.0, 2.0, 3.0])
    expected = call(t.numpy().copy())
    result = call(t)
    pairs = (
        zip(result, expected, strict=True) if isinstance(expected, tuple) else [(result, expected)]
    )
    for r, e in pairs:
        assert isinstance(r, mt.Tensor) and r.numpy().dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(r.numpy(), e)


@pytest.mark.parametrize("call, name", _NO_OP_UFUNCS, ids=_NO_OP_IDS)
def test_ufuncs_without_an_op_do_not_copy_a_device_tensor(call, name):
    t = mt.tensor([1, 2, 3] if "gcd" in name else [1.0, 2.0, 3.0], device="strict")
    with pytest.raises(TypeError, match=rf"minitorch: {name}.* has no minitorch op.*\.numpy\(\)"):
        call(t)


def test_ufunc_at_writes_through_tensors_and_arrays():
    t = mt.tensor([1.0, 2.0, 3.0])
    assert np.add.at(t, [0, 0, 2], 1.0) is None
    assert t.tolist() == [3.0, 2.0, 4.0] and t._version == 1
    a = np.zeros(4)
    np.add.at(a, mt.tensor([0, 2, 2]), 1)  # an index tensor into an ndarray (a scatter-add)
    assert a.tolist() == [1.0, 0.0, 2.0, 0.0]
    w = mt.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="outside autograd"):
        np.add.at(w, [0], 1.0)


def test_numpy_pad_beyond_f_pad_runs_on_the_host():
    t = mt.tensor([1.0, 2.0, 3.0])
    for kwargs in (
        dict(mode="reflect"),
        dict(mode="edge"),
        dict(mode="wrap"),
        dict(mode="symmetric"),
        dict(constant_values=(5, 6)),
    ):
        np.testing.assert_array_equal(
            np.asarray(np.pad(t, 2, **kwargs)), np.pad(t.numpy(), 2, **kwargs)
        )
    m = mt.tensor(A)
    out = np.pad(m, 1, mode="reflect")  # every dim of a 2-d array: NumPy's reflection
    np.testing.assert_array_equal(np.asarray(out), np.pad(A, 1, mode="reflect"))
    assert isinstance(np.pad(m, 1), mt.Tensor)  # a constant pad is still F.pad (a Tensor)


# --- np.asarray ----------------------------------------------------------------------------------


def test_asarray_shares_cpu_memory():
    t = mt.tensor(A)
    a = np.asarray(t)
    assert np.shares_memory(a, t.numpy())
    a[0, 0] = 42.0
    assert t[0, 0].item() == 42.0
    t[1, 1] = -1.0
    assert a[1, 1] == -1.0
    assert np.shares_memory(np.array(t, copy=False), t.numpy())
    assert not np.shares_memory(np.array(t), t.numpy())  # np.array copies, as for an ndarray


def test_asarray_detaches_requires_grad():
    # Differences from torch: np.asarray(t) works on a tensor requiring grad (detached data).
    t = mt.tensor(A, requires_grad=True)
    a = np.asarray(t)
    assert isinstance(a, np.ndarray) and np.shares_memory(a, t.detach().numpy())
    np.testing.assert_allclose(t, A)  # np.testing on tensors keeps working


def test_asarray_of_device_tensor_raises():
    s = mt.tensor(A, device="strict")
    with pytest.raises(TypeError, match=r"Tensor\.cpu\(\)"):
        np.asarray(s)
    with pytest.raises(TypeError, match=r"Tensor\.cpu\(\)"):
        np.array(s)
    np.testing.assert_allclose(np.asarray(s.cpu()), A)


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_zero_dim_results_hold_arrays(op, dtype):
    # NumPy answers 0-d operands with a NumPy scalar: `np.asarray(loss > 1.0)` raised "object
    # __array__ method not producing an array" and .numpy() returned np.True_
    a = mt.tensor(1, dtype=getattr(mt, dtype))
    for r in (getattr(mt, op)(a, a), getattr(a, op)(1), getattr(mt, op)(a, mt.tensor(0.5))):
        assert isinstance(r.numpy(), np.ndarray) and r.numpy().shape == ()
        assert np.asarray(r).dtype == np.bool_ and np.array(r).shape == ()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_zero_dim_random_floats_hold_arrays(dtype):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    dt = getattr(mt, dtype)
    for r in (mt.rand((), dtype=dt), mt.randn((), dtype=dt), mt.rand_like(mt.zeros((), dtype=dt))):
        assert isinstance(r.numpy(), np.ndarray) and r.shape == ()
