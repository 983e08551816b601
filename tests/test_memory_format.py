"""Memory formats (NOTE [ Memory formats ]): torch.channels_last and friends exist, lay tensors out
as torch does (strides, is_contiguous), keep every value, and .grad follows its parameter's
layout (torch's gradient layout contract)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import minitorch as torch


def _x():
    return torch.arange(120.0).reshape(2, 3, 4, 5)


def test_formats_are_named_singletons():
    assert repr(torch.channels_last) == "torch.channels_last"
    assert repr(torch.contiguous_format) == "torch.contiguous_format"
    assert isinstance(torch.preserve_format, torch.memory_format)
    assert pickle.loads(pickle.dumps(torch.channels_last_3d)) is torch.channels_last_3d


def test_channels_last_strides_and_values():
    x = _x()
    y = x.contiguous(memory_format=torch.channels_last)
    assert y.stride() == (60, 1, 15, 3)
    assert not y.is_contiguous() and y.is_contiguous(memory_format=torch.channels_last)
    assert x.is_contiguous() and not x.is_contiguous(memory_format=torch.channels_last)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert y.contiguous(memory_format=torch.channels_last) is y
    assert y.contiguous().stride() == (60, 20, 5, 1)
    z = torch.arange(240.0).reshape(2, 3, 2, 4, 5).contiguous(memory_format=torch.channels_last_3d)
    assert z.stride() == (120, 1, 60, 15, 3)


def test_layout_follows_the_input_by_default():
    x = _x().contiguous(memory_format=torch.channels_last)
    assert x.clone().stride() == (60, 1, 15, 3)  # preserve_format
    assert torch.zeros_like(x).stride() == (60, 1, 15, 3)
    assert torch.empty_like(x).stride() == (60, 1, 15, 3)
    assert torch.full_like(x, 2.0).stride() == (60, 1, 15, 3)
    assert (x * 2).stride() == (60, 1, 15, 3)
    assert x.clone(memory_format=torch.contiguous_format).stride() == (60, 20, 5, 1)
    assert torch.ones_like(x, memory_format=torch.contiguous_format).stride() == (60, 20, 5, 1)
    t = torch.arange(6.0).reshape(2, 3).t()
    assert t.clone().stride() == (1, 3) and t.clone().tolist() == t.tolist()
    # overlapping: dense, the expanded dim outermost, the others in the input's order (torch's)
    assert t.expand(2, 3, 2).clone().stride() == (6, 1, 3)


def test_factories_and_to():
    assert torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride() == (60, 1, 15, 3)
    assert torch.zeros(2, 3, 4, 5, memory_format=torch.channels_last).sum().item() == 0
    x = _x().requires_grad_()
    y = x.to(memory_format=torch.channels_last)
    assert y.stride() == (60, 1, 15, 3) and y.grad_fn is not None
    (y * torch.arange(5.0)).sum().backward()  # gradients flow through the relayout
    np.testing.assert_array_equal(x.grad.numpy(), np.broadcast_to(np.arange(5.0), (2, 3, 4, 5)))
    assert x.to(torch.float64, memory_format=torch.channels_last).stride() == (60, 1, 15, 3)


def test_errors_as_torch():
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        torch.zeros(3, 4, 5).contiguous(memory_format=torch.channels_last)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        _x().transpose(1, 2).contiguous(memory_format=torch.preserve_format)
    assert _x().contiguous(memory_format=torch.preserve_format).is_contiguous()
    with pytest.raises(TypeError, match="must be torch.memory_format, not str"):
        _x().is_contiguous(memory_format="channels_last")


def test_module_to_channels_last_converts_4d_tensors_only():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3), torch.nn.Flatten(), torch.nn.Linear(144, 2)
    )
    x = torch.randn(2, 3, 8, 8)
    before = model(x).detach()
    model = model.to(memory_format=torch.channels_last)
    assert model[0].weight.stride() == (27, 1, 9, 3)
    assert model[2].weight.stride() == (144, 1)
    out = model(x.to(memory_format=torch.channels_last))
    np.testing.assert_allclose(out.detach().numpy(), before.numpy(), rtol=1e-5, atol=1e-6)
    out.sum().backward()
    assert model[0].weight.grad.stride() == model[0].weight.stride()


def test_grad_has_its_parameters_layout():
    """A conv computes its weight gradient transposed; .grad still has the weight's strides, so
    the flattening idiom p.grad.view(-1) works as in torch."""
    torch.manual_seed(1)
    conv = torch.nn.Conv2d(3, 4, 3)
    conv(torch.randn(2, 3, 8, 8)).sum().backward()
    assert conv.weight.grad.stride() == conv.weight.stride() == (27, 9, 3, 1)
    flat = torch.cat([p.grad.view(-1) for p in conv.parameters()])
    assert flat.shape == (4 * 27 + 4,)
