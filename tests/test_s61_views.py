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
