"""Tests of the Tensor object: properties, conversions, dtype/device casts, Python protocols,
reprs, pickling and copying, Size, and the new_* constructors, on every device."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend import tensor_device


def _dev(device):
    return tensor_device(device)


# --- shape, size, dims ---


def test_shape_and_size(device):
    t = mt.zeros(2, 3, device=device)
    assert t.shape == (2, 3) and isinstance(t.shape, mt.Size)
    assert repr(t.shape) == "torch.Size([2, 3])" and str(t.size()) == "torch.Size([2, 3])"
    assert t.size() == t.shape and t.size(1) == 3 and t.size(-1) == 3 and t.size(-2) == 2
    assert t.dim() == 2 and t.ndim == 2 and t.ndimension() == 2
    assert t.numel() == 6 and t.nelement() == 6
    assert t.element_size() == 4 and t.itemsize == 4 and t.nbytes == 24
    assert len(t) == 2


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (
            lambda: mt.ones(2, 3).size(2),
            IndexError,
            r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)",
        ),
        (
            lambda: mt.ones(()).size(0),
            IndexError,
            "Dimension specified as 0 but tensor has no dimensions",
        ),
        (
            lambda: mt.ones(()).stride(-1),
            IndexError,
            "Dimension specified as -1 but tensor has no dimensions",
        ),
        (
            lambda: mt.ones(2).size(1.5),
            TypeError,
            r"size\(\): argument 'dim' \(position 1\) must be int, not float",
        ),
        (lambda: len(mt.ones(())), TypeError, "len\\(\\) of a 0-d tensor"),
        (lambda: iter(mt.ones(())), TypeError, "iteration over a 0-d tensor"),
    ],
)
def test_size_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_strides_and_contiguity(device):
    t = mt.ones(2, 3, device=device)
    assert t.stride() == (3, 1) and t.stride(0) == 3 and t.stride(-1) == 1
    assert t.is_contiguous()
    assert mt.ones((), device=device).stride() == ()
    assert mt.zeros(0, 3, device=device).stride() == (3, 1)
    tt = t.t()
    assert tt.stride() == (1, 3) and not tt.is_contiguous()
    c = tt.contiguous()
    assert c.is_contiguous() and c.stride() == (2, 1)
    assert t.contiguous() is t
    assert mt.ones(1, 3, device=device).expand(4, 3).stride() == (0, 1)
    v = mt.ones(4, 6, device=device)[::2, ::3]
    assert v.stride() == (12, 3) and not v.is_contiguous()


def test_storage_offset_and_data_ptr(device):
    t = mt.arange(6.0, device=device).reshape(2, 3)
    assert t.storage_offset() == 0
    assert t[1].storage_offset() == 3 and t[:, 1].storage_offset() == 1
    assert t[1].data_ptr() == t.data_ptr() + 3 * t.element_size()
    assert mt.ones(2, device=device).data_ptr() != mt.ones(2, device=device).data_ptr()


def test_detached_views_keep_their_storage(device):
    # detach() and .data of a view are no autograd views, but they lie in the same storage:
    # HF-style shared-tensor checks compare untyped_storage().data_ptr()
    x = mt.arange(10.0, device=device)
    v = x[3:]
    for alias in (v.detach(), v.data, v.detach().detach(), v.data.view(mt.int32)):
        assert alias.storage_offset() == 3
        assert alias.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert alias.untyped_storage().nbytes() == 40
    assert v.detach()[1:].storage_offset() == 4
    w = mt.zeros(4, 6, device=device)[:, 2:].data
    assert w.storage_offset() == 2 and w.untyped_storage().nbytes() == 96
    assert x.detach().storage_offset() == 0 and mt.ones(3, device=device).data.storage_offset() == 0


def test_T_and_mT(device):
    t = mt.arange(6.0, device=device).reshape(2, 3)
    assert t.T.shape == (3, 2) and t.T[2, 1].item() == 5.0
    assert mt.ones(2, 3, 4, device=device).mT.shape == (2, 4, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert mt.ones(2, 3, 4, device=device).T.shape == (4, 3, 2)


# --- dtype, device, autograd properties ---


def test_basic_properties(device):
    t = mt.ones(2, device=device)
    assert t.dtype is mt.float32 and t.device == _dev(device)
    assert t.is_leaf and not t.requires_grad and t.grad is None and t.grad_fn is None
    assert t.is_floating_point() and not t.long().is_floating_point()
    assert not t.is_complex() and t.is_signed() and not t.byte().is_signed()
    assert t.is_cpu == (device == "cpu")
    want = -1 if device == "cpu" else 0 if device == "cuda:0" else t.get_device()
    assert t.get_device() == want
    assert mt.is_tensor(t) and not mt.is_tensor([1]) and mt.is_floating_point(t)
    assert mt.numel(t) == 2 and mt.typename(t).endswith("FloatTensor")


def test_requires_grad_rules():
    t = mt.ones(2)
    t.requires_grad_()
    assert t.requires_grad and t.is_leaf
    y = t * 2
    assert y.requires_grad and not y.is_leaf and y.grad_fn is not None
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf"):
        y.requires_grad_(False)
    with pytest.raises(
        RuntimeError, match="only Tensors of floating point dtype can require gradients"
    ):
        mt.ones(2, dtype=mt.int64).requires_grad_()
    i = mt.ones(2, dtype=mt.int64)
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype"):
        i.requires_grad = True
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None


def test_data_shares_memory_but_not_the_version_counter(device):
    x = mt.ones(3, requires_grad=True, device=device)
    d = x.data
    assert not d.requires_grad and d.is_leaf
    assert d.data_ptr() == x.data_ptr()
    v = x._version
    d.mul_(2.0)
    assert x._version == v
    assert x.tolist() == [2.0, 2.0, 2.0]
    x.data = mt.zeros(2, device=device)
    assert x.shape == (2,) and x.requires_grad


def test_detach_and_clone(device):
    x = mt.ones(2, requires_grad=True, device=device)
    d = x.detach()
    assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    d.add_(1.0)
    assert x._version == d._version  # detach shares the version counter
    c = x.clone()
    assert c.requires_grad and type(c.grad_fn).__name__ == "CloneBackward0"
    assert c.data_ptr() != x.data_ptr()


# --- Python scalars and protocols ---


def test_item_and_tolist(device):
    assert mt.tensor(2.5, device=device).item() == 2.5
    assert mt.tensor([2], device=device).item() == 2
    assert isinstance(mt.tensor([2], device=device).item(), int)
    assert mt.tensor([[1, 2]], device=device).tolist() == [[1, 2]]
    assert mt.tensor(2, device=device).tolist() == 2
    assert mt.tensor([True], device=device).tolist() == [True]
    with pytest.raises(
        RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"
    ):
        mt.tensor([2, 3], device=device).item()


def test_scalar_protocols(device):
    assert float(mt.tensor([[3]], device=device)) == 3.0
    assert int(mt.tensor(2.7, device=device)) == 2 and int(mt.tensor(-2.7, device=device)) == -2
    assert bool(mt.tensor([1], device=device)) and not bool(mt.tensor(0.0, device=device))
    assert complex(mt.tensor(2.0, device=device)) == 2 + 0j
    assert [1, 2, 3][mt.tensor(1, device=device)] == 2
    assert [1, 2, 3][mt.tensor(True, device=device)] == 2
    assert f"{mt.tensor(2.5, device=device):.2f}" == "2.50"
    with pytest.raises(
        ValueError, match="only one element tensors can be converted to Python scalars"
    ):
        float(mt.tensor([1, 2], device=device))
    with pytest.raises(ValueError, match="only one element tensors"):
        int(mt.tensor([], device=device))
    with pytest.raises(
        RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"
    ):
        bool(mt.tensor([1, 2], device=device))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        bool(mt.tensor([], device=device))
    with pytest.raises(
        TypeError, match="only integer tensors of a single element can be converted to an index"
    ):
        [1, 2][mt.tensor(1.0, device=device)]
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        [1, 2][mt.tensor([0, 1], device=device)]


def test_float_of_a_tensor_requiring_grad_warns(monkeypatch):
    # torch warns once per process: start from a process that has not warned yet
    monkeypatch.setattr(mt._settings, "_warned_once", set())
    x = mt.ones(1, requires_grad=True)
    with pytest.warns(UserWarning, match="Converting a tensor with requires_grad=True to a scalar"):
        float(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.item() == 1.0 and int(x) == 1 and bool(x)


def test_len_and_iter(device):
    t = mt.tensor([[1, 2], [3, 4]], device=device)
    assert len(t) == 2
    rows = list(t)
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4]]
    assert all(isinstance(r, mt.Tensor) and r.device == t.device for r in rows)
    assert [x.item() for x in mt.tensor([5, 6], device=device)] == [5, 6]


# --- NumPy ---


def test_numpy_shares_memory_on_cpu():
    t = mt.zeros(3)
    a = t.numpy()
    a[0] = 4.0
    assert t[0].item() == 4.0
    t[1] = 2.0
    assert a[1] == 2.0
    assert np.shares_memory(np.asarray(t), a)


def test_numpy_of_a_tensor_requiring_grad():
    t = mt.ones(2, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=r"Can't call numpy\(\) on Tensor that requires grad. "
        r"Use tensor.detach\(\).numpy\(\) instead.",
    ):
        t.numpy()
    np.testing.assert_array_equal(t.numpy(force=True), [1.0, 1.0])
    np.testing.assert_array_equal(t.detach().numpy(), [1.0, 1.0])


# --- casts and moves ---


@pytest.mark.parametrize(
    "method, dtype",
    [
        ("float", mt.float32),
        ("double", mt.float64),
        ("half", mt.float16),
        ("long", mt.int64),
        ("int", mt.int32),
        ("short", mt.int16),
        ("char", mt.int8),
        ("byte", mt.uint8),
        ("bool", mt.bool),
    ],
)
def test_dtype_methods(method, dtype, device):
    t = mt.tensor([0.0, 1.5], device=device)
    out = getattr(t, method)()
    assert out.dtype is dtype and out.device == t.device
    if dtype is mt.float32:
        assert out is t


def test_to_in_all_forms(device):
    t = mt.ones(2)
    d = _dev(device)
    assert t.to(mt.float64).dtype is mt.float64
    assert t.to(device).device == d
    assert t.to(device, mt.int32).dtype is mt.int32
    assert t.to(d, mt.int32, non_blocking=True).device == d
    other = mt.ones(1, dtype=mt.int64, device=device)
    o = t.to(other)
    assert o.dtype is mt.int64 and o.device == d
    assert t.to(dtype=mt.int32).dtype is mt.int32
    assert t.to(device=device, dtype=mt.float64).dtype is mt.float64
    assert t.to(float).dtype is mt.float64 and t.to(int).dtype is mt.int64
    assert t.to() is t and t.to(None) is t and t.to(mt.float32) is t and t.to("cpu") is t
    c = t.to("cpu", copy=True)
    assert c is not t and c.data_ptr() != t.data_ptr()
    assert t.to(mt.float32, False, True) is not t
    assert t.to(mt.device("cpu"), mt.float64, True, True).dtype is mt.float64


@pytest.mark.parametrize(
    "args, kwargs",
    [
        (("cpu", "cpu"), {}),
        ((mt.float64, mt.float64), {}),
        ((), {"foo": 1}),
        ((mt.ones(1), mt.float64), {}),
        ((), {"other": mt.ones(1)}),
        ((0.5,), {}),
        ((mt.float64,), {"non_blocking": 1}),
    ],
)
def test_to_invalid_arguments(args, kwargs):
    with pytest.raises(TypeError, match=r"to\(\) received an invalid combination of arguments"):
        mt.ones(2).to(*args, **kwargs)


def test_to_keeps_autograd():
    x = mt.ones(2, requires_grad=True)
    y = x.to(mt.float64)
    assert y.requires_grad and type(y.grad_fn).__name__ == "ToCopyBackward0"
    y.sum().backward()
    assert x.grad.dtype is mt.float32 and x.grad.tolist() == [1.0, 1.0]
    i = x.long()  # a cast to an integer type leaves the graph
    assert not i.requires_grad and i.grad_fn is None


def test_type(device):
    t = mt.ones(2, device=device)
    assert mt.ones(2).type() == "torch.FloatTensor"
    assert mt.ones(2).double().type() == "torch.DoubleTensor"
    assert mt.ones(2).long().type() == "torch.LongTensor"
    assert mt.ones(2).bool().type() == "torch.BoolTensor"
    assert t.type(mt.float64).dtype is mt.float64
    assert t.type(mt.float32) is t
    assert mt.ones(2).type("torch.LongTensor").dtype is mt.int64
    assert mt.ones(2).type("torch.IntTensor").dtype is mt.int32
    assert mt.ones(2).type(mt.LongTensor).dtype is mt.int64
    for bad, name in (
        ("float", "float"),
        ("torch.foo", "torch.foo"),
        (int, "int"),
        (float, "float"),
    ):
        with pytest.raises(ValueError, match=f"invalid type: '{name}'"):
            mt.ones(2).type(bad)


# --- repr ---


def test_repr(device):
    suffix = "" if device == "cpu" else f", device='{_dev(device)}'"
    x = mt.tensor([[1.0, 2.0]], requires_grad=True, device=device)
    assert repr(x) == f"tensor([[1., 2.]]{suffix}, requires_grad=True)"
    assert repr(x * 2) == f"tensor([[2., 4.]]{suffix}, grad_fn=<MulBackward0>)"
    assert repr(mt.tensor([1, 2], dtype=mt.int32, device=device)) == (
        f"tensor([1, 2]{suffix}, dtype=torch.int32)"
    )
    assert repr(mt.tensor([1.5, 2.0], dtype=mt.float64, device=device)) == (
        f"tensor([1.5000, 2.0000]{suffix}, dtype=torch.float64)"
    )
    assert repr(mt.tensor([], device=device)) == f"tensor([]{suffix})"
    assert repr(mt.zeros(2, 0, device=device)) == f"tensor([]{suffix}, size=(2, 0))"
    assert str(mt.tensor([True, False], device=device)) == f"tensor([ True, False]{suffix})"


def test_repr_reads_no_more_than_one_transfer():
    from minitorch._backend.strict import count_transfers

    t = mt.arange(10.0, device="strict")
    with count_transfers() as c:
        repr(t)
    assert c.count == 1


def test_set_printoptions():
    try:
        mt.set_printoptions(precision=2)
        assert repr(mt.tensor([1.2345])) == "tensor([1.23])"
    finally:
        mt.set_printoptions(profile="default")
    assert repr(mt.tensor([1.2345])) == "tensor([1.2345])"


# --- pickling and copying ---


def test_pickle_round_trip(device):
    x = mt.tensor([[1.0, 2.0]], requires_grad=True, device=device)
    x.grad = mt.ones(1, 2, device=device)
    y = pickle.loads(pickle.dumps(x))
    assert y.tolist() == x.tolist() and y.dtype is x.dtype and y.device == x.device
    assert y.requires_grad and y.is_leaf and y.grad is None  # torch drops .grad too
    z = pickle.loads(pickle.dumps(mt.tensor([1, 2], dtype=mt.int16, device=device)))
    assert z.dtype is mt.int16 and z.tolist() == [1, 2]
    nl = pickle.loads(pickle.dumps(x * 2))
    assert nl.is_leaf and nl.requires_grad


def test_deepcopy(device):
    x = mt.tensor([1.0, 2.0], requires_grad=True, device=device)
    x.grad = mt.ones(2, device=device)
    x.tag = [1]
    y = copy.deepcopy(x)
    assert y.tolist() == [1.0, 2.0] and y.requires_grad and y.is_leaf
    assert y.data_ptr() != x.data_ptr()
    assert y.grad.tolist() == [1.0, 1.0] and y.grad is not x.grad
    assert y.tag == [1] and y.tag is not x.tag
    pair = copy.deepcopy([x, x])
    assert pair[0] is pair[1]
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(x * 2)


# --- Size ---


def test_size_object():
    s = mt.Size([2, 3])
    assert s == (2, 3) and isinstance(s, tuple)
    assert isinstance(s[1:], mt.Size) and s[1:] == (3,)
    assert isinstance(s + (4,), mt.Size) and (4,) + s == (4, 2, 3)
    assert isinstance((4,) + s, mt.Size)
    assert isinstance(s * 2, mt.Size) and s * 2 == (2, 3, 2, 3)
    assert s.numel() == 6 and mt.Size().numel() == 1 and mt.Size() == ()
    assert mt.Size([mt.tensor(2), np.int64(3)]) == (2, 3)
    assert pickle.loads(pickle.dumps(s)) == s and type(pickle.loads(pickle.dumps(s))) is mt.Size
    with pytest.raises(
        TypeError,
        match=r"torch.Size\(\) takes an iterable of 'int' \(item 0 is "
        "'float'\\)",
    ):
        mt.Size([2.5])


# --- new_* ---


def test_new_constructors(device):
    t = mt.ones(2, dtype=mt.int32, device=device)
    z = t.new_zeros(3)
    assert z.dtype is mt.int32 and z.device == t.device and z.tolist() == [0, 0, 0]
    assert t.new_ones((2, 2)).shape == (2, 2)
    assert t.new_empty(3, dtype=mt.int8).dtype is mt.int8
    assert t.new_full((2,), 2.5).tolist() == [2, 2]
    assert t.new_tensor([1.5]).tolist() == [1]
    f = mt.ones(2, dtype=mt.float64, device=device)
    assert f.new_tensor([1, 2]).dtype is mt.float64
    assert f.new_zeros((2, 3), dtype=mt.int64).dtype is mt.int64
    assert f.new_ones(2, requires_grad=True).requires_grad
    assert f.new_zeros([]).shape == ()
    with pytest.warns(UserWarning, match=r"rather than tensor.new_tensor\(sourceTensor\)"):
        f.new_tensor(mt.ones(2, device=device))
    assert t.new(2, 3).shape == (2, 3) and t.new(2, 3).dtype is mt.int32
    assert t.new([1.5, 2]).tolist() == [1, 2]


# --- promotion helpers ---


def test_result_type():
    assert mt.result_type(mt.ones(2), 1.0) is mt.float32
    assert mt.result_type(mt.ones(2, dtype=mt.int32), 1.0) is mt.float32
    assert mt.result_type(mt.ones(2, dtype=mt.int32), 1) is mt.int32
    assert mt.result_type(mt.ones(2, dtype=mt.int32), mt.tensor(1.0, dtype=mt.float64)) is (
        mt.float64
    )
    assert mt.result_type(2, 3.0) is mt.float32
    assert mt.result_type(True, mt.tensor([True])) is mt.bool
    with pytest.raises(TypeError, match=r"result_type\(\) received an invalid combination"):
        mt.result_type("a", 1)


def test_get_and_set_default_dtype():
    assert mt.get_default_dtype() is mt.float32
    try:
        mt.set_default_dtype(mt.float64)
        assert mt.get_default_dtype() is mt.float64
        assert mt.tensor(1.5).dtype is mt.float64
        assert (mt.tensor([1]) + 1.5).dtype is mt.float64
        assert (mt.ones(2, dtype=mt.float32) + 1.5).dtype is mt.float32
    finally:
        mt.set_default_dtype(mt.float32)


def test_data_of_a_tensor_requiring_grad_must_stay_floating():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="must be floating point"):
        w.data = mt.tensor([1, 2])
    assert w.dtype is mt.float32
    w.data = mt.tensor([3.0, 4.0], dtype=mt.float64)  # another float dtype is accepted
    assert w.dtype is mt.float64 and w.requires_grad


def test_size_arguments_by_keyword():
    x = mt.ones(2, 3)
    assert x.reshape(shape=(3, 2)).shape == (3, 2)
    assert x.view(size=(3, 2)).shape == (3, 2) and x.view(dtype=mt.int32).dtype is mt.int32
    assert x.permute(dims=(1, 0)).shape == (3, 2)
    assert x.expand(size=(2, 2, 3)).shape == (2, 2, 3)
    assert x.repeat(repeats=(2, 1)).shape == (4, 3) and x.tile(dims=(2,)).shape == (2, 6)
    assert x.flip(dims=(0,)).shape == (2, 3) and x.new_zeros(size=(4,)).shape == (4,)
    with pytest.raises(TypeError, match="multiple values for argument 'shape'"):
        x.reshape((3, 2), shape=(3, 2))
    with pytest.raises(TypeError, match='missing 1 required positional arguments: "shape"'):
        x.reshape(shap=(3, 2))  # torch reports the missing size before the unknown keyword
    with pytest.raises(TypeError, match="unexpected keyword argument 'shap'"):
        x.reshape(3, 2, shap=(3, 2))


def test_torch_constants_and_version_module():
    import math

    assert (mt.pi, mt.e, mt.inf) == (math.pi, math.e, math.inf) and math.isnan(mt.nan)
    assert mt.ones(3)[:, mt.newaxis].shape == (3, 1)
    assert mt.version.__version__ == mt.__version__ and mt.version.cuda is None


def test_membership():
    x = mt.tensor([[1, 2], [3, 4]])
    assert 3 in x and 0 not in x and mt.tensor([1, 2]) in x
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        "a" in x  # noqa: B015


def test_deprecated_number_first_overloads(monkeypatch):
    monkeypatch.setitem(mt._settings._state, "warn_always", True)  # torch: once per process
    p, g = mt.ones(3), mt.full((3,), 0.5)
    with pytest.warns(UserWarning, match="This overload of add_ is deprecated"):
        p.add_(-0.1, g)  # an old tutorial's p.data.add_(-learning_rate, p.grad.data)
    np.testing.assert_allclose(p.numpy(), [0.95] * 3)
    with pytest.warns(UserWarning, match="deprecated"):
        np.testing.assert_allclose(p.sub(2, g).numpy(), [-0.05] * 3, atol=1e-7)
    with pytest.warns(UserWarning, match="deprecated"):
        np.testing.assert_allclose(mt.addcmul(p, 0.5, g, g).numpy(), [1.075] * 3)
    with pytest.warns(UserWarning, match="deprecated"):
        p.addcdiv_(-0.01, g, g)
    np.testing.assert_allclose(p.numpy(), [0.94] * 3, rtol=1e-6)


def test_class_names_read_like_torch():
    # print(type(x)) in the tutorials shows <class 'torch.Tensor'>
    assert repr(type(mt.ones(1))) == "<class 'minitorch.Tensor'>"
    assert repr(type(mt.ones(1).shape)) == "<class 'minitorch.Size'>"
    assert pickle.loads(pickle.dumps(mt.ones(2))).tolist() == [1.0, 1.0]


def test_copy_refuses_growing_and_overlapping_copies():
    x = mt.zeros(2, 3)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        x.copy_(mt.ones(2, 2, 3))
    s = mt.arange(5.0)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        s[1:].copy_(s[:-1])  # the result would depend on the copy's order
    assert s.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    s[::2][:2].copy_(s[1::2])  # interleaved views of s: no element shared, allowed
    assert s.tolist() == [1.0, 1.0, 3.0, 3.0, 4.0]
    s.copy_(s)  # a view copied onto itself is fine


def test_strides_of_new_size_one_dims_are_torchs():
    x = mt.zeros(2, 3, 4)
    assert x[None].stride() == (24, 12, 4, 1) and x.unsqueeze(1).stride() == (12, 12, 4, 1)
    assert mt.ones(5)[:, None].stride() == (1, 1)
    assert x.expand(1, 2, 3, 4).stride() == (24, 12, 4, 1)
    assert mt.ones(3, 1).expand(3, 4).stride() == (1, 0)  # an expanded dim keeps 0
    assert x.broadcast_to(2, 2, 3, 4).shape == (2, 2, 3, 4)  # sizes as varargs too


def test_reversed_is_a_flipped_tensor():
    x = mt.arange(4.0, requires_grad=True)
    r = reversed(x)
    assert isinstance(r, mt.Tensor) and r.tolist() == [3.0, 2.0, 1.0, 0.0]
    (reversed(x) * mt.arange(4.0)).sum().backward()  # usable in arithmetic, and differentiable
    assert x.grad.tolist() == [3.0, 2.0, 1.0, 0.0]
    s = mt.tensor(5.0)
    assert reversed(s) is s
