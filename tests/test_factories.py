"""Tests of the tensor factories: tensor/as_tensor/from_numpy, filled tensors, ranges, eye, and
the legacy constructors, on every device of the `device` fixture."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend import backend_of


def _on(t, device):
    """t is on `device` and its array is that device's own kind (no host array in disguise)."""
    dev = mt.device(device)
    assert t.device == dev
    assert backend_of(t.device).is_array(t._data), type(t._data)


def _values(t):
    return t.cpu().numpy()


@pytest.fixture
def float64_default():
    mt.set_default_dtype(mt.float64)
    yield
    mt.set_default_dtype(mt.float32)


# --- tensor(): dtype inference ---


@pytest.mark.parametrize(
    "data, dtype",
    [
        ([[1, 2], [3, 4]], mt.int64),
        ([1.5, 2], mt.float32),
        ([True, False], mt.bool),
        ([True, 1], mt.int64),
        ([True, 1.0], mt.float32),
        (3, mt.int64),
        (3.5, mt.float32),
        (True, mt.bool),
        ([], mt.float32),
        ([[], []], mt.float32),
        ((1, 2), mt.int64),
        (range(3), mt.int64),
        (np.float64(2.5), mt.float64),
        (np.float32(2.5), mt.float32),
        (np.int16(2), mt.int16),
        ([np.float64(2.5), 1], mt.float64),
        ([np.int32(1), np.int8(1)], mt.int32),
        ([True, np.int32(1)], mt.int32),
        (np.array([1.0, 2.0]), mt.float64),
        (np.array([1, 2], dtype=np.int32), mt.int32),
        (np.array(True), mt.bool),
    ],
)
def test_tensor_infers_dtype_like_torch(data, dtype, device):
    t = mt.tensor(data, device=device)
    assert t.dtype is dtype
    _on(t, device)


def test_tensor_values_and_shape(device):
    t = mt.tensor([[1, 2, 3], [4, 5, 6]], device=device)
    assert t.shape == (2, 3)
    np.testing.assert_array_equal(_values(t), [[1, 2, 3], [4, 5, 6]])
    assert mt.tensor([[], []], device=device).shape == (2, 0)
    assert mt.tensor(2.5, device=device).shape == ()


def test_tensor_of_tensors(device):
    a, b = mt.tensor(1.0, device=device), mt.tensor(2, dtype=mt.float64, device=device)
    t = mt.tensor([a, b])
    assert t.dtype is mt.float64 and t.tolist() == [1.0, 2.0]
    assert mt.tensor([mt.tensor(1), mt.tensor(2)]).dtype is mt.int64
    assert mt.tensor([mt.tensor(1, dtype=mt.uint8), mt.tensor(1, dtype=mt.int8)]).dtype is mt.int16
    assert mt.tensor([mt.tensor([1.0]), mt.tensor([2.0])]).shape == (2,)  # 1-element: a scalar
    with pytest.raises(ValueError, match="only one element tensors"):
        mt.tensor([mt.tensor([1.0, 2.0])])
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        mt.tensor([mt.tensor([1, 2]), mt.tensor([3, 4])])


def test_tensor_from_tensor_warns_copies_and_keeps_device(device):
    src = mt.ones(2, device=device, requires_grad=True)
    with pytest.warns(UserWarning, match=r"sourceTensor.detach\(\).clone\(\)"):
        t = mt.tensor(src)
    assert t.device == src.device and not t.requires_grad and t.is_leaf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = mt.tensor(src, dtype=mt.float64, requires_grad=True)
    assert d.dtype is mt.float64 and d.requires_grad
    src.data.fill_(5.0)
    assert t.tolist() == [1.0, 1.0]


def test_tensor_numpy_float64_stays_float64_and_copies():
    a = np.arange(3.0)
    t = mt.tensor(a)
    assert t.dtype is mt.float64
    a[0] = 7.0
    assert t[0].item() == 0.0


def test_tensor_with_dtype_converts_like_torch():
    assert mt.tensor([1.7, -1.7], dtype=mt.int64).tolist() == [1, -1]
    assert mt.tensor(-1, dtype=mt.uint8).item() == 255  # wraps, as torch does down to -255
    assert mt.tensor([2.5, 0.0], dtype=mt.bool).tolist() == [True, False]
    assert mt.tensor(1e300, dtype=mt.float16).item() == float("inf")
    assert mt.tensor([1, 2], dtype=float).dtype is mt.float64
    assert mt.tensor([1, 2], dtype=int).dtype is mt.int64


@pytest.mark.parametrize(
    "data, dtype, exc, msg",
    [
        (300, mt.uint8, RuntimeError, "value cannot be converted to type uint8 without overflow"),
        (-256, mt.uint8, RuntimeError, "value cannot be converted to type uint8 without overflow"),
        ([-129], mt.int8, RuntimeError, "value cannot be converted to type int8 without overflow"),
        (float("nan"), mt.int64, RuntimeError, "value cannot be converted to type int64"),
        (2**63, None, ValueError, "Overflow when unpacking long long"),
        ([1, 2**64], None, ValueError, "Overflow when unpacking long long"),
    ],
)
def test_tensor_value_range_errors(data, dtype, exc, msg):
    with pytest.raises(exc, match=msg):
        mt.tensor(data, dtype=dtype)


@pytest.mark.parametrize(
    "data, exc, msg",
    [
        ([[1, 2], [3]], ValueError, r"expected sequence of length 2 at dim 1 \(got 1\)"),
        ([[[1, 2], [3, 4]], [[1, 2], [3]]], ValueError, r"length 2 at dim 2 \(got 1\)"),
        ([[1], []], ValueError, r"expected sequence of length 1 at dim 1 \(got 0\)"),
        ([[1, 2], 3], TypeError, "not a sequence"),
        ([1, [2, 3]], TypeError, "'list' object cannot be interpreted as an integer"),
        ([1.0, [2, 3]], TypeError, "must be real number, not list"),
        (None, RuntimeError, "Could not infer dtype of NoneType"),
        ([1, None], RuntimeError, "Could not infer dtype of NoneType"),
        ({1: 2}, RuntimeError, "Could not infer dtype of dict"),
        ("abc", TypeError, "new\\(\\): invalid data type 'str'"),
        (np.array([1, 2], dtype=object), TypeError, "can't convert np.ndarray of type"),
        (np.arange(4)[::-1], ValueError, "negative"),
    ],
)
def test_tensor_errors_match_torch(data, exc, msg):
    with pytest.raises(exc, match=msg):
        mt.tensor(data)


def test_list_of_arrays_warns_like_torch():
    mt._settings._warned_once.discard("list_of_ndarrays")  # torch warns once per process
    with pytest.warns(UserWarning, match="list of numpy.ndarrays is extremely slow"):
        t = mt.tensor([np.array([1, 2]), np.array([3, 4])])
    assert t.tolist() == [[1, 2], [3, 4]]


def test_requires_grad_keyword(device):
    t = mt.tensor([1.0, 2.0], requires_grad=True, device=device)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    msg = "Only Tensors of floating point and complex dtype can require gradients"
    for make in (
        lambda: mt.tensor([1, 2], requires_grad=True, device=device),
        lambda: mt.zeros(2, dtype=mt.int64, requires_grad=True, device=device),
        lambda: mt.arange(3, requires_grad=True, device=device),
        lambda: mt.full((2,), 1, requires_grad=True, device=device),
    ):
        with pytest.raises(RuntimeError, match=msg):
            make()


# --- as_tensor / asarray / from_numpy ---


def test_as_tensor_shares_memory_with_a_same_dtype_cpu_array():
    a = np.zeros(3, dtype=np.float32)
    t = mt.as_tensor(a)
    a[1] = 5.0
    assert t[1].item() == 5.0
    assert t.data_ptr() == a.__array_interface__["data"][0]
    converted = mt.as_tensor(a, dtype=mt.float64)  # a conversion is a copy
    a[2] = 1.0
    assert converted[2].item() == 0.0


def test_as_tensor_of_a_tensor(device):
    t = mt.ones(2, device=device)
    assert mt.as_tensor(t) is t
    assert mt.as_tensor(t, dtype=mt.float32) is t
    assert mt.as_tensor(t, dtype=mt.float64).dtype is mt.float64
    assert mt.as_tensor(t, device="cpu").device == mt.device("cpu")


def test_as_tensor_to_a_device_copies(device):
    a = np.arange(3.0)
    t = mt.as_tensor(a, device=device)
    _on(t, device)
    assert t.dtype is mt.float64
    assert mt.as_tensor([1, 2], device=device).dtype is mt.int64


def test_asarray():
    a = np.arange(3.0)
    assert mt.asarray(a).data_ptr() == a.__array_interface__["data"][0]
    c = mt.asarray(a, copy=True)
    a[0] = 9.0
    assert c[0].item() == 0.0
    t = mt.ones(2)
    assert mt.asarray(t) is t
    # as torch: the tensor itself, now requiring grad; a copy requires grad on its own
    c = mt.asarray(t, requires_grad=True, copy=True)
    assert c is not t and c.requires_grad and not t.requires_grad
    assert mt.asarray(t, requires_grad=True) is t and t.requires_grad


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = mt.from_numpy(a)
    assert t.dtype is mt.int32 and t.shape == (2, 3) and t.device == mt.device("cpu")
    a[0, 0] = 100
    assert t[0, 0].item() == 100
    t[1, 2] = -1
    assert a[1, 2] == -1
    assert t.numpy() is a or np.shares_memory(t.numpy(), a)


def test_from_numpy_errors():
    with pytest.raises(
        ValueError, match="At least one stride in the given numpy array is negative"
    ):
        mt.from_numpy(np.arange(3)[::-1])
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.complex128"):
        mt.from_numpy(np.zeros(2, dtype=np.complex128))
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.str_"):
        mt.from_numpy(np.zeros(2, dtype="U1"))
    with pytest.raises(TypeError, match=r"expected np.ndarray \(got list\)"):
        mt.from_numpy([1, 2])
    ro = np.zeros(2)
    ro.flags.writeable = False
    mt._settings._warned_once.discard("numpy_not_writable")  # torch warns once per process
    with pytest.warns(UserWarning, match="not writable"):
        mt.from_numpy(ro)


# --- filled tensors ---


@pytest.mark.parametrize("size", [(2, 3), ((2, 3),), ([2, 3],), (mt.Size([2, 3]),)])
def test_size_forms(size, device):
    for f in (mt.zeros, mt.ones, mt.empty, mt.rand, mt.randn):
        t = f(*size, device=device)
        assert t.shape == (2, 3), f
        _on(t, device)
    assert mt.zeros(size=(2, 3), device=device).shape == (2, 3)


def test_zero_dim_and_empty_sizes(device):
    assert mt.zeros((), device=device).shape == ()
    assert mt.zeros([], device=device).shape == ()
    assert mt.ones(0, device=device).shape == (0,)
    assert mt.zeros(np.int64(2), mt.tensor(3), device=device).shape == (2, 3)


def test_filled_values_and_dtypes(device):
    assert _values(mt.zeros(2, 2, device=device)).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert mt.ones(2, dtype=mt.int32, device=device).tolist() == [1, 1]
    assert mt.ones(2, dtype=mt.int32, device=device).dtype is mt.int32
    assert mt.empty(2, 3, dtype=mt.int64, device=device).shape == (2, 3)
    assert mt.zeros(2, device=device).dtype is mt.float32
    assert mt.ones(2, dtype=bool, device=device).dtype is mt.bool


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (lambda: mt.zeros(-1), RuntimeError, "zeros: Dimension size must be non-negative."),
        (
            lambda: mt.ones(2, -1),
            RuntimeError,
            r"Trying to create tensor with negative dimension -1: \[2, -1\]",
        ),
        (
            lambda: mt.zeros(2.5),
            TypeError,
            r"zeros\(\): argument 'size' \(position 1\) must be tuple of ints, not float",
        ),
        (
            lambda: mt.zeros(2, 2.5),
            TypeError,
            'failed to unpack the object at pos 2 with error "type must be tuple of ints,but got '
            'float"',
        ),
        (lambda: mt.zeros("a"), TypeError, "must be tuple of ints, not str"),
        (lambda: mt.zeros([True]), TypeError, "found element of type bool at pos 0"),
        (lambda: mt.zeros((2,), (3,)), TypeError, "takes 1 positional argument but 2 were given"),
        (lambda: mt.zeros(2, size=(2,)), TypeError, "got multiple values for argument 'size'"),
        (
            lambda: mt.ones(2, dtype="float32"),
            TypeError,
            r"ones\(\): argument 'dtype' must be torch.dtype, not str",
        ),
    ],
)
def test_size_and_dtype_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_full_infers_dtype_from_the_fill_value(device):
    assert mt.full((2,), 3, device=device).dtype is mt.int64
    assert mt.full((2,), 3.0, device=device).dtype is mt.float32
    assert mt.full((2,), True, device=device).dtype is mt.bool
    assert mt.full((2,), np.float64(1.5), device=device).dtype is mt.float32
    assert mt.full((2,), np.int32(1), device=device).dtype is mt.int64
    t = mt.full([2, 2], 1.5, dtype=mt.int32, device=device)
    assert t.dtype is mt.int32 and t.tolist() == [[1, 1], [1, 1]]
    assert mt.full((), 3.0, device=device).shape == ()


def test_full_with_a_tensor_value_stays_on_device(device):
    v = mt.tensor(2.5, dtype=mt.float64, device=device)
    t = mt.full((3,), v, device=device)
    assert t.dtype is mt.float32  # the default float: the value's kind, not its dtype
    _on(t, device)
    assert t.tolist() == [2.5, 2.5, 2.5]


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (
            lambda: mt.full(2, 1.0),
            TypeError,
            r"full\(\): argument 'size' \(position 1\) must be tuple of ints, not int",
        ),
        (
            lambda: mt.full((2,), None),
            TypeError,
            r"argument 'fill_value' \(position 2\) must be Number, not NoneType",
        ),
        (lambda: mt.full((2,), mt.ones(2)), TypeError, "must be Number, not Tensor"),
        (
            lambda: mt.full((2,), 300, dtype=mt.uint8),
            RuntimeError,
            "value cannot be converted to type uint8_t without overflow",
        ),
        (
            lambda: mt.full((2,), float("nan"), dtype=mt.int64),
            RuntimeError,
            "value cannot be converted to type int64_t without overflow",
        ),
    ],
)
def test_full_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_like_factories(device):
    x = mt.ones(2, 3, dtype=mt.int32, device=device)
    for f in (mt.zeros_like, mt.ones_like, mt.empty_like):
        t = f(x)
        assert t.shape == (2, 3) and t.dtype is mt.int32
        _on(t, device)
    assert mt.ones_like(x, dtype=mt.float64).dtype is mt.float64
    assert mt.full_like(x, 7).tolist() == [[7] * 3] * 2
    assert mt.full_like(mt.ones(2, device=device), 2.7).dtype is mt.float32
    assert mt.full_like(x, 2.7).tolist() == [[2] * 3] * 2
    g = mt.ones(2, requires_grad=True, device=device)
    assert not mt.ones_like(g).requires_grad
    assert mt.zeros_like(g, requires_grad=True).requires_grad
    assert mt.zeros_like(x, device="cpu").device == mt.device("cpu")
    with pytest.raises(
        TypeError,
        match=r"zeros_like\(\): argument 'input' \(position 1\) must be "
        r"Tensor, not list",
    ):
        mt.zeros_like([1, 2])


def test_eye(device):
    t = mt.eye(3, device=device)
    _on(t, device)
    np.testing.assert_array_equal(_values(t), np.eye(3, dtype=np.float32))
    assert mt.eye(2, 3, device=device).shape == (2, 3)
    assert mt.eye(2, m=3, dtype=mt.int64, device=device).dtype is mt.int64
    assert mt.eye(0, device=device).shape == (0, 0)
    assert mt.eye(mt.tensor(2)).shape == (2, 2)
    with pytest.raises(RuntimeError, match="n must be greater or equal to 0, got -1"):
        mt.eye(-1)
    with pytest.raises(RuntimeError, match="m must be greater or equal to 0, got -1"):
        mt.eye(2, -1)
    with pytest.raises(TypeError, match=r"eye\(\): argument 'n' \(position 1\) must be int"):
        mt.eye(2.5)


def test_default_dtype_affects_factories(float64_default, device):
    assert mt.zeros(2, device=device).dtype is mt.float64
    assert mt.tensor([1.5], device=device).dtype is mt.float64
    assert mt.tensor([1, 2], device=device).dtype is mt.int64
    assert mt.arange(0.0, 1.0, 0.5, device=device).dtype is mt.float64
    assert mt.full((1,), 2.0, device=device).dtype is mt.float64
    assert mt.rand(2, device=device).dtype is mt.float64
    assert mt.linspace(0, 1, 3, device=device).dtype is mt.float64
    assert mt.Tensor(2).dtype is mt.float64
    # int / int is true division into the default float dtype
    assert (mt.tensor([1, 2], device=device) / 2).dtype is mt.float64
    assert (mt.tensor([1, 2], device=device) * 1.5).dtype is mt.float64


# --- ranges ---


def test_arange_dtype_rules(device):
    assert mt.arange(5, device=device).dtype is mt.int64
    assert mt.arange(1, 5, 2, device=device).tolist() == [1, 3]
    assert mt.arange(0.0, 3, device=device).dtype is mt.float32
    assert mt.arange(0, 1, 0.25, device=device).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert mt.arange(5, dtype=mt.float64, device=device).dtype is mt.float64
    assert mt.arange(10, 0, -3, device=device).tolist() == [10, 7, 4, 1]
    assert mt.arange(mt.tensor(3), device=device).tolist() == [0, 1, 2]
    assert mt.arange(end=3, device=device).tolist() == [0, 1, 2]
    assert mt.arange(True).tolist() == [0]
    # a float start/step truncated for an integer dtype
    assert mt.arange(0.5, 10.5, 1.1, dtype=mt.int64).tolist() == list(range(10))
    assert mt.arange(-5, 5, dtype=mt.uint8).tolist()[:2] == [251, 252]
    _on(mt.arange(3, device=device), device)


@pytest.mark.parametrize(
    "args, kwargs, exc, msg",
    [
        ((0, 5, 0), {}, RuntimeError, "step must be nonzero"),
        ((5, 0), {}, RuntimeError, "upper bound and lower bound inconsistent with step sign"),
        ((0, float("inf")), {}, RuntimeError, "unsupported range: 0 -> inf"),
        ((0, 1e20, 1e-5), {}, RuntimeError, "invalid size, possible overflow?"),
        (
            (3,),
            {"dtype": mt.bool},
            NotImplementedError,
            "\"arange_cpu\" not implemented for 'Bool'",
        ),
        ((0, 5, 0.5), {"dtype": mt.int64}, ValueError, "step must be nonzero"),
    ],
)
def test_arange_errors(args, kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        mt.arange(*args, **kwargs)


def test_arange_float_values_are_torch_values():
    # torch's kernel: blocks of 16 from start + c*step plus j*step, the tail from start + i*step
    t = mt.arange(0, 10, 0.1)
    assert t.shape == (100,)
    assert t[7].item() == np.float32(0.7) and t[99].item() == np.float32(9.9)
    assert mt.arange(-1.0, 1.0, 0.3).tolist() == pytest.approx(
        [-1, -0.7, -0.4, -0.1, 0.2, 0.5, 0.8], abs=1e-6
    )


def test_linspace(device):
    t = mt.linspace(0, 1, 5, device=device)
    _on(t, device)
    assert t.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert mt.linspace(0, 1, 1, device=device).tolist() == [0.0]
    assert mt.linspace(0, 1, 0, device=device).shape == (0,)
    assert mt.linspace(0, 10, 5, dtype=mt.int64, device=device).tolist() == [0, 2, 5, 7, 10]
    assert mt.linspace(mt.tensor(0.0), 1, mt.tensor(3)).tolist() == [0.0, 0.5, 1.0]
    assert mt.linspace(3, 10, steps=5).dtype is mt.float32
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        mt.linspace(0, 1, -1)
    with pytest.raises(TypeError, match=r"linspace\(\) received an invalid combination"):
        mt.linspace(0, 1, 2.5)
    with pytest.raises(RuntimeError, match="only supports 0-dimensional start and end tensors"):
        mt.linspace(mt.tensor([0.0, 1.0]), 1, 3)
    with pytest.raises(NotImplementedError, match="linspace_cpu"):
        mt.linspace(0, 1, 3, dtype=mt.bool)


def test_logspace(device):
    t = mt.logspace(0, 2, 3, device=device)
    _on(t, device)
    assert t.tolist() == [1.0, 10.0, 100.0]
    assert mt.logspace(0, 3, 4, base=2, dtype=mt.int64).tolist() == [1, 2, 4, 8]
    assert mt.logspace(0, 2, 1).tolist() == [1.0]


def test_range_is_deprecated_and_inclusive():
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        t = mt.range(0, 1, 0.25)
    assert t.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0] and t.dtype is mt.float32


def test_scalar_tensor(device):
    t = mt.scalar_tensor(3, device=device)
    assert t.dtype is mt.float32 and t.shape == () and t.item() == 3.0


# --- legacy constructors ---


def test_legacy_tensor_constructor():
    assert mt.Tensor(2, 3).shape == (2, 3) and mt.Tensor(2, 3).dtype is mt.float32
    assert mt.Tensor([1, 2]).tolist() == [1.0, 2.0] and mt.Tensor([1, 2]).dtype is mt.float32
    assert mt.Tensor((1, 2)).tolist() == [1.0, 2.0]  # a tuple is data, a Size is a shape
    assert mt.Tensor(mt.Size([2])).shape == (2,)
    assert mt.Tensor().shape == (0,)
    assert mt.Tensor(np.array([1, 2])).dtype is mt.float32
    src = mt.tensor([1, 2])
    alias = mt.Tensor(src)
    assert alias.dtype is mt.int64 and alias.data_ptr() == src.data_ptr()
    assert type(mt.Tensor(2)) is mt.Tensor
    with pytest.raises(TypeError, match=r"new\(\): data must be a sequence \(got float\)"):
        mt.Tensor(2.5)
    with pytest.raises(TypeError, match="new\\(\\) received an invalid combination of arguments"):
        mt.Tensor([1], dtype=mt.float64)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        mt.Tensor(-1)
    with pytest.raises(RuntimeError, match="legacy constructor expects device type: cpu"):
        mt.Tensor(2, device="strict")


def test_legacy_typed_constructors():
    assert mt.FloatTensor([1, 2]).dtype is mt.float32
    assert mt.LongTensor([1.5]).tolist() == [1]
    assert mt.DoubleTensor(2).shape == (2,)
    assert mt.BoolTensor([1, 0]).tolist() == [True, False]
    assert mt.ByteTensor([-1]).tolist() == [255]
    assert type(mt.IntTensor([1])) is mt.Tensor
    assert isinstance(mt.ones(2), mt.FloatTensor)
    assert not isinstance(mt.ones(2).long(), mt.FloatTensor)
    assert isinstance(mt.ones(2).long(), mt.LongTensor)
    assert not isinstance(mt.ones(2), mt.cuda.FloatTensor)
    assert repr(mt.FloatTensor) == "<class 'torch.FloatTensor'>"
    with pytest.raises(TypeError, match="expected FloatTensor"):
        mt.FloatTensor(mt.ones(2, dtype=mt.float64))


def test_factories_on_the_strict_device_make_device_arrays():
    from minitorch._backend.strict import count_transfers

    with count_transfers() as c:
        made = [
            mt.tensor([[1.0, 2.0]], device="strict"),
            mt.zeros(2, device="strict"),
            mt.full((2,), 3.0, device="strict"),
            mt.arange(0, 1, 0.5, device="strict"),
            mt.linspace(0, 1, 4, device="strict"),
            mt.logspace(0, 1, 4, device="strict"),
            mt.eye(2, device="strict"),
            mt.as_tensor(np.ones(2), device="strict"),
            mt.ones(2, device="strict").new_zeros(3),
        ]
    assert c.count == 0  # nothing read back to the host
    for t in made:
        _on(t, "strict")


def test_asarray_copy_false_refuses_to_copy():
    with pytest.raises(ValueError, match="can't alias arbitrary sequence into a tensor."):
        mt.asarray([1, 2], copy=False)
    with pytest.raises(
        ValueError, match="can't alias tensor with dtype 'Double' into dtype 'Float'."
    ):
        mt.asarray(np.ones(2), dtype=mt.float32, copy=False)
    with pytest.raises(ValueError, match="can't alias tensor from device 'cpu' to 'strict'"):
        mt.asarray(mt.ones(2), device="strict", copy=False)
    a = np.ones(2)
    assert mt.asarray(a, copy=False).data_ptr() == a.__array_interface__["data"][0]
    assert mt.asarray(3.5).dtype is mt.float32
    assert mt.asarray(np.float32(3.5)).dtype is mt.float32


@pytest.mark.parametrize("factory", [mt.tensor, mt.as_tensor])
@pytest.mark.parametrize("src", ["float64", "float32", "float16", "int64"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32"])
def test_zero_dim_array_with_a_dtype_stays_zero_dim(factory, src, dtype):
    # a 0-d NumPy array converted to another dtype is still 0-d (as in torch), with its value
    out = factory(np.asarray(1.5).astype(src), dtype=getattr(mt, dtype))
    assert out.shape == ()
    assert out.dtype == getattr(mt, dtype)
    assert out.item() == np.asarray(1.5).astype(src).astype(dtype).item()


@pytest.mark.parametrize(
    "name, call, want",
    [
        ("arange", lambda o: mt.arange(3, out=o), [0.0, 1.0, 2.0]),
        ("arange_float", lambda o: mt.arange(0.0, 3.0, 1.0, out=o), [0.0, 1.0, 2.0]),
        ("linspace", lambda o: mt.linspace(0, 1, 3, out=o), [0.0, 0.5, 1.0]),
        ("logspace", lambda o: mt.logspace(0, 2, 3, out=o), [1.0, 10.0, 100.0]),
        ("full", lambda o: mt.full((3,), 2.0, out=o), [2.0, 2.0, 2.0]),
        ("ones", lambda o: mt.ones(3, out=o), [1.0, 1.0, 1.0]),
        ("zeros", lambda o: mt.zeros(3, out=o), [0.0, 0.0, 0.0]),
        ("empty", lambda o: mt.empty(3, out=o), [0.0, 0.0, 0.0]),
    ],
)
def test_factories_write_into_out(name, call, want):
    out = mt.full((3,), 9.0)
    result = call(out)
    assert result is out and out.dtype is mt.float32  # out's dtype, not arange's int64
    assert out.tolist() == want
    with pytest.raises(RuntimeError, match="does not match dtype of out parameter"):
        mt.zeros(3, out=out, dtype=mt.int64)
    small = mt.zeros(2, dtype=mt.int32)
    assert mt.arange(5, out=small).tolist() == [0, 1, 2, 3, 4] and small.dtype is mt.int32


def test_empty_strided_has_its_strides():
    t = mt.empty_strided((2, 3), (1, 2))
    assert t.stride() == (1, 2) and t.shape == (2, 3) and not t.is_contiguous()
    t[1, 2] = 5.0
    assert t.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 5.0]]
    assert mt.ones(2).new_empty_strided((3, 2), (1, 3)).stride() == (1, 3)
    assert mt.empty_strided((2, 0), (1, 1)).shape == (2, 0)


def test_tensor_of_a_series_like_object_keeps_its_dtype():
    class Series:  # the protocol of a pandas Series: iterates to Python numbers, has an array
        def __init__(self, a):
            self.a, self.dtype = a, a.dtype

        def __array__(self, dtype=None, copy=None):
            return self.a

        def __iter__(self):
            return iter(self.a.tolist())

        def __len__(self):
            return len(self.a)

    assert mt.tensor(Series(np.array([0.1, 0.2]))).dtype is mt.float64  # was float32
    assert mt.tensor(Series(np.array([0.1, 0.2]))).tolist() == [0.1, 0.2]
    assert mt.as_tensor(Series(np.array([1, 2], dtype=np.int32))).dtype is mt.int32

    class Frame(Series):
        columns = dtypes = ()

    with pytest.raises(ValueError, match="could not determine the shape of object type 'Frame'"):
        mt.tensor(Frame(np.zeros(2)))


def test_strings_in_data_raise_as_in_torch():
    with pytest.raises(ValueError, match="too many dimensions 'str'"):
        mt.tensor(["cat", "dog"])  # torch measures the string as a dim
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        mt.tensor([1, "a"])


def test_ints_beyond_int64_convert_to_floating_and_bool_dtypes():
    # a list of factorials: torch converts the ints when the dtype is floating (or bool)
    t = mt.tensor([2**70, 1], dtype=mt.float32)
    np.testing.assert_allclose(t.numpy(), [2.0**70, 1.0])
    assert mt.tensor(2**64, dtype=mt.float64).item() == 2.0**64
    assert mt.Tensor([2**64]).dtype == mt.float32
    assert mt.tensor([[2**63, 0]], dtype=mt.bool).tolist() == [[True, False]]
    with pytest.raises(ValueError, match="Overflow"):
        mt.tensor([2**64])  # inferred int64: no room


def test_legacy_constructors_alias_a_tensor_argument():
    n = mt.tensor(3)  # a 0-d tensor is data, not a size
    assert mt.Tensor(n).tolist() == 3 and mt.LongTensor(n).tolist() == 3
    t = mt.arange(4.0)
    for alias in (mt.FloatTensor(t), t.new(t), mt.Tensor(t)):
        assert alias is not t and alias.data_ptr() == t.data_ptr()
    a = mt.FloatTensor(t)
    a.add_(1)  # the same memory: the write shows in t
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(TypeError, match="expected LongTensor"):
        mt.LongTensor(t)


def test_numpy_bools_are_read_as_floats_as_torch_does():
    t = mt.tensor([3, 4])
    flag = np.bool_(True)
    assert (t * flag).dtype == mt.float32
    assert mt.full((2,), flag).dtype == mt.float32
    assert mt.result_type(t, flag) == mt.float32
    assert mt.result_type(t, np.int32(1)) == mt.int64
    assert mt.result_type(np.float64(1.0), t) == mt.float32
    assert mt.tensor(flag).dtype == mt.bool  # data, not a number operand: still a bool


def test_linspace_logspace_wrong_steps_type():
    with pytest.raises(TypeError) as err:
        mt.linspace(0, 3, 1.0)
    lines = str(err.value).split("\n")
    assert lines[0] == (
        "linspace() received an invalid combination of arguments - got (int, int, float), but "
        "expected one of:"
    )
    assert lines[1] == (
        " * (Tensor start, Tensor end, int steps, *, Tensor out = None, torch.dtype dtype = "
        "None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
        "bool requires_grad = False)"
    )
    assert len(lines) == 6 and lines[5] == ""
    with pytest.raises(TypeError, match=r"logspace\(\) .* got \(int, int, float\), but"):
        mt.logspace(0, 3, 1.0)
    with pytest.raises(TypeError, match=r"got \(Tensor, Tensor, float\)"):
        mt.linspace(mt.tensor(0), mt.tensor(3), 1.0)
    with pytest.raises(TypeError, match=r"got \(str, int, int\)"):
        mt.linspace("a", 3, 2)
