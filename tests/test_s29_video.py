"""Session 29 (helper video): torch-free checks of the video building blocks the reference
programs in tests/reference/test_s29_video_reference.py lean on (frame sampling by
linspace/round/long, temporal shifts by roll, max_pool3d indices with ties, adaptive 3-D
pooling, channels_last_3d strides, uint8 frame arithmetic, Conv3d/roll errors). The session
found no library difference in this domain; the values below are torch 2.13's, so these keep
the behaviour pinned where torch is not installed."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional


def _clip():
    x = mt.arange(2 * 4 * 4, dtype=mt.float64).view(1, 1, 2, 4, 4)
    return x * 7 % 11


def test_frame_indices_by_linspace_round_long():
    assert mt.linspace(0, 36, 8).round().long().tolist() == [0, 5, 10, 15, 21, 26, 31, 36]


def test_roll_over_two_dims():
    got = mt.roll(mt.arange(12).view(3, 4), shifts=(1, -1), dims=(0, 1))
    assert got.tolist() == [[9, 10, 11, 8], [1, 2, 3, 0], [5, 6, 7, 4]]


def test_max_pool3d_indices_take_the_first_of_tied_maxima():
    m, i = F.max_pool3d(_clip(), 2, stride=2, return_indices=True)
    assert m.flatten().tolist() == [9.0, 10.0, 10.0, 10.0]
    assert i.flatten().tolist() == [17, 3, 25, 14]


def test_adaptive_avg_pool3d_uneven_bins():
    got = F.adaptive_avg_pool3d(_clip(), (1, 3, 2)).flatten()
    np.testing.assert_allclose(got.numpy(), [4.75, 5.0, 5.25, 4.125, 5.75, 4.625], rtol=1e-15)


def test_channels_last_3d_strides():
    e = mt.empty(1, 2, 3, 4, 5, memory_format=mt.channels_last_3d)
    assert e.stride() == (120, 1, 40, 10, 2)
    assert e.is_contiguous(memory_format=mt.channels_last_3d)


def test_uint8_frames_wrap_around():
    u = mt.tensor([200, 100, 5], dtype=mt.uint8)
    assert (u + u).tolist() == [144, 200, 10]
    assert (u[2] - u[0]).item() == 61


def test_conv3d_and_roll_errors():
    msg = (
        "Calculated padded input size per channel: (2 x 4 x 4). Kernel size: (3 x 3 x 3). "
        "Kernel size can't be greater than actual input size"
    )
    with pytest.raises(RuntimeError) as e:
        F.conv3d(mt.zeros(1, 1, 2, 4, 4), mt.zeros(1, 1, 3, 3, 3))
    assert str(e.value) == msg
    with pytest.raises(
        RuntimeError, match=r"^shifts and dimensions must align\. shifts: 2, dims:1$"
    ):
        mt.roll(mt.zeros(2, 2), (1, 2), (1,))
