"""x[key] and x[key] = v: values vs NumPy and torch, views, errors, gradients, in-place history."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend.strict import count_transfers

# --- helpers ---


def _t(a, device, requires_grad=False):
    return mt.tensor(np.asarray(a), device=device, requires_grad=requires_grad)


def _np(t):
    return t.detach().cpu().numpy()


def numeric_grads(f, arrays, w, eps=1e-6):
    """Central differences of sum(f(*arrays) * w) w.r.t. each float64 array."""
    grads = []
    for a in arrays:
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            old = a[i]
            a[i] = old + eps
            hi = np.sum(f(*arrays) * w)
            a[i] = old - eps
            lo = np.sum(f(*arrays) * w)
            a[i] = old
            g[i] = (hi - lo) / (2 * eps)
        grads.append(g)
    return grads


def check_grads(fn, arrays, device, seed=0, gradgrad=True):
    """fn's gradients (random upstream gradient) and second derivatives vs finite differences.

    fn takes and returns minitorch tensors; it is evaluated on float64 inputs on `device`.
    """
    rng = np.random.default_rng(seed)
    arrays = [np.array(a, dtype=np.float64) for a in arrays]

    def f_np(*arrs):
        with mt.no_grad():
            return _np(fn(*[_t(a, device) for a in arrs]))

    out = f_np(*arrays)
    w = rng.standard_normal(out.shape)
    xs = [_t(a, device, requires_grad=True) for a in arrays]
    y = fn(*xs)
    wt = _t(w, device, requires_grad=True)
    grads = mt.autograd.grad((y * wt).sum(), xs, create_graph=gradgrad, allow_unused=True)
    expected = numeric_grads(f_np, arrays, w)
    for i, (g, e) in enumerate(zip(grads, expected, strict=True)):
        got = np.zeros_like(e) if g is None else _np(g)
        np.testing.assert_allclose(got, e, rtol=1e-6, atol=1e-6, err_msg=f"grad of input {i}")
    if not gradgrad:
        return
    # d/d(x, w) of sum(grad_x * u): against differences of the first derivative.
    us = [rng.standard_normal(a.shape) for a in arrays]
    pairs = [
        (g, _t(u, device))
        for g, u in zip(grads, us, strict=True)
        if g is not None and g.requires_grad
    ]
    if not pairs:
        return
    total = sum(((g * u).sum() for g, u in pairs), start=_t(0.0, device))
    second = mt.autograd.grad(total, [*xs, wt], allow_unused=True)

    def first_np(*arrs):
        *inputs, w_ = arrs
        xs_ = [_t(a, device, requires_grad=True) for a in inputs]
        g_ = mt.autograd.grad((fn(*xs_) * _t(w_, device)).sum(), xs_, allow_unused=True)
        return sum(
            np.sum((np.zeros_like(a) if gi is None else _np(gi)) * u)
            for gi, a, u in zip(g_, inputs, us, strict=True)
        )

    expected2 = numeric_grads(first_np, [*arrays, w], np.float64(1.0))
    for i, (g, e) in enumerate(zip(second, expected2, strict=True)):
        got = np.zeros_like(e) if g is None else _np(g)
        np.testing.assert_allclose(got, e, rtol=1e-5, atol=1e-6, err_msg=f"grad-grad of {i}")


# Keys where NumPy's semantics equal torch's (no int mixed with index arrays).
NUMPY_KEYS = [
    0,
    -1,
    2,
    (0, 1),
    (1, -1, 2),
    slice(1, 3),
    slice(None, None, 2),
    slice(-10, 10),
    slice(5, 10),
    slice(2, 1),
    (slice(None), slice(1, None, 3)),
    None,
    Ellipsis,
    (None, 0),
    (Ellipsis, 0),
    (0, Ellipsis, 1),
    (None, Ellipsis, None),
    (slice(None), None, 1),
    (),
    [0, 2],
    [2, 0, 2, -1],
    [],
    ([[0, 1], [1, 2]],),
    [True, False, True],
    True,
    False,
    (None, True),
    (True, [0, 1]),
    (slice(None), [0, 1]),
    ([0, 1], slice(None), [0, 1]),
    ([0, 1], [0, 1]),
    (slice(None), [0, 1], [1, 2]),
    ([0, 1], None, [1, 2]),
    (None, [0, 1], [1, 2]),
    ([0, 1], Ellipsis, [1, 2]),
    ([[0], [2]], [1, 3]),
    ([0, 1], 0),
    ([1, 2], slice(1, 3), 0),
    ([True, False, True], [0, 3]),
]

# Keys where torch differs from NumPy: ints select before index arrays are placed; torch
# accepts several ellipses.
TORCH_KEYS = [
    (0, slice(None), [0, 1]),
    (1, slice(None), [[0], [1]], None),
    (0, [0, 1], [[0], [1]]),
    (slice(None), 0, [0, 1]),
    ([0, 1], slice(None), 0),
    (Ellipsis, 0, Ellipsis),
    (0, Ellipsis, Ellipsis),
    (0, None, True),
    [0, None],
    [0, slice(None)],
    [[0, 1], [1, 2]],
]


@pytest.mark.parametrize("key", NUMPY_KEYS, ids=repr)
def test_getitem_matches_numpy(device, key):
    a = np.arange(60.0).reshape(3, 4, 5)
    out = _t(a, device)[key]
    expected = a[key]
    assert out.shape == expected.shape
    assert out.dtype is mt.float64
    np.testing.assert_array_equal(_np(out), expected, err_msg=repr(key))


@pytest.mark.parametrize("key", NUMPY_KEYS + TORCH_KEYS, ids=repr)
def test_getitem_matches_torch(device, key):
    torch = pytest.importorskip("torch")
    a = np.arange(60.0).reshape(3, 4, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.from_numpy(a)[key].numpy()
        out = _t(a, device)[key]
    assert tuple(out.shape) == expected.shape
    np.testing.assert_array_equal(_np(out), expected, err_msg=repr(key))


def test_getitem_tensor_keys_match_torch(device):
    torch = pytest.importorskip("torch")
    a = np.arange(60.0).reshape(3, 4, 5)
    mask = np.arange(12).reshape(3, 4) % 3 == 0
    keys = [
        lambda T, d: T.tensor(1, device=d),
        lambda T, d: T.tensor(-1, device=d),
        lambda T, d: T.tensor([2, 0, 2], device=d),
        lambda T, d: T.tensor([2, 0], dtype=T.int32, device=d),
        lambda T, d: T.tensor(True, device=d),
        lambda T, d: T.tensor(False, device=d),
        lambda T, d: T.tensor(mask, device=d),
        lambda T, d: (T.tensor(mask, device=d), [0, 4, 4, 1]),
        lambda T, d: (slice(None), T.tensor(mask[0], device=d)),
        lambda T, d: (T.tensor(1, device=d), slice(None), [0, 1]),
        lambda T, d: (slice(None), T.tensor(2, device=d), [0, 1]),
        lambda T, d: ([0, 1], T.tensor(2, device=d), [0, 1]),
        lambda T, d: (T.tensor(0, device=d), [1, 2], T.tensor(1, device=d)),
        lambda T, d: (T.tensor(-1, device=d), 2),
        lambda T, d: T.tensor([[0, 1], [2, 1]], device=d),
        lambda T, d: (T.tensor([], dtype=T.int64, device=d),),
    ]
    for k in keys:
        expected = torch.from_numpy(a)[k(torch, "cpu")].numpy()
        out = _t(a, device)[k(mt, device)]
        assert tuple(out.shape) == expected.shape
        np.testing.assert_array_equal(_np(out), expected)


def test_index_tensor_on_cpu_indexes_device_tensor(device):
    x = _t(np.arange(6.0), device)
    out = x[mt.tensor([5, 0])]
    np.testing.assert_array_equal(_np(out), [5.0, 0.0])


def test_numpy_array_and_scalars_as_keys(device):
    a = np.arange(12.0).reshape(3, 4)
    x = _t(a, device)
    np.testing.assert_array_equal(_np(x[np.array([2, 0])]), a[[2, 0]])
    np.testing.assert_array_equal(_np(x[np.int64(1)]), a[1])
    np.testing.assert_array_equal(_np(x[np.array([True, False, True])]), a[[0, 2]])


def test_float_list_is_truncated_like_torch(device):
    x = _t(np.arange(4.0), device)
    np.testing.assert_array_equal(_np(x[[1.0, 2.7]]), [1.0, 2.0])


def test_list_with_slices_is_a_tuple_with_a_warning(device):
    x = _t(np.arange(12.0).reshape(3, 4), device)
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        out = x[[0, slice(1, 3)]]
    np.testing.assert_array_equal(_np(out), [1.0, 2.0])


def test_uint8_mask_warns_and_masks(device):
    x = _t(np.arange(3.0), device)
    with pytest.warns(UserWarning, match="uint8"):
        out = x[mt.tensor([1, 0, 1], dtype=mt.uint8, device=device)]
    np.testing.assert_array_equal(_np(out), [0.0, 2.0])


def test_int_tensor_dtypes_keep_value_dtype(device):
    x = _t(np.arange(6).reshape(2, 3), device)
    assert x[[1, 0]].dtype is mt.int64
    b = mt.tensor([[True, False], [False, True]], device=device)
    assert b[0].dtype is mt.bool
    assert b[b].dtype is mt.bool


# --- views and copies ---


@pytest.mark.parametrize(
    "key,name",
    [
        (0, "SelectBackward0"),
        ((0, 1), "SelectBackward0"),
        (slice(1, 3), "SliceBackward0"),
        (slice(None), "SliceBackward0"),
        ((slice(1, 2), 0), "SelectBackward0"),
        ((0, slice(1, 2)), "SliceBackward0"),
        (None, "UnsqueezeBackward0"),
        ((0, None), "UnsqueezeBackward0"),
        (Ellipsis, "AliasBackward0"),
        ((), "AliasBackward0"),
    ],
    ids=repr,
)
def test_basic_indexing_is_a_view(device, key, name):
    base = _t(np.zeros((3, 4)), device, requires_grad=True)
    x = base * 1
    v = x[key]
    assert v._base is x
    assert type(v.grad_fn).__name__ == name
    v2 = x.detach()[key]
    v2.fill_(1.0) if v2.numel() else None
    assert x._version == (1 if v2.numel() else 0)  # shares memory and the version counter
    if v2.numel():
        assert float(x.detach().sum()) == v2.numel()


@pytest.mark.parametrize("key", [[0, 1], True, (0, [1]), [True, False, True]], ids=repr)
def test_advanced_indexing_copies(device, key):
    x = _t(np.zeros((3, 4)), device, requires_grad=True) * 1
    y = x[key]
    assert y._base is None
    assert type(y.grad_fn).__name__ == "IndexBackward0"
    with mt.no_grad():
        y.fill_(1.0)
    assert float(x.detach().sum()) == 0.0


def test_grad_fn_names_match_torch():
    torch = pytest.importorskip("torch")
    keys = [
        0,
        (0, 1),
        slice(1, 3),
        None,
        Ellipsis,
        (0, None, slice(None)),
        (slice(1, 2), 0),
        [0, 1],
        True,
        (0, [0, 1]),
    ]
    for key in keys:
        tx = torch.zeros(3, 4, requires_grad=True) * 1
        mx = mt.zeros(3, 4, requires_grad=True) * 1
        assert type(mx[key].grad_fn).__name__ == tx[key].grad_fn.name(), key


def test_0d_int_tensor_is_a_select_view_on_cpu():
    x = mt.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    v = x[mt.tensor(1)]
    assert v._base is x
    np.testing.assert_array_equal(_np(v), [3.0, 4.0, 5.0])


def test_index_tensors_do_not_sync_off_cpu():
    x = mt.arange(24.0, device="strict").reshape(2, 3, 4)
    i = mt.tensor([2, 0, 1], device="strict")
    j = mt.tensor(1, device="strict")
    with count_transfers() as c:
        y = x[:, i]
        z = x[j, :, i[:2]]
        x.requires_grad_(True)
        (x[0, i] * 2).sum().backward()
    assert c.count == 0
    assert y.shape == (2, 3, 4)
    assert z.shape == (3, 2)  # torch's layout: the 0-d index selects first (NumPy's: (2, 3))
    np.testing.assert_array_equal(_np(z), np.arange(24.0).reshape(2, 3, 4)[1][:, [2, 0]])


# --- errors ---


def _raises_like_torch(fn, exc, match):
    torch = pytest.importorskip("torch")
    with pytest.raises(exc) as e_torch:
        fn(torch)
    with pytest.raises(exc, match=match) as e_mt:
        fn(mt)
    assert str(e_mt.value) == str(e_torch.value)


@pytest.mark.parametrize(
    "key,exc,match",
    [
        (5, IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
        (-4, IndexError, "index -4 is out of bounds"),
        ((0, 9), IndexError, "index 9 is out of bounds for dimension 1 with size 4"),
        ((slice(None), slice(None), -9), IndexError, "dimension 2 with size 5"),
        ([0, 9, 8], IndexError, "index 9 is out of bounds for dimension 0 with size 3"),
        ((slice(None), [0, 7]), IndexError, "index 7 is out of bounds for dimension 0 with size 4"),
        (([0, 1], slice(None), [0, 7]), IndexError, "dimension 1 with size 5"),
        ((1, 2, 3, 4), IndexError, "too many indices for tensor of dimension 3"),
        (slice(None, None, -1), ValueError, "step must be greater than zero"),
        (slice(None, None, 0), ValueError, "slice step cannot be zero"),
        (1.0, IndexError, "only integers, slices"),
        (
            ([0, 1], [0, 1, 2]),
            IndexError,
            "shape mismatch: indexing tensors could not be broadcast",
        ),
        ((slice(None), [[True, False, True, True, False]]), IndexError, "The shape of the mask"),
        ([True, False], IndexError, r"mask \[2\] at index 0 does not match"),
    ],
    ids=repr,
)
def test_getitem_errors_match_torch(key, exc, match):
    a = np.zeros((3, 4, 5))

    def fn(T):
        T.from_numpy(a)[key]

    _raises_like_torch(fn, exc, match)


def test_getitem_tensor_key_errors_match_torch():
    def float_index(T):
        T.zeros(3)[T.tensor([1.0])]

    def int16_index(T):
        T.zeros(3)[T.tensor([1], dtype=T.int16)]

    def oob_tensor(T):
        T.zeros(3)[T.tensor([-4])]

    def zero_dim(T):
        T.tensor(2.0)[0]

    def zero_dim_list(T):
        T.tensor(2.0)[[0]]

    _raises_like_torch(float_index, IndexError, "tensors used as indices must be long")
    _raises_like_torch(int16_index, IndexError, "tensors used as indices must be long")
    _raises_like_torch(oob_tensor, IndexError, "index -4 is out of bounds")
    _raises_like_torch(zero_dim, IndexError, "invalid index of a 0-dim tensor")
    _raises_like_torch(zero_dim_list, IndexError, "too many indices for tensor of dimension 0")


def test_0d_tensor_keys(device):
    s = _t(2.0, device)
    assert s[None].shape == (1,)
    assert s[...].shape == ()
    assert s[()].shape == ()
    assert s[True].shape == (1,)
    assert s[False].shape == (0,)
    assert s[None, None].shape == (1, 1)


# --- gradients ---

GRAD_KEYS = [
    0,
    (1, -1),
    slice(0, 3, 2),
    (None, Ellipsis, 1),
    [0, 2, 0, 0],
    (slice(None), [1, 1, 3]),
    ([0, 2, 2], [3, 3, 1]),
    ([[0, 0], [1, 2]], slice(1, 3)),
    (0, [1, 1]),
    [True, False, True],
    True,
    ([0, 1], None, [1, 1]),
    (Ellipsis, [2, 2]),
]


@pytest.mark.parametrize("key", GRAD_KEYS, ids=repr)
def test_getitem_gradients(device, key):
    a = np.random.default_rng(1).standard_normal((3, 4))
    check_grads(lambda x: x[key], [a], device)


def test_duplicate_indices_accumulate(device):
    x = _t(np.zeros(3), device, requires_grad=True)
    x[mt.tensor([0, 0, 0, 2], device=device)].sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [3.0, 0.0, 1.0])


def test_mask_gradient(device):
    a = np.array([[1.0, -2.0], [-3.0, 4.0]])
    x = _t(a, device, requires_grad=True)
    (x[x > 0] * 2).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [[2.0, 0.0], [0.0, 2.0]])


def test_0d_device_index_gradient(device):
    a = np.random.default_rng(2).standard_normal((3, 4, 2))

    def fn(x):
        i = mt.tensor(1, device=x.device)
        return x[i, :, [0, 1, 1]]

    check_grads(fn, [a], device)


# --- setitem ---

SET_KEYS = [
    (0, (4,)),
    ((1, 2), ()),
    (slice(0, 2), (1, 4)),
    ((slice(None), 1), (3,)),
    ([2, 0], (2, 4)),
    (([0, 2], [1, 3]), (2,)),
    ([True, False, True], (4,)),
    ((0, [1, 3]), ()),
    (Ellipsis, (4,)),
    ((slice(None), [0, 3]), (3, 1)),
    ((None, 1), (4,)),
    (True, (3, 4)),
]


@pytest.mark.parametrize("key,vshape", SET_KEYS, ids=repr)
def test_setitem_values_and_gradients(device, key, vshape):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4))
    v = rng.standard_normal(vshape)
    x = _t(a, device)
    x[key] = _t(v, device)
    expected = a.copy()
    expected[key] = v
    np.testing.assert_array_equal(_np(x), expected)

    def fn(x, v):
        y = x * 1
        y[key] = v
        return y

    check_grads(fn, [a, v], device)


def test_setitem_matches_torch_on_torch_only_keys(device):
    torch = pytest.importorskip("torch")
    for key in TORCH_KEYS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tx = torch.zeros(3, 4, 5, dtype=torch.float64)
            shape = tx[key].shape
            v = np.arange(float(np.prod(shape))).reshape(shape) + 1
            tx[key] = torch.from_numpy(v)
            mx = mt.zeros(3, 4, 5, dtype=mt.float64, device=device)
            mx[key] = _t(v, device)
        np.testing.assert_array_equal(_np(mx), tx.numpy(), err_msg=repr(key))


def test_setitem_scalar_casts_and_bumps_version(device):
    x = mt.zeros(2, 3, dtype=mt.int64, device=device)
    x[0, 1] = 3.7
    x[1] = -3.7
    x[[0, 1], [2, 2]] = True
    assert x._version == 3
    np.testing.assert_array_equal(_np(x), [[0, 3, 1], [-3, -3, 1]])
    b = mt.zeros(3, dtype=mt.bool, device=device)
    b[0] = 2.5
    assert _np(b).tolist() == [True, False, False]
    f = mt.zeros(3, device=device)
    f[1:] = _t(np.array([1, 2]), device)  # int64 value into float32
    assert f.dtype is mt.float32
    np.testing.assert_array_equal(_np(f), [0.0, 1.0, 2.0])


def test_setitem_on_leaf_under_no_grad(device):
    x = _t(np.zeros((2, 3)), device, requires_grad=True)
    with mt.no_grad():
        x[0] = 1.0
        x[[1], [2]] = _t([5.0], device)
    assert x.is_leaf and x.requires_grad and x.grad_fn is None
    assert x._version == 2
    np.testing.assert_array_equal(_np(x), [[1, 1, 1], [0, 0, 5]])


def test_setitem_on_leaf_requiring_grad_raises():
    torch = pytest.importorskip("torch")
    for key in (0, [0, 1], slice(None), (0, [1])):
        for T in (torch, mt):
            x = T.zeros(3, 3, requires_grad=True)
            with pytest.raises(RuntimeError) as e:
                x[key] = 1.0
            if T is torch:
                torch_msg = str(e.value)
            else:
                assert str(e.value) == torch_msg


def test_setitem_grad_fn_names_match_torch():
    torch = pytest.importorskip("torch")
    for key in (0, [0, 1], (0, [0, 1]), (Ellipsis, [0, 1]), True, None):
        tx = torch.zeros(3, 4, requires_grad=True) * 1
        mx = mt.zeros(3, 4, requires_grad=True) * 1
        tx[key] = 1.0
        mx[key] = 1.0
        name = tx.grad_fn.name().removeprefix("torch::autograd::")
        assert type(mx.grad_fn).__name__ == name, key


def test_setitem_non_leaf_grads_flow_to_both(device):
    x = _t(np.arange(6.0).reshape(2, 3), device, requires_grad=True)
    v = _t(np.array([10.0, 20.0]), device, requires_grad=True)
    y = x * 2
    y[:, 1] = v
    w = _t(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), device)
    (y * w).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [[2, 0, 6], [8, 0, 12]])
    np.testing.assert_array_equal(_np(v.grad), [2.0, 5.0])


def test_setitem_value_requires_grad_into_plain_tensor(device):
    x = mt.zeros(3, dtype=mt.float64, device=device)
    v = _t(np.array([2.0]), device, requires_grad=True)
    x[[0, 2]] = v
    assert x.requires_grad and not x.is_leaf
    (x * _t([1.0, 2.0, 3.0], device)).sum().backward()
    np.testing.assert_array_equal(_np(v.grad), [4.0])


def test_setitem_through_chained_views(device):
    x = _t(np.zeros((2, 3)), device, requires_grad=True)
    v = _t(np.array(5.0), device, requires_grad=True)
    y = x * 1
    y[0][1] = v
    np.testing.assert_array_equal(_np(y), [[0, 5, 0], [0, 0, 0]])
    g = _t(np.arange(6.0).reshape(2, 3), device)
    (y * g).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [[0, 0, 2], [3, 4, 5]])
    assert float(v.grad) == 1.0


def test_augmented_assignment_on_a_column(device):
    x = _t(np.arange(6.0).reshape(2, 3), device, requires_grad=True)
    y = x * 3
    y[:, 0] += 1  # add_ on the view, then setitem writes it back: two bumps, as in torch
    assert y._version == 2
    expected = np.arange(6.0).reshape(2, 3) * 3
    expected[:, 0] += 1
    np.testing.assert_array_equal(_np(y), expected)
    g = _t(np.arange(6.0).reshape(2, 3) + 1, device)
    (y * g).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), 3 * _np(g))


def test_augmented_assignment_saving_a_sibling_view_raises_like_torch(device):
    x = _t(np.arange(6.0).reshape(2, 3), device, requires_grad=True)
    y = x * 3
    y[:, 0] *= y[:, 1]  # mul_ saved y[:, 1]; the write-back bumps the shared version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_setitem_advanced_through_a_view(device):
    x = _t(np.zeros((2, 4)), device, requires_grad=True)
    v = _t(np.array([1.0, 2.0]), device, requires_grad=True)
    y = x + 0
    y[1][[0, 3]] = v
    (y * _t(np.arange(8.0).reshape(2, 4), device)).sum().backward()
    np.testing.assert_array_equal(_np(y), [[0, 0, 0, 0], [1, 0, 0, 2]])
    np.testing.assert_array_equal(_np(x.grad), [[0, 1, 2, 3], [0, 5, 6, 0]])
    np.testing.assert_array_equal(_np(v.grad), [4.0, 7.0])


def test_setitem_invalidates_saved_tensors(device):
    x = _t(np.ones(3), device, requires_grad=True)
    y = x * 1
    z = y * y
    y[0] = 2.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_setitem_duplicates_last_write_wins_on_cpu():
    x = mt.zeros(3)
    x[[0, 0, 0]] = mt.tensor([1.0, 2.0, 3.0])
    assert x.tolist() == [3.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "key,value",
    [
        (0, (3,)),
        (0, (2, 1, 4, 5)),
        ([0, 1], (3,)),
        ([0, 1], (3, 4, 5)),
        (np.zeros((3, 4, 5), bool), (2,)),
    ],
    ids=["expand", "expand_rank", "adv", "adv_rank", "mask"],
)
def test_setitem_shape_errors_match_torch(key, value):
    def fn(T):
        x = T.zeros(3, 4, 5)
        k = T.from_numpy(key) if isinstance(key, np.ndarray) else key
        x[k] = T.ones(*value)

    _raises_like_torch(fn, RuntimeError, None)


@pytest.mark.parametrize("value", [[1.0, 2.0], "a", None], ids=repr)
def test_setitem_type_errors_match_torch(value):
    def fn(T):
        T.zeros(3, 2)[0] = value

    _raises_like_torch(fn, TypeError, "can't assign a")


def test_setitem_broadcast_and_leading_ones(device):
    x = mt.zeros(3, 4, device=device)
    x[0] = _t(np.ones((1, 1, 4)), device)
    x[[1, 2]] = _t(np.full((1, 4), 2.0, dtype=np.float32), device)
    np.testing.assert_array_equal(_np(x), [[1] * 4, [2] * 4, [2] * 4])


def test_setitem_0d_cpu_value_into_device_tensor(device):
    x = mt.zeros(3, device=device)
    x[1] = mt.tensor(4.0)
    np.testing.assert_array_equal(_np(x), [0.0, 4.0, 0.0])


# --- index_put ---


def test_index_put_accumulate_and_grads(device):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 4))
    v = rng.standard_normal((4, 4))

    def fn(x, v):
        i = mt.tensor([0, 2, 0, 0], device=x.device)
        return mt.index_put(x, (i,), v, accumulate=True)

    expected = a.copy()
    np.add.at(expected, [0, 2, 0, 0], v)
    np.testing.assert_allclose(_np(fn(_t(a, device), _t(v, device))), expected)
    check_grads(fn, [a, v], device)


def test_index_put_in_place(device):
    x = mt.zeros(2, 3, device=device)
    i = mt.tensor([1, 1], device=device)
    j = mt.tensor([0, 0], device=device)
    out = x.index_put_((i, j), mt.tensor([1.0, 2.0], device=device), accumulate=True)
    assert out is x and x._version == 1
    np.testing.assert_array_equal(_np(x), [[0, 0, 0], [3, 0, 0]])


def test_index_put_dtype_mismatch_matches_torch():
    def fn(T):
        T.zeros(3).index_put_((T.tensor([0]),), T.tensor([1], dtype=T.float64))

    _raises_like_torch(fn, RuntimeError, "Index put requires the source and destination dtypes")


@pytest.mark.parametrize(
    "key,match",
    [
        (([0, 5],), "index 5 is out of bounds for dimension 0 with size 4"),
        (([-5, 0],), "index -5 is out of bounds for dimension 0 with size 4"),
        (([0, 1], [2, 3]), "index 3 is out of bounds for dimension 1 with size 3"),
        (([[0], [4]], [[1], [1]]), "index 4 is out of bounds for dimension 0 with size 4"),
    ],
    ids=repr,
)
def test_index_tensor_reads_out_of_range(key, match):
    # x[t] and x[t0, t1] with index tensors leave the bounds to the gather (explain_bounds): the
    # error is still torch's, for reads and for backward's scatter of a good read
    x = mt.arange(12.0).reshape(4, 3).requires_grad_()
    idx = tuple(mt.tensor(k) for k in key)
    with pytest.raises(IndexError, match=match):
        x[idx if len(idx) > 1 else idx[0]]
    good = tuple(mt.tensor(k).clamp(-3, 2) for k in key)
    x[good if len(good) > 1 else good[0]].sum().backward()
    assert x.grad is not None and float(x.grad.sum()) == np.prod(good[0].shape) * (
        1 if len(key) > 1 else 3
    )


def test_advanced_index_assignment_needs_matching_dtypes():
    # torch's index_put_ casts nothing; a basic index (copy_) and x[mask] = 0-d tensor
    # (masked_fill_) do cast
    x = mt.zeros(3, 4)
    with pytest.raises(RuntimeError, match="got Float for the destination and Double"):
        x[[0, 1]] = mt.ones(4, dtype=mt.float64)
    with pytest.raises(RuntimeError, match="got Float for the destination and Long"):
        x[x == 0] = mt.arange(12)
    with pytest.raises(RuntimeError, match="Index put requires"):
        x[:, [0, 1]] = mt.tensor(2)
    assert x.sum().item() == 0
    x[0] = mt.ones(4, dtype=mt.float64)
    x[x == 0] = mt.tensor(2, dtype=mt.float64)
    x[[2]] = 3.0  # a number is cast
    assert x.tolist() == [[1.0] * 4, [2.0] * 4, [3.0] * 4]


def test_range_indices_act_as_lists():
    # d2l's y_hat[range(len(y_hat)), y] and the nll of "What is torch.nn really?"
    y_hat = mt.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
    y = mt.tensor([0, 2])
    assert y_hat[range(len(y_hat)), y].tolist() == pytest.approx([0.1, 0.5])
    assert y_hat[:, range(1, 3)].shape == (2, 2) and y_hat[range(0)].shape == (0, 3)
    y_hat[range(2), y] = 0.0
    assert y_hat.tolist()[0][0] == 0.0 and y_hat.tolist()[1][2] == 0.0


def test_numpy_uint8_index_is_a_mask_as_a_uint8_tensor():
    x = mt.arange(10, 15)
    m = np.array([1, 0, 1, 0, 1], dtype=np.uint8)
    with pytest.warns(UserWarning, match="uint8 is now deprecated"):
        assert x[m].tolist() == [10, 12, 14]  # was x[[1, 0, 1, 0, 1]]
    assert x[np.array([1, 0], dtype=np.int64)].tolist() == [11, 10]  # other ints: indices
    assert x[[1, 0, 1]].tolist() == [11, 10, 11]
