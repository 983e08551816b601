"""Session 28 (lead): behaviour checked against torch itself in one process."""

from __future__ import annotations

import pytest

import minitorch

torch = pytest.importorskip("torch")


def test_torch_and_minitorch_tensors_do_not_mix_without_end():
    # torch hands its ops to minitorch.Tensor.__torch_function__ when a minitorch tensor is an
    # argument; running torch's op again would hand it back forever (RecursionError)
    a, b = torch.ones(2), minitorch.ones(2)
    with pytest.raises(TypeError, match="minitorch"):
        torch.add(a, b)
    with pytest.raises(TypeError, match="no implementation found for 'torch.nn.functional.relu'"):
        torch.nn.functional.relu(b)
    with pytest.raises(TypeError):
        a + b
    with pytest.raises(TypeError):
        b + a
    assert (a != b) is True  # both decline: Python's identity comparison, as for any object
