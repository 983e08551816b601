"""Session 54, lead: in-place arithmetic with a Python number on the fast path (inplace.py
_fast_inplace's number branch: x.mul_(beta2), denom.add_(eps), step.add_(1) in an optimizer).
Where nothing is recorded, a plain CPU float32/float64 tensor takes the number straight into its
memory; the result, its layout and its version must be the general path's, and everything else
(half precision, a graph to record, an int beyond torch's Scalar range) must still take the
general path with its results and errors."""

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import inplace

OPS = {"add_": np.add, "sub_": np.subtract, "mul_": np.multiply, "div_": np.true_divide}
UFUNC_NAMES = {"add_": "add", "sub_": "subtract", "mul_": "multiply", "div_": "true_divide"}
NUMBERS = (0.999, -2.5, 3, 0, 1e-8, float("inf"))


class _Kernels:
    """Counts the calls of _fast_inplace's host kernels (only the fast branches call them)."""

    def __init__(self, monkeypatch):
        self.calls = []
        for name, ufunc in list(inplace._CPU_UFUNCS.items()):
            monkeypatch.setitem(inplace._CPU_UFUNCS, name, self._spy(name, ufunc))

    def _spy(self, name, ufunc):
        def spy(*args, **kwargs):
            self.calls.append(name)
            return ufunc(*args, **kwargs)

        return spy


def _tensor(dtype, shape=(3, 4)):
    g = torch.Generator().manual_seed(0)
    return torch.randn(shape, generator=g, dtype=dtype)


@pytest.mark.parametrize("number", NUMBERS, ids=repr)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("op", list(OPS))
def test_a_number_goes_straight_into_a_float_tensor(op, dtype, number, monkeypatch):
    x = _tensor(dtype)
    before = x.numpy().copy()
    version = x._version
    kernels = _Kernels(monkeypatch)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = getattr(x, op)(number)
        want = OPS[op](before, number)  # NumPy's weak number: computed in x's dtype
    assert out is x
    assert kernels.calls == [UFUNC_NAMES[op]]
    assert x._version == version + 1
    assert want.dtype == before.dtype
    np.testing.assert_array_equal(x.numpy(), want)


def test_a_zero_dim_step_counter_and_a_view_under_no_grad_take_it(monkeypatch):
    kernels = _Kernels(monkeypatch)
    step = torch.tensor(4.0)
    step.add_(1)
    assert step.item() == 5.0 and step._version == 1
    base = _tensor(torch.float32).requires_grad_()
    with torch.no_grad():
        view = base.t()
        view.mul_(2)  # writes through the transposed view into the base
    assert kernels.calls == ["add", "multiply"]
    assert base._version == 1 and view._version == 1
    np.testing.assert_array_equal(base.detach().numpy(), _tensor(torch.float32).numpy() * 2)


def test_a_graph_to_record_or_half_precision_takes_the_general_path(monkeypatch):
    kernels = _Kernels(monkeypatch)
    leaf = _tensor(torch.float64).requires_grad_()
    y = leaf.clone()
    y.mul_(3.0)  # recorded: the general path's node
    assert type(y.grad_fn).__name__ == "MulBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), np.full((3, 4), 3.0))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.add_(1.0)
    h = _tensor(torch.float16)
    h.mul_(0.1)
    assert kernels.calls == []


@pytest.mark.parametrize(
    ("number", "message"),
    [
        (2**64, "int too big to convert"),
        (2**70, "int too big to convert"),
        (-(2**63) - 1, "can't convert negative int to unsigned"),
    ],
)
def test_an_int_beyond_torchs_scalar_range_is_refused(number, message):
    x = _tensor(torch.float32)
    before = x.numpy().copy()
    with pytest.raises(OverflowError, match=message):
        x.add_(number)
    np.testing.assert_array_equal(x.numpy(), before)
    assert x._version == 0


def test_the_ints_at_torchs_scalar_range_ends_are_taken():
    x = torch.zeros(2, dtype=torch.float64)
    x.add_(2**64 - 1)
    x.sub_(-(2**63))
    np.testing.assert_array_equal(x.numpy(), np.full(2, 2.0**64 + 2.0**63))
