"""Session 24 (fzmisc): fixes found by tools/fuzz factories.py and out_inplace.py.

Expected values and messages are torch 2.13's, obtained by running it."""

import numpy as np
import pytest

import minitorch as torch


def test_asarray_numpy_scalar_is_a_0d_array():
    # torch reads a NumPy scalar as a 0-d array: cast, not __index__-checked
    t = torch.asarray(np.float32(-2.0), dtype=torch.int32)
    assert t.dtype is torch.int32 and t.shape == () and t.item() == -2
    assert torch.asarray(np.float32(300), dtype=torch.uint8).item() == 44
    assert torch.asarray(np.float16(-2.5), dtype=torch.uint8).item() == 254
    assert torch.asarray(np.float32(2.5), dtype=torch.bool).item() is True
    assert torch.asarray(np.bool_(True), dtype=torch.int64).item() == 1
    assert torch.asarray(np.float64(1e300), dtype=torch.int32).item() == -2147483648
    with pytest.raises(RuntimeError, match="can't alias NumPy scalars"):
        torch.asarray(np.float32(2.5), copy=False)
    # tensor() keeps torch's refusal
    with pytest.raises(TypeError, match="'numpy.float32' object cannot be interpreted"):
        torch.tensor(np.float32(2.5), dtype=torch.int64)


def test_tensor_mixed_int_float_leaves_into_integer_dtype():
    # each leaf converts on its own: ints wrap into uint8, floats truncate and must fit
    t = torch.tensor([[-3, 3.5], [2, -1]], dtype=torch.uint8)
    assert t.tolist() == [[253, 3], [2, 255]]
    assert torch.as_tensor((-3, 3.457), dtype=torch.uint8).tolist() == [253, 3]
    assert torch.tensor([True, -3, 2.5], dtype=torch.uint8).tolist() == [1, 253, 2]
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8 without"):
        torch.tensor([-3, 300.0], dtype=torch.uint8)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64 without"):
        torch.tensor([1e30, 2**65], dtype=torch.int64)


def test_tensor_huge_int_with_floats_is_value_error():
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        torch.as_tensor([1.0, 2**65], dtype=torch.int64)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        torch.tensor([1.0, 2**63], dtype=torch.uint8)


def test_arange_too_large_is_runtime_error():
    with pytest.raises(RuntimeError, match="allocate 8796093022208 bytes"):
        torch.arange(2**40)
    with pytest.raises(RuntimeError, match="allocate 4398046511096 bytes"):
        torch.arange(2.865, 2**40)
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="DefaultCPUAllocator"):
        torch.range(2, 2**40)


def test_linspace_logspace_float_endpoint_into_integer_dtype():
    for call in (
        lambda: torch.linspace(0, -3.2, 2, dtype=torch.uint8),
        lambda: torch.linspace(-0.5, 3, 2, dtype=torch.uint8),
        lambda: torch.linspace(-1.0, 3, 1, dtype=torch.uint8),
        lambda: torch.logspace(0, -3.0, 2, dtype=torch.uint8),
    ):
        with pytest.raises(RuntimeError, match="uint8_t without overflow"):
            call()
    # an int endpoint still wraps
    assert torch.linspace(-1, 3, 3, dtype=torch.uint8).tolist() == [255, 129, 3]


def test_logspace_endpoint_checked_in_float16_and_bool_single_step():
    with pytest.raises(RuntimeError, match="c10::Half without overflow"):
        torch.logspace(0, 1e5, 3, dtype=torch.float16)
    with pytest.raises(RuntimeError, match="c10::Half without overflow"):
        torch.logspace(-5, 2**40, 7, base=2.5, dtype=torch.float16)
    assert torch.logspace(-6, 0.1, 1, dtype=torch.bool).tolist() == [True]
    assert torch.logspace(-6, 0.1, 1, base=0, dtype=torch.bool).tolist() == [True]
    with pytest.raises(NotImplementedError, match="logspace_cpu"):
        torch.logspace(-6, 0.1, 3, dtype=torch.bool)


def test_where_condition_only_refuses_out():
    c = torch.tensor([1.0, 0.0])
    with pytest.raises(TypeError, match=r"got \(Tensor, out=Tensor\), but expected one of"):
        torch.where(c, out=torch.empty(0))
    with pytest.raises(TypeError, match=r"got \(Tensor, out=tuple\)"):
        torch.where(c, out=(torch.empty(0),))


def test_geqrf_out_with_grad_input_is_out_error():
    x = torch.ones(3, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^geqrf\(\): functions with out=\.\.\. arguments"):
        torch.geqrf(x, out=(torch.empty(0), torch.empty(0)))


def test_logspace_single_step_checks_the_fill_value():
    with pytest.raises(RuntimeError, match="int8_t without overflow"):
        torch.logspace(4, 7, 1, dtype=torch.int8)
    assert torch.logspace(2, 7, 1, dtype=torch.uint8).tolist() == [100]
    assert torch.logspace(2.4, 7, 1, dtype=torch.int16).tolist() == [251]
