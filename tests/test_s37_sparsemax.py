"""Session 37 (helper sparsemax): torch-free regression tests of the library fixes the sparse and
discrete activation programs of tests/reference/test_s37_sparsemax_reference.py found: a
bfloat16 clamp with number bounds is one ClampBackward1 node over the bfloat16 input (it was a
float32 clamp under a ToCopyBackward0, which clamp_min/clamp_max then renamed), and relu6 names
itself in its TypeError for an input that is no tensor. torch's messages and node names are
written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional


@pytest.mark.parametrize(
    "fn, node, bounds",
    [
        (lambda x: x.clamp(-1.0, 1.0), "ClampBackward1", (-1.0, 1.0)),
        (lambda x: x.clamp(min=0.1), "ClampBackward1", (0.1, None)),
        (lambda x: mt.clip(x, max=-0.7), "ClampBackward1", (None, -0.7)),
        (lambda x: x.clamp_min(0.1), "ClampMinBackward0", (0.1, None)),
        (lambda x: mt.clamp_max(x, 0.3), "ClampMaxBackward0", (None, 0.3)),
    ],
)
def test_bfloat16_clamp_is_one_node(fn, node, bounds):
    vals = [-1.5, 0.0, 0.1, 0.3, 2.0, -0.7, 1.0]
    x = mt.tensor(vals, dtype=mt.bfloat16, requires_grad=True)
    y = fn(x)
    assert y.dtype is mt.bfloat16
    assert type(y.grad_fn).__name__ == node
    assert y.grad_fn._saved_self is x  # the bfloat16 input, not a float32 copy
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    # the values: float32's clamp rounded to bfloat16; the gradient passes at the bounds
    lo = -np.inf if bounds[0] is None else bounds[0]
    hi = np.inf if bounds[1] is None else bounds[1]
    ref = np.clip(np.array(vals, dtype=np.float32), np.float32(lo), np.float32(hi))
    want = mt.tensor(ref.tolist(), dtype=mt.bfloat16).float().numpy()
    np.testing.assert_array_equal(y.detach().float().numpy(), want)
    y.backward(mt.arange(1.0, 8.0).to(mt.bfloat16))
    x32 = np.array(vals, dtype=np.float32)
    inside = (x32 >= np.float32(lo)) & (x32 <= np.float32(hi))
    np.testing.assert_array_equal(x.grad.float().numpy(), np.where(inside, np.arange(1.0, 8.0), 0))


def test_bfloat16_clamp_double_backward():
    x = mt.tensor([-2.0, 0.5, 3.0], dtype=mt.bfloat16, requires_grad=True)
    (g,) = mt.autograd.grad((x.clamp(-1.0, 1.0) * x).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().float().numpy(), [-1.0, 1.0, 1.0])
    (gg,) = mt.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(gg.float().numpy(), [0.0, 2.0, 0.0])


def test_relu6_names_itself_for_a_non_tensor():
    with pytest.raises(TypeError) as info:
        F.relu6([1.0])
    assert str(info.value) == "relu6(): argument 'input' (position 1) must be Tensor, not list"
    # the module goes through hardtanh, as torch's nn.ReLU6 (a Hardtanh)
    with pytest.raises(TypeError) as info:
        mt.nn.ReLU6()([1.0])
    assert str(info.value) == "hardtanh(): argument 'input' (position 1) must be Tensor, not list"


@pytest.mark.parametrize(
    "fn, node, threshold",
    [
        (F.hardsigmoid, "HardsigmoidBackward0", None),
        (lambda t: F.hardswish(t, inplace=True), "HardswishBackward0", None),
        (lambda t: F.threshold(t, 0.5, -1.0), "ThresholdBackward0", "0.5"),
        (lambda t: F.threshold_(t, 1, 0), "ThresholdBackward1", "1"),
    ],
)
def test_kink_activation_nodes_show_what_they_save(fn, node, threshold):
    x = mt.tensor([-3.5, -1.5, 0.3, 2.0, 3.0], requires_grad=True)
    z = x * 1.0
    y = fn(z)
    n = y.grad_fn
    assert type(n).__name__ == node
    names = [k for k in dir(n) if k.startswith("_saved_")]
    assert names == (["_saved_self"] if threshold is None else ["_saved_self", "_saved_threshold"])
    # the input before an in-place form changed it (torch keeps the original)
    np.testing.assert_array_equal(n._saved_self.detach().numpy(), x.detach().numpy())
    assert type(n._raw_saved_self).__name__ == "SavedTensor"
    if threshold is not None:
        assert repr(n._saved_threshold) == threshold
