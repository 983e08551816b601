"""Session 30 (helper review): torch-free regression tests of the review's library fixes, with
torch 2.13's values and messages written as literals (the comparisons with torch are in
tests/reference/test_s30_review_reference.py)."""

from __future__ import annotations

import math

import pytest

import minitorch as mt

F = mt.nn.functional


def _modified_message(dtype_name: str, op: str) -> str:
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{dtype_name} [3]], which is output 0 of {op}, is at version 1; expected "
        "version 0 instead. Hint: enable anomaly detection to find the operation that failed to "
        "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


@pytest.mark.parametrize(
    "device, name",
    [("meta", "MetaFloatType"), ("cpu", "torch.FloatTensor"), ("strict", "torch.FloatTensor")],
)
def test_a_saved_output_changed_in_place_names_its_device_type(device, name):
    # the saved output is kept as an array: its device comes from the node's backend
    a = mt.ones(3, device=device, requires_grad=True)
    s = a.sigmoid()
    s.mul_(2)
    with pytest.raises(RuntimeError) as e:
        s.sum().backward()
    assert str(e.value) == _modified_message(name, "Sigmoid")


def test_a_saved_meta_input_changed_in_place_names_meta_type():
    a = mt.ones(3, device="meta", requires_grad=True)
    b = a * 1
    c = b.exp()  # saves its result
    c.add_(1)
    with pytest.raises(RuntimeError, match=r"\[MetaFloatType \[3\]\], which is output 0 of Exp"):
        c.sum().backward()


VALS = [1.0, math.nan, -math.nan, 500.0, 0.3, math.inf, -1e6, 0.0017, 2.0**-127]
BITS = {  # torch 2.13: x.to(dtype).view(torch.uint8)
    "float8_e4m3fn": [56, 127, 255, 126, 42, 126, 254, 1, 0],
    "float8_e5m2": [60, 127, 255, 96, 53, 124, 252, 23, 0],
    "float8_e8m0fnu": [127, 255, 255, 136, 125, 255, 147, 118, 0],
    "float8_e5m2fnuz": [64, 128, 128, 100, 57, 128, 128, 27, 0],
}


@pytest.mark.parametrize("name", sorted(BITS))
@pytest.mark.parametrize("src", ["float32", "float64"])
def test_float8_casts_stay_on_the_device(name, src):
    # cast_to_float8 read device arrays on the host (np.asarray, a NaN test by .any())
    x = mt.tensor(VALS, dtype=getattr(mt, src), device="strict")
    y = x.to(getattr(mt, name))
    assert y.device.type == "strict"
    assert y.view(mt.uint8).cpu().tolist() == BITS[name]
    assert (
        mt.tensor(VALS, dtype=getattr(mt, src)).to(getattr(mt, name)).view(mt.uint8).tolist()
        == BITS[name]
    )


def test_float8_zero_dim_cast_and_matmul_on_the_device():
    assert mt.tensor(3.0, device="strict").to(mt.float8_e4m3fn).cpu().item() == 3.0
    assert mt.tensor(1e4, device="strict").to(mt.float8_e4m3fn).cpu().item() == 448.0
    a = mt.tensor([[1.0, 2.0], [3.0, 4.0]], device="strict").to(mt.float8_e4m3fn)
    assert mt.mm(a, a).float().cpu().tolist() == [[7.0, 10.0], [15.0, 22.0]]


def test_linear_of_a_matrix_with_a_matrix_bias_is_one_addmm():
    # torch: F.linear of a 2-D input runs addmm whatever the bias's shape
    x = mt.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    w = mt.tensor([[1.0, -1.0], [0.5, 2.0]], requires_grad=True)
    b = mt.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], requires_grad=True)
    y = F.linear(x, w, b)
    assert y.grad_fn.name() == "AddmmBackward0"
    assert y.tolist() == [[-1.0, 5.5], [1.0, 12.5], [3.0, 19.5]]
    (y**2).sum().backward()
    assert b.grad.tolist() == [[-2.0, 11.0], [2.0, 25.0], [6.0, 39.0]]
    assert w.grad.tolist() == [[34.0, 40.0], [281.0, 356.0]]
    col = mt.tensor([[1.0], [2.0], [3.0]])
    assert F.linear(x, w, col).grad_fn.name() == "AddmmBackward0"
    with pytest.raises(RuntimeError) as e:
        F.linear(x, w, mt.zeros(3, 3))
    assert str(e.value) == (
        "The expanded size of the tensor (2) must match the existing size (3) at non-singleton "
        "dimension 1.  Target sizes: [3, 2].  Tensor sizes: [3, 3]"
    )
