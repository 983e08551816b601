"""minitorch.testing: assert_close's checks and messages, assert_allclose, make_tensor."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.testing import assert_allclose, assert_close, make_tensor


def _message(actual, expected, **kwargs) -> str:
    with pytest.raises(AssertionError) as info:
        assert_close(actual, expected, **kwargs)
    return str(info.value)


def test_close_values_pass_with_dtype_tolerances():
    assert_close(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 2.0 + 1e-6]))  # float32: 1.3e-6 rel
    assert_close(mt.tensor([0.0]), mt.tensor([9e-6]))  # atol 1e-5
    assert_close(mt.tensor([1.0, 2.0], dtype=mt.float16), mt.tensor([1.0, 2.001], dtype=mt.float16))
    assert_close(1.0, 1.0 + 1e-8)
    assert_close(mt.tensor([1.0, math.inf]), mt.tensor([1.0, math.inf]))
    assert_close(mt.zeros(0, 3), mt.zeros(0, 3))
    assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.0]))
    assert_close(None, None)


def test_float_mismatch_message_is_torchs():
    got = _message(mt.tensor([1.0, 2.0, 3.0]), mt.tensor([1.0, 2.5, 3.1]))
    assert got == (
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)"
    )


def test_float64_tolerances_and_multi_dim_index():
    a = mt.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=mt.float64)
    e = mt.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=mt.float64)
    got = _message(a, e)
    assert "Mismatched elements: 1 / 4 (25.0%)" in got
    assert "Greatest absolute difference: 1.0 at index (1, 1) (up to 1e-07 allowed)" in got
    assert "Greatest relative difference: 0.2 at index (1, 1) (up to 1e-07 allowed)" in got


def test_integers_compare_exactly():
    got = _message(mt.tensor([[2, 3]]), mt.tensor([[0, 3]]))
    assert got.startswith("Tensor-likes are not equal!")
    assert "Greatest absolute difference: 2 at index (0, 0)\n" in got
    assert got.endswith("Greatest relative difference: inf at index (0, 0)")
    assert_close(mt.tensor([5, 7]), mt.tensor([5, 7]))
    assert "1 / 2" in _message(mt.tensor([True, False]), mt.tensor([True, True]))


def test_scalars_and_zero_dim_tensors():
    assert _message(mt.tensor(1.0), mt.tensor(2.0)) == (
        "Scalars are not close!\n\nExpected 2.0 but got 1.0.\n"
        "Absolute difference: 1.0 (up to 1e-05 allowed)\n"
        "Relative difference: 0.5 (up to 1.3e-06 allowed)"
    )
    assert _message(1, 2) == (
        "Scalars are not equal!\n\nExpected 2 but got 1.\nAbsolute difference: 1\n"
        "Relative difference: 0.5"
    )
    assert _message(True, False) == "Booleans mismatch: True is not False"
    assert "(d)types do not match" in _message(1, 1.0)


def test_nan_needs_equal_nan():
    a = mt.tensor([1.0, math.nan])
    assert "Greatest absolute difference: nan at index (1,)" in _message(a, a.clone())
    assert_close(a, a.clone(), equal_nan=True)


def test_attribute_checks():
    assert _message(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 2.0, 3.0])) == (
        "The values for attribute 'shape' do not match: torch.Size([2]) != torch.Size([3])."
    )
    assert _message(mt.tensor([1.0]), mt.tensor([1])) == (
        "The values for attribute 'dtype' do not match: torch.float32 != torch.int64."
    )
    assert_close(mt.tensor([1.0]), mt.tensor([1]), check_dtype=False)
    # mixed dtypes take the looser tolerance and compare in the promoted dtype
    assert_close(
        mt.tensor([2.0], dtype=mt.float16), mt.tensor([2.0001], dtype=mt.float32), check_dtype=False
    )


def test_device_check(device):
    a = mt.tensor([1.0, 2.0], device=device)
    assert_close(a, a.clone())
    if device != "cpu":
        got = _message(a, a.cpu())
        assert got.startswith("The values for attribute 'device' do not match")
        assert_close(a, a.cpu(), check_device=False)


def test_containers_name_the_failing_item():
    got = _message([1.0, 2.0], [1.0, 2.5])
    assert got.endswith("\n\nThe failure occurred for item [1]")
    got = _message({"w": mt.tensor([1.0])}, {"w": mt.tensor([2.0])})
    assert got.endswith("The failure occurred for item ['w']")
    assert _message([1.0, 2.0], [1.0]) == "The length of the sequences mismatch: 2 != 1"
    assert _message({"a": 1}, {"b": 1}) == (
        "The keys of the mappings do not match:\nMissing keys in the actual mapping: ['b']\n"
        "Additional keys in the actual mapping: ['a']"
    )


def test_msg_replaces_or_transforms_the_message():
    a, e = mt.tensor([1.0, 2.0]), mt.tensor([1.0, 3.0])
    assert _message(a, e, msg="custom") == "custom"
    assert _message(a, e, msg=lambda m: "X" + m).startswith("XTensor-likes are not close!")
    assert _message(a, e, rtol=0, atol=0).startswith("Tensor-likes are not equal!")


def test_bad_arguments():
    with pytest.raises(TypeError, match="No comparison pair was able to handle"):
        assert_close(mt.tensor([1.0]), 1.0)
    with pytest.raises(TypeError, match="No comparison pair"):
        assert_close("a", "a")
    with pytest.raises(ValueError, match="but got no atol"):
        assert_close(mt.tensor([1.0]), mt.tensor([1.0]), rtol=1e-3)


def test_custom_tolerances():
    assert_close(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 2.00001]), rtol=0, atol=1e-4)
    assert_close(mt.tensor([5, 7]), mt.tensor([5, 7]), rtol=0.1, atol=0)
    with pytest.raises(AssertionError):
        assert_close(mt.tensor([5.0]), mt.tensor([6.0]), rtol=0.1, atol=0.0)


def test_assert_allclose_is_deprecated_and_looser():
    with pytest.warns(FutureWarning, match="assert_allclose"):
        assert_allclose(mt.tensor([1.0, 2.0]), [1.0, 2.0001])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert_allclose([1.0, math.nan], [1.0, math.nan])
        with pytest.raises(AssertionError, match="Tensor-likes are not close"):
            assert_allclose(mt.tensor([1.0, 2.0]), [1.0, 2.1])


# --- make_tensor ---


def test_make_tensor_default_ranges():
    mt.manual_seed(0)
    f = make_tensor(2000, dtype=mt.float32, device="cpu")
    assert f.dtype == mt.float32 and f.shape == (2000,)
    assert -9 <= f.min().item() and f.max().item() < 9
    i = make_tensor(2000, dtype=mt.int64, device="cpu")
    assert i.min().item() == -9 and i.max().item() == 9
    u = make_tensor((40, 50), dtype=mt.uint8, device="cpu")
    assert u.min().item() == 0 and u.max().item() == 9
    b = make_tensor([100], dtype=mt.bool, device="cpu")
    assert b.dtype == mt.bool and 0 < b.sum().item() < 100


def test_make_tensor_options(device):
    mt.manual_seed(1)
    t = make_tensor(3, 4, dtype=mt.float64, device=device, low=0.5, high=0.75)
    assert t.device == mt.device(device)
    assert 0.5 <= t.min().item() and t.max().item() < 0.75
    n = make_tensor(3, 4, dtype=mt.float32, device=device, noncontiguous=True, requires_grad=True)
    assert n.shape == (3, 4) and not n.is_contiguous() and n.requires_grad and n.is_leaf
    z = make_tensor(500, dtype=mt.int32, device=device, low=-1, high=2, exclude_zero=True)
    assert (z == 0).sum().item() == 0
    clamped = make_tensor(100, dtype=mt.uint8, device=device, low=250, high=300)
    assert clamped.min().item() >= 250
    assert make_tensor((), dtype=mt.float32, device=device).shape == ()


def test_make_tensor_errors():
    with pytest.raises(ValueError, match="`low` must be less than `high`"):
        make_tensor(3, dtype=mt.float32, device="cpu", low=3, high=1)
    with pytest.raises(ValueError, match="cannot be NaN"):
        make_tensor(3, dtype=mt.float32, device="cpu", low=math.nan)
    with pytest.raises(ValueError, match="not supported for boolean and integral"):
        make_tensor(3, dtype=mt.int64, device="cpu", requires_grad=True)
    with pytest.raises(ValueError, match="only supports"):
        make_tensor(3, dtype=mt.uint8, device="cpu", low=-5, high=-1)
