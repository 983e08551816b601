"""Grad-mode switches as torch's: inference_mode(False) turns grad mode on; set_grad_enabled
takes a bool only and shows torch's repr."""

import numpy as np
import pytest

import minitorch as torch


def test_inference_mode_false_turns_grad_mode_on_inside_no_grad_and_inference_mode():
    w = torch.ones(2, requires_grad=True)
    for outer in (torch.no_grad, torch.inference_mode):
        with outer():
            with torch.inference_mode(False):
                assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
                assert (w * 2).requires_grad
            assert not torch.is_grad_enabled()

    @torch.inference_mode(False)
    def step():
        return (w * 2).sum()

    with torch.no_grad():
        loss = step()
    loss.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0])
    with torch.inference_mode(mode=False):
        assert torch.is_grad_enabled()


def test_set_grad_enabled_takes_a_bool_only_and_shows_torchs_repr():
    assert repr(torch.set_grad_enabled(False)) == (
        "torch.autograd.grad_mode.set_grad_enabled(mode=False)"
    )
    torch.set_grad_enabled(True)
    for bad, name in (
        ("no", "str"),
        (0, "int"),
        (None, "NoneType"),
        (np.bool_(True), "numpy.bool"),
    ):
        with pytest.raises(TypeError, match=f"must be bool, not {name}"):
            torch.set_grad_enabled(bad)
    assert torch.is_grad_enabled()
