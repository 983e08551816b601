"""Session 23: strides of views over size-0 and size-1 dims, as torch gives them (expected values
obtained by running torch 2.13.0)."""

import minitorch as torch


def test_channels_last_empty_strides():
    x = torch.empty(3, 0, 2, 1).contiguous(memory_format=torch.channels_last)
    assert x.stride() == (0, 1, 0, 0)
    assert x.is_contiguous(memory_format=torch.channels_last)
    y = torch.empty(2, 3, 0, 4, memory_format=torch.channels_last)
    assert y.stride() == (0, 1, 12, 3)
    z = torch.empty(3, 3, 1, 0, 1).contiguous(memory_format=torch.channels_last_3d)
    assert z.stride() == (0, 1, 0, 3, 3)


def test_empty_reshape_keeps_strides_through_permute():
    assert torch.arange(0.0).reshape(0, 2).permute(1, 0).stride() == (1, 2)
    assert torch.arange(0.0).reshape(2, 0, 3).permute(2, 0, 1).stride() == (1, 3, 3)


def test_expand_keeps_size_one_strides():
    assert torch.arange(1.0).reshape(1, 1, 1, 1).expand(4, 1, 3, 1).stride() == (0, 1, 0, 1)
    assert torch.arange(4.0).reshape(2, 1, 2)[:, :, 1:].expand(3, 2, 1, 1).stride() == (0, 2, 2, 1)
    assert torch.empty(0, 3).expand(2, 0, 3).stride() == (0, 3, 1)
    x = torch.tensor([1.0, 2.0])
    y = x.expand(1, 1, 2)
    assert y.stride() == (2, 2, 1)
    y.fill_(5.0)  # still a view of x's memory
    assert x.tolist() == [5.0, 5.0]


def test_unsqueeze_strides():
    x = torch.arange(12.0).reshape(3, 2, 1, 2).contiguous(memory_format=torch.channels_last).mH
    assert x.unsqueeze(4).stride() == (4, 1, 2, 4, 1)
    assert x.unsqueeze(0).stride() == (12, 4, 1, 2, 4)
    t = torch.arange(6.0).reshape(2, 3).t()
    assert t.unsqueeze(1).stride() == (1, 6, 3)
    assert t.unsqueeze(2).stride() == (1, 3, 1)
    u = t.unsqueeze(1)
    u[1, 0, 1] = -1.0  # still a view
    assert t[1, 1].item() == -1.0
