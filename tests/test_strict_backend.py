"""The strict test device: StrictArray refuses the host like cupy.ndarray and counts transfers."""

from __future__ import annotations

import copy
import operator
import pickle

import numpy as np
import pytest

from minitorch._backend import backend_of, device
from minitorch._backend.numpy_backend import NumpyBackend
from minitorch._backend.strict import (
    StrictArray,
    StrictBackend,
    count_transfers,
    transfer_count,
    xp,
)

MIXING = "cannot be mixed"


def _arange(*shape, dtype=np.float64):
    return xp.asarray(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape))


def test_backend_is_registered_for_the_strict_device():
    backend = backend_of(device("strict"))
    assert isinstance(backend, StrictBackend)
    assert backend.name == "strict"
    assert backend.xp is xp


def test_asarray_round_trip_copies_both_ways():
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    s = xp.asarray(host)
    assert isinstance(s, StrictArray) and isinstance(s, xp.ndarray)
    assert (s.shape, s.dtype, s.ndim, s.size) == ((2, 3), np.float32, 2, 6)
    host[0, 0] = 100.0  # the device copy does not share memory with the host array
    back = s.get()
    assert type(back) is np.ndarray
    np.testing.assert_array_equal(back, np.arange(6, dtype=np.float32).reshape(2, 3))
    back[0, 0] = -1.0
    assert s[0, 0].item() == 0.0


def test_backend_host_copies():
    backend = StrictBackend()
    host = np.ones(3)
    s = backend.from_host(host, device("strict"))
    host[0] = 5.0
    assert backend.is_array(s) and not backend.is_array(host)
    np.testing.assert_array_equal(backend.to_host(s), np.ones(3))


def test_arithmetic_with_python_and_numpy_scalars():
    s = _arange(2, 3)
    a = np.arange(6.0).reshape(2, 3)
    cases = [
        (s + 1, a + 1),
        (2 - s, 2 - a),
        (s * np.float32(2), a * np.float32(2)),
        (np.float32(2) * s, np.float32(2) * a),
        (s / 4, a / 4),
        (7 // (s + 1), 7 // (a + 1)),
        (s % 4, a % 4),
        (s**2, a**2),
        (2**s, 2**a),
        (s @ s.T, a @ a.T),
        (-s, -a),
        (abs(-s), abs(-a)),
        (s > 2, a > 2),
        (s == s, a == a),
        (~(s > 2), ~(a > 2)),
    ]
    for got, want in cases:
        assert isinstance(got, StrictArray)
        np.testing.assert_array_equal(got.get(), want)
    i, n = _arange(4, dtype=np.int64), np.arange(4)
    np.testing.assert_array_equal(
        ((i & 1) | (i << 2) ^ (i >> 1)).get(), (n & 1) | (n << 2) ^ (n >> 1)
    )


def test_inplace_operators_keep_the_object_and_its_views():
    s = _arange(4)
    view = s[1:]
    same = s
    s += 1
    s *= xp.asarray(2.0)
    assert s is same
    np.testing.assert_array_equal(view.get(), [4.0, 6.0, 8.0])


def test_numpy_functions_dispatch_to_strict_arrays():
    s = _arange(2, 2)
    for out in (
        np.exp(s),
        np.add(s, 1),
        np.concatenate([s, s]),
        np.stack([s, s]),
        np.where(s > 1, s, 0),
    ):
        assert isinstance(out, StrictArray)
    np.testing.assert_allclose(np.exp(s).get(), np.exp(np.arange(4.0).reshape(2, 2)), err_msg="exp")


@pytest.mark.parametrize(
    "fn",
    [
        lambda s, h: np.asarray(s),
        lambda s, h: np.array(s),
        lambda s, h: s + h,
        lambda s, h: h + s,
        lambda s, h: s * h[0, ...],  # 0-d host arrays are host arrays too
        lambda s, h: s == h,
        lambda s, h: np.concatenate([s, h]),
        lambda s, h: np.add(s, h),
        lambda s, h: xp.exp(h),
        lambda s, h: xp.matmul(s, h),
        lambda s, h: xp.copyto(s, h),
        lambda s, h: s.__setitem__(0, h[0]),
        lambda s, h: operator.iadd(s, h),
    ],
)
def test_implicit_conversion_and_mixing_with_host_arrays_raise(fn):
    s, h = _arange(2, 2), np.ones((2, 2))
    with pytest.raises(TypeError, match=r"NumPy array is not allowed|cannot be mixed"):
        fn(s, h)


def test_refusal_messages_name_the_operation():
    with pytest.raises(TypeError, match=rf"__add__: .*{MIXING}"):
        _arange(2) + np.ones(2)
    with pytest.raises(TypeError, match=rf"concatenate: .*{MIXING}"):
        np.concatenate([_arange(2), np.ones(2)])
    with pytest.raises(TypeError, match=r"Please use `.get\(\)`"):
        np.asarray(_arange(2))


def test_host_only_attributes_are_hidden():
    s = _arange(3)
    assert not hasattr(s, "__array_interface__")
    assert not hasattr(s, "data")
    with pytest.raises(TypeError):
        _ = s + [1, 2, 3]  # cupy.ndarray refuses lists too


COUNTED = {
    "get": lambda s: s.get(),
    "item": lambda s: s[0].item(),
    "tolist": lambda s: s.tolist(),
    "float": lambda s: float(s[0]),
    "int": lambda s: int(s[0]),
    "bool": lambda s: bool(s[0]),
    "index": lambda s: operator.index(s[0].astype(np.int64)),
    "complex": lambda s: complex(s[0]),
    "repr": lambda s: repr(s),
    "str": lambda s: str(s),
    "format": lambda s: f"{s[0]:.3f}",
    "asnumpy": lambda s: xp.asnumpy(s),
    "to_host": lambda s: StrictBackend().to_host(s),
    "pickle": lambda s: pickle.dumps(s),
}


@pytest.mark.parametrize("kind", sorted(COUNTED))
def test_each_explicit_transfer_is_counted(kind):
    s = _arange(3)
    before = transfer_count()
    with count_transfers() as t:
        COUNTED[kind](s)
    assert t.count == 1, kind
    assert transfer_count() == before + 1
    s.get()
    assert t.count == 1, "the count is frozen when the block ends"


def test_device_side_work_makes_no_transfer():
    with count_transfers() as t:
        s = _arange(3, 4)
        y = (xp.exp(s) * 2 - s.mean(axis=0)).sum()
        z = s[s > 3].reshape(-1, 2).T.copy()
        xp.add.at(z, xp.asarray([0, 0]), y)
        for row in s:
            row *= 2
        copy.deepcopy(s)
    assert t.count == 0


def test_reductions_and_scalar_indexing_give_0d_arrays():
    s = _arange(2, 3)
    for out in (s.sum(), s.max(), s.argmin(), s.mean(), s.any(), s[1, 2], xp.sum(s), s[0][1]):
        assert isinstance(out, StrictArray) and out.ndim == 0
    assert s.sum().item() == 15.0
    assert isinstance(xp.linalg.norm(s), StrictArray)
    assert isinstance(xp.allclose(s, s), StrictArray)  # a Python bool in NumPy, 0-d in CuPy
    element = s[1, 2]
    element += 10  # a 0-d view, as in CuPy (NumPy would give a detached scalar)
    assert s[1, 2].item() == 15.0


def test_base_is_none_exactly_when_the_array_owns_its_memory():
    s = _arange(2, 3)
    backend = StrictBackend()
    fresh = [xp.zeros(3), s.copy(), s + 1, xp.exp(s), s.sum(), xp.asarray(np.ones(2)), s[[0, 1]]]
    views = [
        s.T,
        s[0],
        s[:, 1:],
        s.reshape(3, 2),
        s.ravel(),
        s[1, 2],
        xp.broadcast_to(s, (4, 2, 3)),
    ]
    for a in fresh:
        assert a.base is None and backend.owns_data(a)
    for v in views:
        assert isinstance(v.base, StrictArray) and not backend.owns_data(v)


def test_identity_kept_where_numpy_returns_the_input():
    s = _arange(3)
    assert s.astype(s.dtype, copy=False) is s
    assert xp.asarray(s) is s
    assert xp.add(s, 1, out=s) is s
    assert np.multiply(s, 2, out=s) is s


def test_indexing_with_device_and_host_index_arrays():
    s = _arange(3, 4)
    want = np.arange(12.0).reshape(3, 4)
    cases = [  # (device key, the same key for the host array)
        ((xp.asarray([0, 2]), slice(1, None)), (np.array([0, 2]), slice(1, None))),
        ((np.array([0, 2]), None, Ellipsis), (np.array([0, 2]), None, Ellipsis)),
        (s > 5, want > 5),
        ([1, 0], [1, 0]),
        ((0, xp.asarray(3)), (0, 3)),
    ]
    for key, host_key in cases:
        np.testing.assert_array_equal(s[key].get(), want[host_key], err_msg=str(host_key))
    s[xp.asarray([0, 1]), 0] = xp.asarray([-1.0, -2.0])
    s[2] = 7
    assert s[:, 0].tolist() == [-1.0, -2.0, 7.0]
    assert len(s) == 3 and [r.shape for r in s] == [(4,), (4,), (4,)]


def test_ufunc_methods_work_on_strict_arrays():
    target = xp.zeros(4)
    xp.add.at(target, xp.asarray([0, 0, 3, 0]), xp.asarray([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(target.get(), [7.0, 0.0, 0.0, 3.0])
    np.add.at(target, np.array([1, 1]), 1.0)  # host index arrays are accepted, as in CuPy
    StrictBackend().scatter_add(target, xp.asarray([2, 2]), 0.5)
    np.testing.assert_array_equal(target.get(), [7.0, 2.0, 1.0, 3.0])
    s = _arange(2, 3)
    np.testing.assert_array_equal(xp.add.reduce(s, axis=1).get(), [3.0, 12.0])
    np.testing.assert_array_equal(xp.multiply.accumulate(xp.asarray([1, 3, 2])).get(), [1, 3, 6])
    assert xp.multiply.outer(_arange(2), _arange(3)).shape == (2, 3)
    assert xp.add.nin == 2 and xp.add.__name__ == "add"


@pytest.mark.parametrize(
    "call",
    [
        lambda: xp.maximum.accumulate(xp.asarray([1, 3, 2])),
        lambda: xp.logaddexp.accumulate(xp.asarray([1.0, 2.0])),
        lambda: xp.maximum.reduce(xp.asarray([1, 3, 2])),
        lambda: xp.multiply.reduceat(xp.asarray([1, 3, 2]), xp.asarray([0, 2])),
        lambda: xp.multiply.at(xp.ones(3), xp.asarray([0, 0]), 2.0),
        lambda: np.maximum.accumulate(xp.asarray([1, 3, 2])),  # through __array_ufunc__
    ],
)
def test_ufunc_methods_cupy_lacks_are_refused(call):
    """CuPy 14 implements reduce/accumulate for add and multiply only, reduceat for add, and
    ufunc.at for add, subtract, maximum, minimum and the bitwise ufuncs: the strict device
    refuses the rest with CuPy's error, so the library's device paths avoid them."""
    with pytest.raises(NotImplementedError, match="is not supported yet"):
        call()


def test_ufunc_call_keywords_cupy_lacks_are_refused():
    with pytest.raises(TypeError, match="Wrong arguments"):
        xp.copysign(xp.ones(2), -1.0, where=xp.asarray([True, False]))
    assert xp.add(xp.ones(2), 1.0, out=xp.zeros(2), casting="same_kind").get().tolist() == [2, 2]


def test_multiply_at_by_sorting_on_the_device():
    """Backend.ufunc_at's path for a ufunc CuPy has no ufunc.at for: duplicates combined,
    a non-contiguous target written in place, tuple and broadcast indices."""
    rng = np.random.default_rng(0)
    base = rng.uniform(0.5, 1.5, (5, 6))
    host = base[:, ::2].copy()
    idx = (rng.integers(0, 5, 40), rng.integers(0, 3, 40))
    vals = rng.uniform(0.5, 1.5, 40)
    np.multiply.at(host, idx, vals)
    dev = xp.asarray(base)
    view = dev[:, ::2]
    StrictBackend().ufunc_at(xp.multiply, view, tuple(xp.asarray(i) for i in idx), xp.asarray(vals))
    np.testing.assert_allclose(view.get(), host, rtol=1e-13)
    np.testing.assert_array_equal(dev.get()[:, 1::2], base[:, 1::2])
    row = xp.ones(4)
    StrictBackend().ufunc_at(xp.multiply, row, xp.asarray([1, 1, 3]), 2.0)
    assert row.get().tolist() == [1.0, 4.0, 1.0, 2.0]


def test_namespace_passes_constants_and_types_through():
    assert xp.float32 is np.float32 and xp.dtype is np.dtype and xp.newaxis is None
    assert xp.pi == np.pi and xp.linalg.LinAlgError is np.linalg.LinAlgError
    assert xp.exp is xp.exp, "wrappers are cached"
    q, r = xp.linalg.qr(_arange(3, 3) + xp.eye(3))
    assert isinstance(q, StrictArray) and isinstance(r, StrictArray)
    assert isinstance(xp.linalg.svd(xp.eye(2)).S, StrictArray)
    assert all(isinstance(p, StrictArray) for p in xp.split(_arange(4), 2))
    assert xp.get_array_module(_arange(2)) is xp and xp.get_array_module(np.ones(2)) is np


def test_random_generator_is_reproducible_and_gives_strict_arrays():
    a = StrictBackend().make_rng(7).random((3, 2))
    assert isinstance(a, StrictArray) and a.dtype == np.float64
    want = NumpyBackend().make_rng(7).random((3, 2))
    np.testing.assert_array_equal(a.get(), want, err_msg="same stream as the CPU backend")
    rng = xp.random.default_rng(0)
    assert isinstance(rng.random(), StrictArray)  # CuPy's generators return 0-d arrays
    assert isinstance(rng.integers(0, 5, size=3), StrictArray)


def test_iteration_and_len_of_0d_arrays_raise():
    s = xp.asarray(1.0)
    with pytest.raises(TypeError):
        iter(s)
    with pytest.raises(TypeError):
        len(s)
