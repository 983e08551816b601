"""Session 27, 3-D medical imaging (med3d): the library fixes its torch comparisons found, checked
against literals obtained by running torch 2.13 (CPU):

- channels_last_3d layouts are kept as torch keeps them: conv3d and conv_transpose3d (float32 and
  bfloat16, where torch runs oneDNN; float64 gives a contiguous result), max_pool3d and its
  indices, group_norm, trilinear/nearest(-exact) interpolate, constant/replicate/reflect pad
  (circular does not keep it), cat, roll, adaptive_avg_pool3d to one position;
- a float32 input convolved with a weight of another dtype gives torch's oneDNN message where
  torch's heuristic picks oneDNN (a batch of two or more, groups, a kernel over 3x3, a large
  input), its "expected scalar type" message otherwise;
- ConvTranspose's output_size message shows the sequence as given (a tuple, list or Size)."""

from __future__ import annotations

import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

F = torch.nn.functional


def _cl3d(*shape, dtype=torch.float32, seed=0):
    torch.manual_seed(seed)
    return torch.randn(*shape, dtype=dtype).to(memory_format=torch.channels_last_3d)


# --- channels_last_3d layouts ---


def test_conv3d_keeps_channels_last_3d():
    for dt in ["float32", "bfloat16"]:
        dtype = getattr(torch, dt)
        x = _cl3d(2, 4, 3, 4, 5, dtype=dtype)
        w = torch.randn(6, 4, 3, 3, 3, dtype=dtype)
        assert F.conv3d(x, w, padding=1).stride() == (360, 1, 120, 30, 6)
        # a channels-last weight alone is enough
        w_cl = w.to(memory_format=torch.channels_last_3d)
        assert F.conv3d(x.contiguous(), w_cl, padding=1).stride() == (360, 1, 120, 30, 6)
        assert F.conv3d(x, w[:4, :1], padding=1, groups=4).stride() == (240, 1, 80, 20, 4)
        wt = torch.randn(4, 2, 2, 2, 2, dtype=dtype)
        assert F.conv_transpose3d(x, wt, stride=2).stride() == (960, 1, 160, 20, 2)
    # float64 (torch's slow kernels): contiguous results
    x = _cl3d(2, 4, 3, 4, 5, dtype=torch.float64)
    w = torch.randn(6, 4, 3, 3, 3, dtype=torch.float64)
    assert F.conv3d(x, w, padding=1).stride() == (360, 60, 20, 5, 1)
    assert F.conv3d(x, w[:4, :1], padding=1, groups=4).stride() == (240, 60, 20, 5, 1)
    wt = torch.randn(4, 2, 2, 2, 2, dtype=torch.float64)
    assert F.conv_transpose3d(x, wt, stride=2).stride() == (960, 480, 80, 10, 1)


def test_conv3d_channels_last_values():
    x = torch.arange(8.0).view(1, 1, 2, 2, 2).to(memory_format=torch.channels_last_3d)
    assert F.conv3d(x, torch.ones(1, 1, 2, 2, 2)).item() == 28.0
    net = torch.nn.Conv3d(4, 6, 3, padding=1).to(memory_format=torch.channels_last_3d)
    x = _cl3d(2, 4, 3, 4, 5)
    y = net(x)
    assert y.stride() == (360, 1, 120, 30, 6)
    assert torch.allclose(y, net(x.contiguous()), atol=1e-6)


def test_pools_norms_resizes_keep_channels_last_3d():
    x = _cl3d(2, 4, 3, 4, 5)
    o, i = F.max_pool3d(x, 2, return_indices=True)
    assert o.stride() == (16, 1, 16, 8, 4)
    assert i.stride() == (16, 1, 16, 8, 4)
    assert F.avg_pool3d(x, 2).stride() == (16, 4, 4, 2, 1)  # torch's avg_pool3d does not
    assert F.group_norm(x, 2).stride() == (240, 1, 80, 20, 4)
    assert F.interpolate(x, scale_factor=2, mode="trilinear").stride() == (1920, 1, 320, 40, 4)
    assert F.interpolate(x, size=(3, 4, 5), mode="nearest").stride() == (240, 1, 80, 20, 4)
    up = F.interpolate(x, scale_factor=2, mode="nearest-exact")
    assert up.stride() == (1920, 1, 320, 40, 4)
    assert F.adaptive_avg_pool3d(x, 1).stride() == (4, 1, 4, 4, 4)


def test_pad_channels_last_3d():
    x = _cl3d(2, 4, 3, 4, 5)
    for mode, stride in [
        ("constant", (560, 1, 140, 28, 4)),
        ("replicate", (560, 1, 140, 28, 4)),
        ("reflect", (560, 1, 140, 28, 4)),
        ("circular", (560, 140, 35, 7, 1)),  # torch's circular pad does not keep it
    ]:
        y = F.pad(x, (1, 1, 1, 0, 0, 1), mode=mode)
        assert y.stride() == stride
        assert torch.equal(y, F.pad(x.contiguous(), (1, 1, 1, 0, 0, 1), mode=mode))


def test_negative_pad_cat_roll_channels_last_3d():
    x = _cl3d(2, 4, 3, 4, 5)
    assert F.pad(x, (-1, 1, 0, 0, 1, 1)).stride() == (400, 1, 80, 20, 4)
    assert torch.cat([x, x], 1).stride() == (480, 1, 160, 40, 8)
    assert torch.cat([x, x], 2).stride() == (480, 1, 80, 20, 4)
    assert torch.cat([x, x.contiguous()], 1).stride() == (480, 60, 20, 5, 1)
    assert torch.equal(torch.cat([x, x], 2), torch.cat([x.contiguous()] * 2, 2))
    assert torch.roll(x, 1, 2).stride() == (240, 1, 80, 20, 4)
    r = torch.roll(x, (1, 2), (2, 4))
    assert r.stride() == (240, 1, 80, 20, 4)
    assert torch.equal(r, torch.roll(x.contiguous(), (1, 2), (2, 4)))
    # the new layouts' backward (float64)
    x = _cl3d(1, 2, 3, 3, 3, dtype=torch.float64).requires_grad_()
    w = torch.randn(2, 2, 2, 2, 2, dtype=torch.float64, requires_grad=True)
    fns = [
        lambda x, w: F.conv3d(x, w, padding=1),
        lambda x, w: F.max_pool3d(F.conv_transpose3d(x, w, stride=2), 2) * 1.5,
        lambda x, w: F.group_norm(torch.cat([x, F.pad(x, (1, 0, 0, 1, 0, 0))[..., :3, 1:]], 1), 2),
        lambda x, w: (
            F.interpolate(torch.roll(x, 1, 3), scale_factor=1.5, mode="trilinear")
            * w[0, 0, 0, 0, 0]
        ),
    ]
    for f in fns:
        assert gradcheck(f, (x, w))
    assert gradgradcheck(fns[2], (x, w))
    assert gradgradcheck(fns[0], (x, w))


# --- convolution dtype messages ---

_ONEDNN = (
    "Input type ({}) and weight type ({}) should be the same or input should be a MKLDNN tensor "
    "and weight is a dense tensor"
)


def test_conv3d_dtype_message_follows_onednn_choice():
    for xshape, wshape, kwargs, onednn in [
        ((2, 3, 5, 5, 5), (4, 3, 3, 3, 3), {}, True),  # a batch of two
        ((1, 3, 5, 5, 5), (4, 3, 3, 3, 3), {}, False),
        ((3, 5, 5, 5), (4, 3, 3, 3, 3), {}, False),  # unbatched
        ((1, 4, 5, 5, 5), (4, 2, 3, 3, 3), {"groups": 2}, True),
        ((1, 3, 6, 6, 6), (4, 3, 1, 4, 4), {}, True),  # kernel over 3x3 in the last two dims
        ((1, 3, 200, 40, 3), (4, 3, 3, 3, 3), {}, True),  # N*C*D*H over 20480
        ((1, 3, 30, 200, 200), (4, 3, 3, 3, 3), {}, False),
    ]:
        x = torch.zeros(xshape)
        w = torch.zeros(wshape, dtype=torch.float64)
        want = (
            _ONEDNN.format("torch.FloatTensor", "torch.DoubleTensor")
            if onednn
            else "expected scalar type Float but found Double"
        )
        with pytest.raises(RuntimeError) as e:
            F.conv3d(x, w, **kwargs)
        assert str(e.value) == want, (xshape, wshape, kwargs)


def test_conv_dtype_message_other_ranks_and_weights():
    with pytest.raises(RuntimeError) as e:
        F.conv2d(torch.zeros(1, 2, 6, 6), torch.zeros(3, 2, 5, 5, dtype=torch.float16))
    assert str(e.value) == _ONEDNN.format("torch.FloatTensor", "torch.HalfTensor")
    with pytest.raises(RuntimeError) as e:  # 1-d runs as 2-d: its kernel is 1 x 5
        F.conv1d(torch.zeros(1, 2, 9), torch.zeros(3, 2, 5, dtype=torch.float16))
    assert str(e.value) == "expected scalar type Float but found Half"
    with pytest.raises(RuntimeError) as e:
        F.conv1d(torch.zeros(1, 2, 30000), torch.zeros(3, 2, 5, dtype=torch.float16))
    assert str(e.value) == _ONEDNN.format("torch.FloatTensor", "torch.HalfTensor")
    with pytest.raises(RuntimeError) as e:
        F.conv3d(torch.zeros(2, 2, 4, 4, 4), torch.zeros(3, 2, 3, 3, 3, dtype=torch.bfloat16))
    assert str(e.value) == _ONEDNN.format("torch.FloatTensor", "CPUBFloat16Type")
    with pytest.raises(RuntimeError) as e:
        F.conv_transpose3d(torch.zeros(2, 2, 4, 4, 4), torch.zeros(2, 3, 3, 3, 3).double())
    assert str(e.value) == _ONEDNN.format("torch.FloatTensor", "torch.DoubleTensor")
    with pytest.raises(RuntimeError) as e:  # a float64 input: never oneDNN
        F.conv3d(torch.zeros(2, 2, 4, 4, 4).double(), torch.zeros(3, 2, 3, 3, 3))
    assert str(e.value) == "expected scalar type Double but found Float"


def test_conv_dtype_message_one_by_one_kernel_reads_threads():
    x, w = torch.zeros(2, 3, 4, 4), torch.zeros(4, 3, 1, 1, dtype=torch.float64)
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
            F.conv2d(x, w)
        with pytest.raises(RuntimeError, match="MKLDNN"):  # strided: oneDNN again
            F.conv2d(x, w, stride=2)
        torch.set_num_threads(4)
        with pytest.raises(RuntimeError, match="MKLDNN"):
            F.conv2d(x, w)
    finally:
        torch.set_num_threads(threads)


# --- ConvTranspose output_size ---


def test_conv_transpose_output_size_message_shows_given_sequence():
    torch.manual_seed(0)
    up = torch.nn.ConvTranspose3d(3, 2, 3, stride=2, padding=1)
    x = torch.randn(2, 3, 5, 6, 4)
    tail = (
        ", but valid sizes range from [9, 11, 7] to [10, 12, 8] (for an input of "
        "torch.Size([5, 6, 4]))"
    )
    for size, shown in [
        ((12, 12, 12), "(12, 12, 12)"),
        ([12, 12, 12], "[12, 12, 12]"),
        (torch.Size([12, 12, 12]), "torch.Size([12, 12, 12])"),
        ((2, 2, 12, 12, 12), "(12, 12, 12)"),
    ]:
        with pytest.raises(ValueError) as e:
            up(x, output_size=size)
        assert str(e.value) == f"requested an output size of {shown}" + tail
    assert up(x, output_size=torch.Size([2, 2, 10, 11, 8])).shape == (2, 2, 10, 11, 8)
