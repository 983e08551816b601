"""Session 38 (helper reqgrad): torch-free regression tests of the factories' keyword type
checks (torch's messages written as literals); see tests/reference/test_s38_reqgrad_reference.py."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch


def _msg(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda v: torch.tensor([1.0], requires_grad=v), "tensor"),
        (lambda v: torch.asarray([1.0], requires_grad=v), "asarray"),
        (lambda v: torch.asarray(torch.ones(2), requires_grad=v), "asarray"),
        (lambda v: torch.zeros(2, 3, requires_grad=v), "zeros"),
        (lambda v: torch.full((2,), 1.5, requires_grad=v), "full"),
        (lambda v: torch.ones_like(torch.ones(2), requires_grad=v), "ones_like"),
        (lambda v: torch.ones(2).new_zeros((2,), requires_grad=v), "new_zeros"),
        (lambda v: torch.ones(2).new_full((2,), 1.0, requires_grad=v), "new_full"),
        (lambda v: torch.ones(2).new_tensor([1.0], requires_grad=v), "new_tensor"),
        (lambda v: torch.range(0.0, 3.0, requires_grad=v), "range"),
        (lambda v: torch.empty_strided((2,), (1,), requires_grad=v), "empty_strided"),
        (lambda v: torch.scalar_tensor(1.5, requires_grad=v), "scalar_tensor"),
        (
            lambda v: torch.frombuffer(bytearray(8), dtype=torch.float32, requires_grad=v),
            "frombuffer",
        ),
    ],
)
@pytest.mark.filterwarnings("ignore::UserWarning")  # (range's deprecation)
def test_requires_grad_must_be_bool(call, op):
    for value, name in [
        (1, "int"),
        (0, "int"),
        ("yes", "str"),
        (np.bool_(True), "numpy.bool"),
        (1.0, "float"),
        (torch.tensor(True), "Tensor"),
        (torch.nn.Parameter(torch.ones(())), "Parameter"),
    ]:
        assert _msg(lambda value=value: call(value)) == (
            f"{op}(): argument 'requires_grad' must be bool, not {name}"
        )
    assert call(True).requires_grad and not call(False).requires_grad
    if op in ("tensor", "new_tensor", "range", "frombuffer"):
        assert _msg(lambda: call(None)) == (
            f"{op}(): argument 'requires_grad' must be bool, not NoneType"
        )
    else:
        assert not call(None).requires_grad


def test_requires_grad_type_comes_before_the_dtype_check():
    assert _msg(lambda: torch.zeros(2, dtype=torch.long, requires_grad=1)) == (
        "zeros(): argument 'requires_grad' must be bool, not int"
    )
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        torch.empty_strided((2,), (1,), dtype=torch.long, requires_grad=True)


def test_factory_named_from_inside_a_module_forward():
    class M(torch.nn.Module):
        def forward(self, x):
            return x + torch.zeros(2, requires_grad=np.bool_(True))

    assert _msg(lambda: M()(torch.ones(2))) == (
        "zeros(): argument 'requires_grad' must be bool, not numpy.bool"
    )


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda v: torch.tensor([1.0], pin_memory=v), "tensor"),
        (lambda v: torch.zeros(2, pin_memory=v), "zeros"),
        (lambda v: torch.empty_like(torch.ones(2), pin_memory=v), "empty_like"),
        (lambda v: torch.ones(2).new_ones((2,), pin_memory=v), "new_ones"),
        (lambda v: torch.ones(2).new_full((2,), 1.0, pin_memory=v), "new_full"),
        (lambda v: torch.empty_strided((2,), (1,), pin_memory=v), "empty_strided"),
        (lambda v: torch.scalar_tensor(1.0, pin_memory=v), "scalar_tensor"),
    ],
)
def test_pin_memory_must_be_bool(call, op):
    for value, name in [(1, "int"), (0, "int"), ("yes", "str"), (np.bool_(False), "numpy.bool")]:
        assert _msg(lambda value=value: call(value)) == (
            f"{op}(): argument 'pin_memory' must be bool, not {name}"
        )
    assert call(False).shape == call(None if op != "tensor" else False).shape
    if op == "tensor":
        assert _msg(lambda: call(None)) == (
            "tensor(): argument 'pin_memory' must be bool, not NoneType"
        )
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="no pinned memory allocator"):
            call(True)


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda v: torch.ones(2).new_zeros((2,), dtype=v), "new_zeros"),
        (lambda v: torch.ones(2).new_empty((2,), dtype=v), "new_empty"),
        (lambda v: torch.ones(2).new_full((2,), 1.0, dtype=v), "new_full"),
        (lambda v: torch.ones(2).new_tensor([1.0], dtype=v), "new_tensor"),
        (lambda v: torch.asarray([1.0], dtype=v), "asarray"),
        (lambda v: torch.empty_strided((2,), (1,), dtype=v), "empty_strided"),
        (lambda v: torch.zeros(2, dtype=v), "zeros"),
    ],
)
def test_dtype_error_names_the_factory_called(call, op):
    assert _msg(lambda: call("float32")) == (
        f"{op}(): argument 'dtype' must be torch.dtype, not str"
    )
    assert _msg(lambda: call(torch.ones(1))) == (
        f"{op}(): argument 'dtype' must be torch.dtype, not Tensor"
    )
    assert call(float).dtype is torch.float64


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda v: torch.tensor([1.0], device=v), "tensor"),
        (lambda v: torch.asarray([1.0], device=v), "asarray"),
        (lambda v: torch.full((2,), 1.0, device=v), "full"),
        (lambda v: torch.ones(2).new_zeros((2,), device=v), "new_zeros"),
        (lambda v: torch.empty_strided((2,), (1,), device=v), "empty_strided"),
    ],
)
def test_device_of_wrong_type(call, op):
    assert _msg(lambda: call(1.5)) == f"{op}(): argument 'device' must be torch.device, not float"
    assert _msg(lambda: call([0])) == f"{op}(): argument 'device' must be torch.device, not list"
    assert call("cpu:0").device == torch.device("cpu")


def test_new_empty_strided_flags_and_dtype():
    t = torch.ones(2)
    assert _msg(lambda: t.new_empty_strided((2,), (1,), pin_memory=1)) == (
        "new_empty_strided(): argument 'pin_memory' must be bool, not int"
    )
    assert _msg(lambda: t.new_empty_strided((2,), (1,), requires_grad="a")) == (
        "new_empty_strided(): argument 'requires_grad' must be bool, not str"
    )
    assert _msg(lambda: t.new_empty_strided((2,), (1,), dtype="a")) == (
        "new_empty_strided(): argument 'dtype' must be torch.dtype, not str"
    )
    assert t.new_empty_strided((2,), (1,), requires_grad=True).requires_grad
