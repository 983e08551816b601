"""Fixes found by session 22's differential fuzzers outside the helpers' own files."""

import minitorch as torch


def test_clone_channels_last_copies_an_input_already_in_that_layout():
    # torch: clone always copies; a channels_last clone of a tensor already laid out so (or of
    # one whose channels are size 1) must not alias it
    for x in (
        torch.zeros(1, 1, 3, 4),
        torch.zeros(2, 3, 4, 5).contiguous(memory_format=torch.channels_last),
    ):
        c = x.clone(memory_format=torch.channels_last)
        x.add_(1)
        assert c.sum().item() == 0
        assert c.is_contiguous(memory_format=torch.channels_last)
    x = torch.zeros(2, 3, 4, 5, 6).contiguous(memory_format=torch.channels_last_3d)
    c = x.clone(memory_format=torch.channels_last_3d)
    x.add_(1)
    assert c.sum().item() == 0
