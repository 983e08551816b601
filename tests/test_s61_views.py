"""Session 61: a view taken under no_grad of a leaf that requires grad follows its base's
requires_grad afterwards, as torch's view reads its base's flag: it stops requiring grad with the
base (no hook can be registered on it, an in-place change of it is no longer refused) and starts
again with it (NOTE [ Views and grad mode ]; tests/reference/test_s61_views_reference.py compares
with torch)."""

import pytest

import minitorch as torch

NO_GRAD_VIEW = "A view was created in no_grad mode and is being modified inplace"


def _view(mode=torch.no_grad):
    a = torch.ones(3, requires_grad=True)
    with mode():
        v = a[:2]
        vv = v[:1]
    return a, v, vv


def test_it_stops_requiring_grad_with_its_base():
    a, v, vv = _view()
    assert v.requires_grad and vv.requires_grad
    a.requires_grad_(False)
    assert not v.requires_grad and not vv.requires_grad and v.is_leaf
    assert not (v * 2).requires_grad
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't"):
        v.register_hook(lambda g: g)
    v.mul_(2)  # nothing to record: allowed, as any change of a tensor that needs no gradient
    assert a.tolist() == [2.0, 2.0, 1.0] and a._version == 1


def test_an_operand_that_requires_grad_is_still_refused():
    a, v, _ = _view()
    a.requires_grad_(False)
    with pytest.raises(RuntimeError, match=NO_GRAD_VIEW):
        v.mul_(torch.ones(2, requires_grad=True))


def test_it_starts_again_with_its_base_and_is_refused_again():
    a, v, _ = _view()
    a.requires_grad_(False)
    a.requires_grad_(True)
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    with pytest.raises(RuntimeError, match=NO_GRAD_VIEW):
        v.mul_(2)


def test_its_own_flag_stays():
    a, v, _ = _view()
    v.requires_grad_(True)
    a.requires_grad_(False)
    assert v.requires_grad


def test_an_inference_mode_view_follows_too():
    a, v, _ = _view(torch.inference_mode)
    a.requires_grad_(False)
    assert not v.requires_grad


@pytest.mark.parametrize("nonleaf", [False, True])
def test_it_stops_requiring_grad_when_its_base_is_detached_in_place(nonleaf):
    a = torch.ones(2, 3, requires_grad=True)
    base = a * 2 if nonleaf else a
    with torch.no_grad():
        v, u = base[0], base.unbind(1)[2]
    base.detach_()
    assert not v.requires_grad and not u.requires_grad and not (v * 2).requires_grad


def test_a_view_with_history_keeps_it_when_its_base_is_detached_in_place():
    base = torch.ones(2, 3, requires_grad=True) * 2
    v = base[0]
    base.detach_()
    assert v.requires_grad and v.grad_fn.name() == "SelectBackward0"


def test_detach_in_inference_mode_leaves_the_tensor_as_it_is():
    a = torch.ones(3, requires_grad=True)
    y = a * 2
    v = y[:2]
    with torch.inference_mode():
        assert y.detach_() is y and a.detach_() is a
        v.detach_()  # (not refused for a view either: the mode skips autograd's kernels)
    assert y.requires_grad and y.grad_fn is not None and a.requires_grad and v.requires_grad
    (y.sum() + a.sum()).backward()
    assert a.grad.tolist() == [3.0, 3.0, 3.0]


def _view_that_gained_history():
    c = torch.ones(2, 3, dtype=torch.float64)
    b = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    v = c[0]
    v.mul_(b)  # v's grad_fn is made when next asked for
    return c, b, v


def test_a_hook_on_a_view_that_gained_history_runs():
    _, b, v = _view_that_gained_history()
    v.register_hook(lambda g: g * 100)
    (v * 5).sum().backward()
    assert b.grad.tolist() == [500.0, 500.0, 500.0]


def test_a_view_that_gained_history_retains_its_grad():
    _, b, v = _view_that_gained_history()
    v.retain_grad()
    (v * 5).sum().backward()
    assert v.retains_grad and v.grad.tolist() == [5.0, 5.0, 5.0]
    assert b.grad.tolist() == [5.0, 5.0, 5.0]
