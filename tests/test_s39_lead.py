"""Session 39 (lead): the nodes' saved-value attributes as descriptors of the node classes.

grad_fn._saved_<name> / _raw_saved_<name> used to be answered by Node.__getattr__; a class with
__getattr__ loses CPython's fast attribute loads, and the engine reads the nodes' attributes on
every op. They are now descriptors made with each node class (NOTE [ Saved values as attributes ]
in minitorch/autograd/function.py); what a node shows, hides and says is unchanged.
"""

import pytest

import minitorch as torch


def _no_getattr_hook(cls) -> bool:
    return not any("__getattr__" in vars(k) for k in cls.__mro__)


def test_node_classes_keep_fast_attribute_loads():
    torch.manual_seed(0)
    x = torch.randn(3, requires_grad=True)
    nodes = [(x * 2).grad_fn, (x @ torch.randn(3)).grad_fn, torch.clamp_min(x, 0.5).grad_fn]
    for g in nodes:
        assert _no_getattr_hook(type(g)), type(g).__name__


def test_saved_values_read_as_before():
    torch.manual_seed(0)
    x = torch.randn(3, requires_grad=True, dtype=torch.float64)
    y = torch.randn(3, dtype=torch.float64)
    g = (x * y).grad_fn
    assert g._saved_self is None  # x * y saves x only for y's gradient (y needs none)
    assert g._saved_other is y
    assert g._raw_saved_other.__class__.__name__ == "SavedTensor"
    assert (x.pow(3)).grad_fn._saved_exponent == 3
    assert (x * 2).grad_fn._saved_other.dtype == torch.int64  # a number shows as a tensor
    with pytest.raises(AttributeError, match="'MulBackward0' object has no attribute '_saved_foo'"):
        _ = g._saved_foo


def test_a_node_hides_the_names_it_does_not_answer():
    x = torch.randn(3, requires_grad=True)
    g = torch.clamp_min(x, torch.tensor(0.5)).grad_fn
    assert type(g).__name__ == "ClampMinBackward1"
    names = [n for n in dir(g) if n.startswith(("_saved_", "_raw_saved_"))]
    assert names == ["_raw_saved_min", "_raw_saved_self", "_saved_min", "_saved_self"]
    for name in ("_saved_max", "_raw_saved_max"):
        msg = f"'ClampMinBackward1' object has no attribute '{name}'"
        with pytest.raises(AttributeError, match=msg):
            getattr(g, name)
    assert not hasattr(g, "_saved_max")
    assert float(g._saved_min) == 0.5
    both = torch.clamp(x, min=torch.tensor(0.5)).grad_fn  # ClampBackward0 shows both bounds
    assert both._saved_max is None
    assert "_raw_saved_max" in dir(both)
