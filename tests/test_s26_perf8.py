"""Session 26 (perf8): faster relu/relu_, sign/sgn and in-place neg_/square_/reciprocal_/round_.

The values are those of the old formulations (NumPy's maximum(x, 0), sign, -x, x ** 2, 1 / x,
rint), bit for bit, except relu(-0.), which is now -0. as torch's (it was +0.). Literals from
torch 2.13: relu([-0., 0., nan, -1., 2.]) = [-0., 0., nan, 0., 2.] for float32/float64/float16;
sign/sgn([-0., 0., nan, -1., 2., -inf, inf]) = [0., 0., 0., -1., 1., -1., 1.], all zeros +0.
"""

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

SPECIAL = [-0.0, 0.0, float("nan"), -1.0, 2.0, float("-inf"), float("inf"), 1e-40, -1e-40, 2.5]


def _values(dtype, n=300, seed=0):
    rng = np.random.RandomState(seed)
    a = np.concatenate([rng.uniform(-3, 3, n), SPECIAL, -np.array(SPECIAL)]).astype(dtype)
    return a


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.itemsize}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_relu_values_and_negative_zero(dtype):
    a = _values(dtype)
    expected = np.maximum(a, 0).astype(dtype)
    expected[(a == 0) & np.signbit(a)] = -0.0  # torch: relu(-0.) is -0.
    got = torch.relu(torch.tensor(a)).numpy()
    np.testing.assert_array_equal(_bits(got), _bits(expected))
    got = torch.tensor([-0.0, 0.0, float("nan"), -1.0, 2.0], dtype=torch.tensor(a).dtype).relu()
    assert np.signbit(got.numpy()[0]) and not np.signbit(got.numpy()[1])
    # strided input
    b = a[:300].reshape(20, 15).T
    got = torch.relu(torch.tensor(a[:300]).reshape(20, 15).t()).numpy()
    exp2 = np.maximum(b, 0).astype(dtype)
    exp2[(b == 0) & np.signbit(b)] = -0.0
    np.testing.assert_array_equal(_bits(got), _bits(exp2))


def test_relu_ints_bool_and_grad():
    assert torch.relu(torch.tensor([-3, 0, 4], dtype=torch.int8)).tolist() == [0, 0, 4]
    assert torch.relu(torch.tensor(-0.0)).numpy().tobytes() == np.float32(-0.0).tobytes()
    with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
        torch.relu(torch.tensor([True]))
    x = torch.tensor([[-1.5, 0.3], [2.0, -0.7]], dtype=torch.float64, requires_grad=True)
    assert gradcheck(torch.relu, (x,))
    assert gradgradcheck(torch.relu, (x,))
    h = torch.tensor([-1.0, 2.0], dtype=torch.float16, requires_grad=True)
    y = torch.relu(h)
    assert type(y.grad_fn).__name__ == "ReluBackward0"
    y.sum().backward()
    assert h.grad.tolist() == [0.0, 1.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_inplace_no_grad_writes_memory(dtype):
    a = _values(dtype)
    x = torch.tensor(a)
    view = x[5:]
    ptr, version = x.data_ptr(), x._version
    assert torch.relu_(x) is x
    assert x.data_ptr() == ptr and x._version == version + 1
    np.testing.assert_array_equal(_bits(x.numpy()), _bits(torch.relu(torch.tensor(a)).numpy()))
    np.testing.assert_array_equal(_bits(view.numpy()), _bits(x.numpy()[5:]))
    # a leaf that requires grad: allowed under no_grad, refused with grad on
    w = torch.tensor(a, requires_grad=True)
    with torch.no_grad():
        w.relu_()
    assert np.signbit(w.detach().numpy()[300])  # relu_ of -0. is -0.
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.tensor([1.0], requires_grad=True).relu_()


def test_relu_inplace_recorded_and_views():
    x = torch.tensor([-1.0, 2.0, -0.5, 3.0], dtype=torch.float64, requires_grad=True)
    y = x * 1
    y.relu_()
    assert type(y.grad_fn).__name__ == "ReluBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0, 1.0]
    base = torch.tensor([-1.0, 2.0, -3.0, 4.0])
    base[1:].relu_()  # a view: general path
    assert base.tolist() == [-1.0, 2.0, 0.0, 4.0]
    e = torch.tensor([-1.0]).expand(3)
    with pytest.raises(RuntimeError, match="more than one element"):
        e.relu_()


_INPLACE = [
    ("neg_", lambda a: -a),
    ("negative_", lambda a: -a),
    ("square_", lambda a: a**2),
    ("reciprocal_", lambda a: 1 / a),
    ("round_", np.rint),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,ref", _INPLACE)
def test_unary_inplace_fast_values(name, ref, dtype):
    a = _values(dtype)
    with np.errstate(all="ignore"):
        expected = ref(a.copy()).astype(dtype)
    x = torch.tensor(a)
    view = x[3:]
    ptr, version = x.data_ptr(), x._version
    assert getattr(torch, name)(x) is x
    assert x.data_ptr() == ptr and x._version == version + 1
    np.testing.assert_array_equal(_bits(x.numpy()), _bits(expected))
    np.testing.assert_array_equal(_bits(view.numpy()), _bits(expected[3:]))
    t = torch.tensor(a)
    getattr(t, name)()  # the method
    np.testing.assert_array_equal(_bits(t.numpy()), _bits(expected))


def test_unary_inplace_other_paths():
    # integers, half precision, views, recorded graphs and out-of-range dtypes keep their paths
    assert torch.tensor([3, -2]).square_().tolist() == [9, 4]
    assert torch.tensor([3, -2]).neg_().tolist() == [-3, 2]
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        torch.tensor([1]).reciprocal_()
    h = torch.tensor([1.5, 2.5], dtype=torch.float16)
    assert h.round_().tolist() == [2.0, 2.0]
    assert torch.tensor([1.25, 2.35], dtype=torch.float64).round_(decimals=1).tolist() == [
        1.2,
        2.4,
    ]
    b = torch.tensor([1.0, 2.0, 4.0])
    b[1:].reciprocal_()
    assert b.tolist() == [1.0, 0.5, 0.25]
    x = torch.tensor([0.5, -2.0], dtype=torch.float64, requires_grad=True)
    y = x * 1
    y.square_()
    assert type(y.grad_fn).__name__ == "PowBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, -4.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.tensor([1.0], requires_grad=True).neg_()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sign_sgn_values(dtype):
    a = _values(dtype)
    with np.errstate(invalid="ignore"):
        expected = np.sign(a).astype(dtype)
    expected[np.isnan(a)] = 0.0
    expected[expected == 0] = 0.0  # +0.
    for fn in (torch.sign, torch.sgn):
        got = fn(torch.tensor(a)).numpy()
        np.testing.assert_array_equal(_bits(got), _bits(expected))
        got = fn(torch.tensor(a[:300]).reshape(20, 15).t()).numpy()
        np.testing.assert_array_equal(_bits(got), _bits(expected[:300].reshape(20, 15).T))
    assert torch.sign(torch.tensor(-0.0)).numpy().tobytes() == np.float32(0).tobytes()
    assert torch.sgn(torch.tensor(float("nan"))).item() == 0.0
    lit = torch.sign(torch.tensor([-0.0, 0.0, float("nan"), -1.0, 2.0, -float("inf")])).tolist()
    assert lit == [0.0, 0.0, 0.0, -1.0, 1.0, -1.0]
    x = torch.tensor([0.7, -1.2], dtype=torch.float64, requires_grad=True)
    assert gradcheck(torch.sign, (x,)) and gradgradcheck(torch.sign, (x,))
    assert gradcheck(torch.sgn, (x,))
