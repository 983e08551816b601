"""Session 34 (helper ibp): torch-free regression tests of the library fixes the verification and
certified-robustness programs of tests/reference/test_s34_ibp_reference.py found: the _saved_*
attributes of the clamp family's, where's, hardtanh's, leaky_relu's and the convolutions'
nodes (which graph walkers read), relu6's int bounds, Hardtanh's bound check (torch's message,
a NaN bound passes) and deprecation text, and the Conv repr with a kernel_size of the wrong
length. torch's messages and values are written here as literals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional


def _x(seed=0):
    g = mt.Generator().manual_seed(seed)
    return mt.randn(3, 4, generator=g, dtype=mt.float64).requires_grad_()


def _saved(node):
    return sorted(k for k in dir(node) if k.startswith("_saved_"))


@pytest.mark.parametrize(
    "make, name, keys, bounds",
    [
        (lambda x: x.clamp(-0.5, 0.5), "ClampBackward1", ["max", "min", "self"], (-0.5, 0.5)),
        (lambda x: mt.clamp(x, min=0), "ClampBackward1", ["max", "min", "self"], (0, None)),
        (lambda x: x.clip(max=2), "ClampBackward1", ["max", "min", "self"], (None, 2)),
        (lambda x: x.clamp_min(0.25), "ClampMinBackward0", ["min", "self"], (0.25, None)),
        (lambda x: mt.clamp_max(x, 1.5), "ClampMaxBackward0", ["max", "self"], (None, 1.5)),
    ],
)
def test_clamp_number_bounds_are_saved(make, name, keys, bounds):
    x = _x()
    node = make(x).grad_fn
    assert type(node).__name__ == name
    assert _saved(node) == [f"_saved_{k}" for k in keys]
    assert node._saved_self is x
    for key, value in zip(("min", "max"), bounds, strict=True):
        if key in keys:
            got = getattr(node, f"_saved_{key}")
            assert got == value and type(got) is type(value), (key, got)
        else:
            with pytest.raises(AttributeError, match=f"object has no attribute '_saved_{key}'"):
                getattr(node, f"_saved_{key}")


def test_clamp_tensor_bounds_are_saved():
    x = _x(1)
    lo = mt.zeros(4, dtype=mt.float64)
    hi = mt.ones(4, dtype=mt.float64)
    node = x.clamp(lo, hi).grad_fn
    assert type(node).__name__ == "ClampBackward0"
    assert _saved(node) == ["_saved_max", "_saved_min", "_saved_self"]
    np.testing.assert_array_equal(node._saved_min.numpy(), lo.numpy())
    np.testing.assert_array_equal(node._saved_max.numpy(), hi.numpy())
    assert mt.clamp(x, min=lo).grad_fn._saved_max is None
    one_sided = x.clamp_max(hi).grad_fn
    assert type(one_sided).__name__ == "ClampMaxBackward1"
    assert _saved(one_sided) == ["_saved_max", "_saved_self"]
    assert "_raw_saved_min" not in dir(one_sided)
    with pytest.raises(AttributeError):
        one_sided._saved_min  # noqa: B018


def test_clamp_inplace_node_saves_the_bounds():
    y = _x(2) * 1
    y.clamp_(0, 1)
    assert type(y.grad_fn).__name__ == "ClampBackward1"
    assert (y.grad_fn._saved_min, y.grad_fn._saved_max) == (0, 1)


def test_where_saves_its_condition():
    x = _x(3)
    cond = x > 0
    node = mt.where(cond, x, 0.0).grad_fn
    assert _saved(node) == ["_saved_condition"]
    assert "_raw_saved_condition" in dir(node)
    np.testing.assert_array_equal(node._saved_condition.numpy(), cond.numpy())


def test_hardtanh_and_relu6_save_their_bounds():
    x = _x(4)
    node = F.hardtanh(x, -0.25, 0.75).grad_fn
    assert _saved(node) == ["_saved_max_val", "_saved_min_val", "_saved_self"]
    assert (node._saved_min_val, node._saved_max_val) == (-0.25, 0.75)
    node = F.relu6(x).grad_fn
    # torch's relu6 passes int bounds: repr 0 and 6, not 0.0 and 6.0
    assert repr((node._saved_min_val, node._saved_max_val)) == "(0, 6)"
    np.testing.assert_array_equal(
        F.relu6(x * 4).detach().numpy(), (x * 4).clamp(0, 6).detach().numpy()
    )


def test_leaky_relu_saves_its_slope():
    x = _x(5)
    node = F.leaky_relu(x, 0.05).grad_fn
    assert _saved(node) == ["_saved_negative_slope", "_saved_self"]
    assert node._saved_negative_slope == 0.05
    assert node._saved_self is x
    y = x * 1
    F.leaky_relu(y, 0.2, inplace=True)
    assert type(y.grad_fn).__name__ == "LeakyReluBackward1"
    assert y.grad_fn._saved_negative_slope == 0.2
    # torch's in-place node saves the result, not self: self is not shown
    assert "_saved_self" not in _saved(y.grad_fn)


def test_hardtanh_module_checks_as_torch():
    with pytest.raises(AssertionError) as info:
        mt.nn.Hardtanh(1.0, 1.0)
    assert str(info.value) == "max_val (1.0) must be greater than min_val (1.0)"
    with pytest.raises(AssertionError, match=r"^max_val \(-0.5\) must be greater"):
        mt.nn.Hardtanh(0.5, -0.5)
    assert repr(mt.nn.Hardtanh(float("nan"), 1.0)) == "Hardtanh(min_val=nan, max_val=1.0)"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mt.nn.Hardtanh(min_value=-2.0, max_value=2.0)
    assert [str(w.message) for w in caught] == [
        "keyword argument `min_value` is deprecated and renamed to `min_val`",
        "keyword argument `max_value` is deprecated and renamed to `max_val`",
    ]


def test_conv_repr_compares_each_tuple_with_its_own_length():
    mt.manual_seed(0)
    assert (
        repr(mt.nn.Conv2d(3, 4, (3, 3, 3))) == "Conv2d(3, 4, kernel_size=(3, 3, 3), stride=(1, 1))"
    )
    assert repr(mt.nn.Conv2d(3, 4, 3, padding=1)) == (
        "Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))"
    )


def test_convolution_node_saves_its_geometry():
    g = mt.Generator().manual_seed(6)
    x = mt.rand(1, 2, 7, 7, generator=g, dtype=mt.float64).requires_grad_()
    w = mt.randn(4, 2, 3, 3, generator=g, dtype=mt.float64)
    node = F.conv2d(x, w, mt.zeros(4, dtype=mt.float64), stride=(2, 1), padding=(0, 2)).grad_fn
    assert type(node).__name__ == "ConvolutionBackward0"
    assert _saved(node) == [
        "_saved_bias_sym_sizes_opt",
        "_saved_dilation",
        "_saved_groups",
        "_saved_input",
        "_saved_output_padding",
        "_saved_padding",
        "_saved_stride",
        "_saved_transposed",
        "_saved_weight",
    ]
    assert node._saved_input is x and node._saved_weight is w
    got = [getattr(node, f"_saved_{k}") for k in ("stride", "padding", "dilation", "groups")]
    assert got == [(2, 1), (0, 2), (1, 1), 1]
    assert (node._saved_transposed, node._saved_output_padding) == (False, (0, 0))
    assert node._saved_bias_sym_sizes_opt == (4,)
    node = F.conv_transpose2d(x, w.transpose(0, 1), stride=3, padding=1, output_padding=2).grad_fn
    assert (node._saved_transposed, node._saved_output_padding) == (True, (2, 2))
    assert (node._saved_padding, node._saved_bias_sym_sizes_opt) == ((1, 1), (0,))
    node = F.conv1d(x[:, :, 0], w[:, :, 0], padding="same").grad_fn
    assert (node._saved_stride, node._saved_padding) == ((1,), (1,))


def test_modified_saved_mask_names_the_backend_type():
    # torch names a saved tensor of a dtype with no legacy class (bool, bfloat16) by its
    # backend type: CPUBoolType, not torch.BoolTensor
    x = _x(7)
    mask = x > 0
    y = mt.where(mask, x, 0.0)
    mask.logical_not_()
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert "modified by an inplace operation: [CPUBoolType [3, 4]] is at version 1;" in str(
        info.value
    )
    b = mt.ones(3, dtype=mt.bfloat16, requires_grad=True)
    e = b.exp()
    e.add_(1)
    with pytest.raises(RuntimeError, match=r"\[CPUBFloat16Type \[3\]\], which is output 0 of"):
        e.sum().backward()
    d = _x(8) * 1
    s = d.sigmoid()
    s.mul_(2)
    with pytest.raises(RuntimeError, match=r"\[torch\.DoubleTensor \[3, 4\]\], which is output"):
        s.sum().backward()


def test_dot_node_saves_what_the_other_gradient_needs():
    g = mt.Generator().manual_seed(9)
    u = mt.randn(3, generator=g, dtype=mt.float64).requires_grad_()
    v = mt.randn(3, generator=g, dtype=mt.float64)
    node = mt.dot(u, v).grad_fn
    assert type(node).__name__ == "DotBackward0"
    assert _saved(node) == ["_saved_self", "_saved_tensor"]
    assert node._saved_self is None and node._saved_tensor is v
    assert mt.dot(v, u).grad_fn._saved_self is v
    # torch's vdot names them self and other: none shown rather than the wrong names
    assert _saved(mt.vdot(u, v).grad_fn) == []
