"""Calling conventions torch accepts or refuses (session 23 differential fuzzing): the deprecated
number-first overloads, numbers as operands, int-like and float-like arguments, sizes given as
tensors. Expected values and messages were obtained by running torch 2.13."""

import numpy as np
import pytest

import minitorch as torch


@pytest.fixture(autouse=True)
def _warn_always(monkeypatch):
    # torch warns about deprecated overloads once per process; these tests look at every call's
    monkeypatch.setitem(torch._settings._state, "warn_always", True)


def _x():
    return torch.full((2, 3), 3.0)


# --- deprecated number-first overloads of the methods ---


def test_deprecated_add_takes_a_number_as_other():
    x = _x()
    with pytest.warns(UserWarning, match="This overload of add is deprecated"):
        r = x.add(2, 3)  # alpha=2, other=3 (torch reads a number as add/sub's other)
    assert r.tolist() == [[9.0] * 3] * 2
    with pytest.warns(UserWarning):
        assert x.sub(2.5, 1).tolist() == [[0.5] * 3] * 2
    with pytest.warns(UserWarning):
        assert x.add(np.int64(2), np.int64(3)).tolist() == [[9.0] * 3] * 2
    y = _x()
    with pytest.warns(UserWarning):
        y.sub_(2, -1)
    assert y.tolist() == [[5.0] * 3] * 2


def test_deprecated_add_takes_a_0d_tensor_alpha():
    x = _x()
    with pytest.warns(UserWarning):
        assert x.add(torch.tensor(2), x).tolist() == [[9.0] * 3] * 2
    with pytest.warns(UserWarning):
        assert x.addcmul(torch.tensor(2.0), x, x).tolist() == [[21.0] * 3] * 2
    with pytest.raises(TypeError, match=r"^add\(\) takes 1 positional argument but 2 were given"):
        x.add(torch.tensor(2.0, requires_grad=True), x)


def test_deprecated_overloads_refuse_their_keyword():
    x = _x()
    msg = "invalid combination of arguments - got unrecognized keyword arguments: alpha"
    with pytest.raises(TypeError, match=msg):
        x.add(2, x, alpha=3)  # was silently x + 2 * x
    with pytest.raises(TypeError, match="unrecognized keyword arguments: value"):
        x.addcmul(2, x, x, value=3)
    with pytest.raises(TypeError, match=r"addcmul\(\) takes 3 positional arguments but 4 were"):
        torch.addcmul(x, 2, x, x, value=3)
    with pytest.raises(TypeError, match=r"addcmul\(\) takes 2 positional arguments but 3 were"):
        x.addcmul(2, 3, x)
    with pytest.raises(TypeError, match=r"addcmul\(\) takes 3 positional arguments but 4 were"):
        torch.addcmul(x, 2, 3, x)


def test_rsub_takes_alpha_positionally_with_a_number_other():
    z = torch.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    assert torch.rsub(z, 2, 5).tolist() == [[-3.0, -23.0, -8.0], [-33.0, 2.0, -13.0]]
    with pytest.raises(TypeError, match=r"rsub\(\) received an invalid combination"):
        torch.rsub(z, z, 2)


# --- numbers as operands ---


def test_number_pair_ops_take_numpy_scalars():
    r = torch.add(np.int64(2), 3)
    assert (r.item(), r.dtype, r.shape) == (5, torch.int64, ())
    r = torch.add(np.float64(2), 3)
    assert (r.item(), r.dtype) == (5.0, torch.float32)
    r = torch.div(np.int64(2), np.int64(4))
    assert (r.item(), r.dtype) == (0.5, torch.float32)
    r = torch.true_divide(np.int64(2), 4)
    assert (r.item(), r.dtype) == (0.5, torch.float32)
    r = torch.floor_divide(np.int64(7), 2)
    assert (r.item(), r.dtype) == (3, torch.int64)
    assert torch.mul(np.int32(2), 3).item() == 6
    msg = r"^add\(\): argument 'input' \(position 1\) must be Tensor, not numpy.ndarray$"
    with pytest.raises(TypeError, match=msg):
        torch.add(np.array(2), 3)


# --- float-like, int-like and bool arguments ---


def test_isclose_tolerances_as_tensors_and_checked_types():
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([1.5, 2.0])
    assert torch.isclose(a, b, rtol=0, atol=torch.tensor(0.6)).tolist() == [True, True]
    assert torch.isclose(a, b, rtol=torch.tensor(0.0), atol=0.4).tolist() == [False, True]
    assert torch.allclose(a, b, 0.0, torch.tensor(0.6)) is True
    assert a.allclose(b, torch.tensor(0), torch.tensor(0.6)) is True
    with pytest.raises(TypeError, match=r"^isclose\(\): argument 'rtol' must be float, not Tensor"):
        torch.isclose(a, b, rtol=torch.tensor([1.0]))
    with pytest.raises(TypeError, match="argument 'rtol' must be float, not NoneType"):
        torch.isclose(a, b, rtol=None)
    with pytest.raises(TypeError, match=r"^allclose\(\): argument 'rtol' must be float, not None"):
        torch.allclose(a, b, rtol=None)
    with pytest.raises(TypeError, match="argument 'equal_nan' \\(position 5\\) must be bool, not"):
        torch.isclose(a, b, 1e-5, 1e-8, 1)  # was accepted
    with pytest.raises(
        RuntimeError, match="^atol must be greater than or equal to zero, but got -1$"
    ):
        torch.isclose(a, b, atol=-1.0)


def test_nonzero_static_int_like_arguments():
    x = torch.tensor([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    assert torch.nonzero_static(x, size=torch.tensor([2])).tolist() == [[0, 0], [0, 2]]
    got = torch.nonzero_static(x, size=np.int64(5), fill_value=np.int64(7)).tolist()
    assert got == [[0, 0], [0, 2], [1, 1], [7, 7], [7, 7]]
    got = x.nonzero_static(size=4, fill_value=torch.tensor(-2)).tolist()
    assert got == [[0, 0], [0, 2], [1, 1], [-2, -2]]
    with pytest.raises(
        TypeError, match="^nonzero_static\\(\\): argument 'size' must be int, not NoneType"
    ):
        torch.nonzero_static(x, size=None)
    with pytest.raises(TypeError, match="argument 'size' must be int, not float"):
        torch.nonzero_static(x, size=1.0)
    with pytest.raises(TypeError, match="argument 'fill_value' must be int, not float"):
        torch.nonzero_static(x, size=2, fill_value=1.5)  # was accepted
    with pytest.raises(TypeError, match="argument 'fill_value' must be int, not bool"):
        torch.nonzero_static(x, size=8, fill_value=True)


def test_round_decimals_must_be_int_like():
    y = torch.tensor([1.234, -5.678])
    assert y.round(decimals=np.int64(1)).tolist() == pytest.approx([1.2, -5.7], rel=1e-6)
    assert y.round(decimals=torch.tensor(2)).tolist() == pytest.approx([1.23, -5.68], rel=1e-6)
    for bad, name in ((1.0, "float"), (True, "bool"), (torch.tensor(1.0), "Tensor")):
        with pytest.raises(TypeError, match=f"argument 'decimals' must be int, not {name}"):
            y.round(decimals=bad)  # all three were accepted
    with pytest.raises(TypeError, match="argument 'decimals' must be int, not float"):
        y.clone().round_(decimals=1.0)


def test_argmax_argmin_dim_refuses_bool():
    z = torch.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    assert z.argmax(np.int64(1)).tolist() == [1, 0]
    assert z.argmin(dim=torch.tensor(0)).tolist() == [0, 1, 0]
    with pytest.raises(TypeError, match=r"^argmax\(\): argument 'dim' \(position 1\) must be int"):
        z.argmax(False)  # was read as dim 0
    with pytest.raises(TypeError, match=r"^argmin\(\): argument 'dim' must be int, not bool"):
        torch.argmin(z, dim=True)


def test_select_index_int_like():
    z = torch.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    assert z.select(0, torch.tensor([1])).tolist() == [7.0, 0.0, 3.0]
    assert z.select(1, np.int64(2)).tolist() == [2.0, 3.0]
    with pytest.raises(TypeError, match="argument 'index' \\(position 2\\) must be int, not bool"):
        z.select(0, True)  # was row 1
    with pytest.raises(TypeError, match="argument 'index' \\(position 2\\) must be int, not float"):
        z.select(0, 1.0)


# --- sizes given as tensors ---


def test_size_as_a_multi_element_tensor_is_refused():
    x = _x()
    cases = [
        (lambda: x.reshape(torch.tensor([3, 2])), "reshape", "shape"),
        (lambda: x.expand(torch.tensor([2, 3])), "expand", "size"),
        (lambda: x.repeat(torch.tensor([2, 1])), "repeat", "repeats"),
        (lambda: x.permute(torch.tensor([1, 0])), "permute", "dims"),
    ]
    for call, op, name in cases:  # each was accepted, reading the tensor's elements
        msg = f"^{op}\\(\\): argument '{name}' \\(position 1\\) must be tuple of ints, not Tensor$"
        with pytest.raises(TypeError, match=msg):
            call()
    with pytest.raises(TypeError, match="^permute\\(\\): argument 'dims' must be tuple of ints"):
        x.permute(dims=torch.tensor([1, 0]))
    with pytest.raises(TypeError, match=r"^view\(\) received an invalid combination"):
        x.view(torch.tensor([3, 2]))
    # a one-element integer tensor is one int-like
    assert x.view(torch.tensor([[6]])).shape == (6,)
    assert x.reshape(torch.tensor([6])).shape == (6,)
