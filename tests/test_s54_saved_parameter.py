"""Session 54, lead: a Parameter a built-in op saves (layer_norm's weight, conv's) is packed on
apply's inlined path as a plain tensor is (function.py _apply_recording): the same saved entry
_pack_saved makes, version-checked at backward with torch's error."""

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import function


def _layer():
    torch.manual_seed(0)
    ln = torch.nn.LayerNorm(4)
    with torch.no_grad():
        ln.weight.mul_(torch.arange(1.0, 5.0))
    return ln


def test_a_saved_parameter_is_an_input_entry_with_its_version(monkeypatch):
    general = []
    monkeypatch.setattr(function, "_pack_saved", lambda *a, **k: general.append(a))
    ln = _layer()
    x = torch.randn(3, 4, requires_grad=True)
    out = ln(x)
    assert general == []  # the inlined packing, not _pack_saved
    entries = [e for e in out.grad_fn._saved if e is not None]
    kinds = [(e[0], e[1] is ln.weight, e[2] is ln.weight._vc, e[3]) for e in entries]
    assert ("in", True, True, ln.weight._version) in kinds
    assert out.grad_fn._saved_weight is ln.weight


def test_a_saved_parameter_changed_in_place_is_refused_at_backward():
    ln = _layer()
    x = torch.randn(3, 4, requires_grad=True)
    out = ln(x)
    v = ln.weight._version
    with torch.no_grad():
        ln.weight.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as e:
        out.sum().backward()
    want = f"[torch.FloatTensor [4]] is at version {v + 1}; expected version {v} instead"
    assert want in str(e.value)


def test_gradients_through_a_saved_parameter_are_unchanged():
    ln = _layer()
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    ln = ln.double()
    assert torch.autograd.gradcheck(
        lambda a, w, b: torch.nn.functional.layer_norm(a, (4,), w, b), (x, ln.weight, ln.bias)
    )
    g = torch.randn(3, 4, dtype=torch.float64)
    ln(x).backward(g)
    xhat = (x - x.mean(1, keepdim=True)) / (x.var(1, unbiased=False, keepdim=True) + 1e-5).sqrt()
    np.testing.assert_allclose(ln.bias.grad.numpy(), g.sum(0).numpy())
    np.testing.assert_allclose(ln.weight.grad.numpy(), (g * xhat).sum(0).detach().numpy())
