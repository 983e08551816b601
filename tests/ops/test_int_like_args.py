"""Int-like arguments: NumPy integers and 0-d integer tensors where an op takes an int (a dim, a
size, a shift, a kernel size), as torch's argument parser reads them; bools and floats refused.
See NOTE [ Int-like arguments ] in minitorch/_tensor_methods.py."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F

X = np.arange(24.0).reshape(2, 3, 4)

# One int-like of each kind: a NumPy scalar of two widths and a 0-d integer tensor.
KINDS = {
    "np.int64": np.int64,
    "np.int32": np.int32,
    "tensor": lambda v: mt.tensor(v),
    "int32 tensor": lambda v: mt.tensor(v, dtype=mt.int32),
}


def _x():
    return mt.tensor(X)


def _check(out, expected, name):
    got = out.numpy() if isinstance(out, mt.Tensor) else np.asarray(out)
    np.testing.assert_array_equal(got, expected, err_msg=name)


@pytest.mark.parametrize("kind", list(KINDS))
def test_int_like_dims_shifts_and_sizes(kind):
    k = KINDS[kind]
    cases = [
        ("view", lambda x: x.view(k(24)), X.reshape(24)),
        ("view sizes", lambda x: x.view(k(6), 4), X.reshape(6, 4)),
        ("view tuple", lambda x: x.view((k(6), k(4))), X.reshape(6, 4)),
        ("roll", lambda x: mt.roll(x, k(1), 2), np.roll(X, 1, 2)),
        ("roll dims", lambda x: mt.roll(x, k(1), k(2)), np.roll(X, 1, 2)),
        ("roll flat", lambda x: mt.roll(x, k(1)), np.roll(X, 1)),
        ("movedim", lambda x: mt.movedim(x, k(1), 0), np.moveaxis(X, 1, 0)),
        ("squeeze", lambda x: x[None].squeeze(k(0)), X),
        ("narrow", lambda x: x.narrow(k(2), k(1), k(2)), X[:, :, 1:3]),
        ("select", lambda x: x.select(k(1), k(2)), X[:, 2]),
        ("index_select", lambda x: x.index_select(k(2), mt.tensor([3, 0])), X[:, :, [3, 0]]),
        ("unbind", lambda x: x.unbind(k(1))[2], X[:, 2]),
        ("chunk", lambda x: x.chunk(2, k(2))[1], X[:, :, 2:]),
        ("split", lambda x: x.split(1, k(1))[2], X[:, 2:]),
        ("tensor_split", lambda x: mt.tensor_split(x, [1], dim=k(2))[1], X[:, :, 1:]),
        ("flip", lambda x: x.flip(k(2)), X[:, :, ::-1]),
        ("transpose", lambda x: x.transpose(k(0), k(2)), X.transpose(2, 1, 0)),
        ("kthvalue", lambda x: x.kthvalue(2, k(2)).values, np.sort(X, 2)[:, :, 1]),
        ("topk", lambda x: x.topk(1, k(1)).values, X[:, 2:]),
        ("sum", lambda x: x.sum(k(1)), X.sum(1)),
        ("zeros", lambda x: mt.zeros(k(2), 3), np.zeros((2, 3))),
        ("expand", lambda x: x[:, :1].expand(2, k(5), 4), np.broadcast_to(X[:, :1], (2, 5, 4))),
    ]
    for name, f, expected in cases:
        _check(f(_x()), expected, f"{name} with {kind}")


@pytest.mark.parametrize("k", [np.int64, np.int32])
def test_numpy_integer_sections(k):
    # (a sections tensor must be int64, as in torch: only NumPy scalars here)
    _check(mt.tensor_split(_x(), k(2), dim=2)[1], X[:, :, 2:], "tensor_split")
    _check(mt.hsplit(_x(), k(3))[2], X[:, 2:], "hsplit")
    with pytest.raises(RuntimeError, match="not divisible by the split_size 2"):
        mt.hsplit(_x(), k(2))


def test_one_element_tensor_is_an_int_in_a_size():
    x = _x()
    assert x.view(mt.tensor([24])).shape == (24,)
    assert x.view((mt.tensor([[6]]), 4)).shape == (6, 4)
    assert mt.zeros(mt.tensor([3])).shape == (3,)
    assert mt.zeros((mt.tensor([[2]]), 3)).shape == (2, 3)
    _check(mt.roll(x, mt.tensor([[1]]), 2), np.roll(X, 1, 2), "roll by a [[1]] tensor")


X_T = mt.tensor(X)

# (call, part of torch's TypeError message)
REFUSED = {
    "unsqueeze(True)": (lambda: X_T.unsqueeze(True), "must be int, not bool"),
    "narrow(dim=True)": (lambda: X_T.narrow(True, 0, 1), "combination of arguments - got (bool,"),
    "narrow(start=1.0)": (lambda: X_T.narrow(1, 1.0, 1), "of arguments - got (int, float, int"),
    "select(np.bool_)": (lambda: X_T.select(np.bool_(True), 0), "not numpy.bool"),
    "transpose(float tensor)": (lambda: X_T.transpose(mt.tensor(1.0), 0), "not Tensor"),
    "narrow(bool tensor)": (lambda: X_T.narrow(mt.tensor(True), 0, 1), "(!Tensor!, !int!, int"),
    # torch's texts for sizes given as separate numbers (NOTE [ Size argument forms ])
    "view(24.0)": (lambda: X_T.view(24.0), "received an invalid combination of arguments"),
    "reshape(6, 4.0)": (lambda: X_T.reshape(6, 4.0), "failed to unpack the object at pos 2"),
    "expand(2.0)": (lambda: X_T[:, :1].expand(2, 2.0, 4), "failed to unpack the object at pos 2"),
    "roll(1.0)": (lambda: mt.roll(X_T, 1.0, 2), "must be tuple of ints, not float"),
    "conv1d(stride=2.0)": (
        lambda: F.conv1d(X_T, mt.ones(2, 3, 2), stride=2.0),
        "received an invalid combination of arguments",  # conv1d lists its two overloads
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_bools_floats_and_float_tensors_are_not_ints(case):
    f, message = REFUSED[case]
    with pytest.raises(TypeError, match=message.replace("(", r"\(")):
        f()


def test_view_still_takes_a_dtype():
    x = mt.tensor([1.0, 2.0])
    assert x.view(mt.int32).dtype is mt.int32
    assert x.view(dtype=mt.int32).dtype is mt.int32


def test_int_like_results_are_python_ints():
    """Shapes and node arguments hold Python ints, not the NumPy or tensor values passed."""
    x = _x()
    y = x.view(np.int64(6), mt.tensor(4))
    assert [type(s) for s in y.shape] == [int, int]
    assert all(type(s) is int for s in mt.zeros((np.int32(2), mt.tensor(3))).shape)


@pytest.mark.parametrize(
    "name, f",
    [
        ("roll", lambda x: mt.roll(x, np.int64(2), mt.tensor(1))),
        ("narrow", lambda x: x.narrow(mt.tensor(1), np.int64(1), np.int32(2))),
        ("movedim", lambda x: mt.movedim(x, mt.tensor(0), np.int64(2))),
        ("view", lambda x: (x * 1).view(np.int64(-1), mt.tensor(4))),
    ],
)
def test_gradients_through_int_like_arguments(name, f):
    x = mt.tensor(np.random.default_rng(0).standard_normal((2, 3, 4)), requires_grad=True)
    assert mt.autograd.gradcheck(f, (x,)), name
    assert mt.autograd.gradgradcheck(f, (x,)), name


def test_nn_kernel_sizes_and_interpolate_sizes():
    x = _x().float()
    conv = mt.nn.Conv1d(3, 2, kernel_size=np.int64(3), stride=np.int32(2))
    assert conv.kernel_size == (3,)  # (np.int64(3),): kept as given, as torch keeps it
    assert conv.stride == (2,)
    assert conv.weight.shape == (2, 3, 3)
    assert conv(x).shape == (2, 2, 1)
    w = mt.ones(2, 3, 2)
    out = F.conv1d(x, w, stride=np.int64(2), padding=mt.tensor(1), dilation=np.int32(1))
    want = F.conv1d(x, w, stride=2, padding=1, dilation=1)
    _check(out, want.numpy(), "conv1d with int-like stride/padding/dilation")
    assert out.shape == (2, 2, 3)
    assert F.unfold(x[None], np.int64(2)).shape == (1, 8, 6)
    _check(F.interpolate(x, size=np.int64(8)), X.repeat(2, axis=2), "interpolate size np.int64")
    _check(F.interpolate(x, size=mt.tensor(8)), X.repeat(2, axis=2), "interpolate size tensor")
    _check(F.interpolate(x, scale_factor=np.int64(2)), X.repeat(2, axis=2), "scale_factor np.int64")


def test_in_place_squeeze_by_an_int_like_dim():
    x = mt.ones(1, 3, requires_grad=True)
    for dim in (np.int64(0), mt.tensor(0)):
        y = x.clone().squeeze_(dim)
        assert y.shape == (3,)
        assert y.grad_fn.name() == "SqueezeBackward4"


def test_pool_kernel_and_output_sizes_take_int_likes():
    x = mt.arange(12.0).reshape(1, 2, 6)
    want = F.avg_pool1d(x, 2)
    for k in (np.int64(2), mt.tensor(2)):
        assert F.avg_pool1d(x, k).tolist() == want.tolist()
        assert F.max_pool1d(x, k).tolist() == F.max_pool1d(x, 2).tolist()
        assert F.adaptive_avg_pool1d(x, k).shape == (1, 2, 2)
    assert F.adaptive_max_pool2d(x.reshape(1, 2, 2, 3), np.int64(1)).shape == (1, 2, 1, 1)


def test_unfold_and_fold_of_the_wrong_rank_raise_runtime_error():
    with pytest.raises(
        RuntimeError, match=r"Expected 3D or 4D \(batch mode\) tensor .* \[1, 1, 3, 5, 5\]"
    ):
        F.unfold(mt.ones(1, 1, 3, 5, 5), 2)
    with pytest.raises(
        RuntimeError, match=r"Expected 2D or 3D \(batch mode\) tensor .* \[1, 4, 4, 4\]"
    ):
        F.fold(mt.ones(1, 4, 4, 4), (3, 3), 2)


def test_dims_of_size_repeat_interleave_and_glu_take_int_likes_and_refuse_bools():
    x = mt.arange(6.0).reshape(2, 3)
    assert x.size(np.int64(1)) == 3 and x.size(mt.tensor(0)) == 2
    assert x.repeat_interleave(2, dim=np.int64(1)).shape == (2, 6)
    assert F.glu(mt.ones(2, 4), np.int64(1)).shape == (2, 2)
    with pytest.raises(TypeError, match="must be int, not bool"):
        x.size(True)
