"""Layouts of op outputs: the strides torch gives a copy of an expanded or sliced tensor, a
resized out=, to(memory_format=), stack and roll of channels-last tensors, a batched matmul; and
first and second derivatives through the ops that lay their results out themselves."""

import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck


def _x(*shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return torch.tensor(a, dtype=torch.float64)


def _cl(x):
    return x.contiguous(memory_format=torch.channels_last)


def test_copies_of_an_expanded_tensor_keep_its_order():
    # dims ranked by stride, fastest first; an expanded (stride-0) dim stays where a row-major
    # tensor has it: dim 4, dim 3, dim 0, dim 1, dim 2
    x = torch.zeros(1000).as_strided((6, 5, 4, 3, 2), (6, 0, 120, 0, 1))
    for y in (x.clone(), torch.empty_like(x), torch.zeros_like(x), x.double(), x.flip(1)):
        assert y.stride() == (6, 36, 180, 2, 1)
    e = torch.arange(12.0).reshape(1, 3, 1, 4).expand(1, 3, 2, 4).permute(0, 3, 2, 1)
    for y in (e.clone(), torch.relu(e), torch.nan_to_num(e), e.long(), e.flip(2)):
        assert y.stride() == (24, 1, 4, 8)
    np.testing.assert_array_equal(e.flip(2).numpy(), np.flip(e.numpy(), 2))
    np.testing.assert_array_equal(e.long().numpy(), e.numpy().astype("int64"))
    # a row-major expand stays row-major (its copy's .view(-1) works)
    assert torch.arange(5).expand(3, 5).float().view(-1).shape == (15,)


def test_sliced_input_sort_is_dense_in_its_order():
    x = torch.arange(24.0).reshape(6, 4).t()[:, 1::2]
    v, i = x.sort(0, descending=True)
    assert v.stride() == i.stride() == (1, 4)
    np.testing.assert_array_equal(v.numpy(), -np.sort(-x.numpy(), 0))


def test_resized_out_takes_the_result_layout():
    x = torch.arange(12.0).reshape(3, 4).t()
    out = torch.empty(20)
    alias = out.detach()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the resize warning
        r = torch.add(x, 1, out=out)
    assert r is out and out.stride() == (1, 4)
    np.testing.assert_array_equal(out.numpy(), x.numpy() + 1)
    np.testing.assert_array_equal(alias[:12].numpy(), np.arange(12.0) + 1)  # same memory
    c = _cl(_x(2, 3, 4, 5))
    assert torch.exp(c, out=torch.empty(0)).stride() == (60, 1, 15, 3)
    assert torch.stack([c, c], 1, out=torch.empty(0)).stride() == (120, 60, 20, 5, 1)
    kept = torch.empty(4, 3)
    assert torch.add(x, 1, out=kept).stride() == (3, 1)  # not resized: out's own layout


def test_to_memory_format_returns_the_tensor_when_its_layout_suggests_it():
    t = _x(3, 4).t()
    assert t.to(memory_format=torch.contiguous_format) is t
    assert t.double(memory_format=torch.contiguous_format) is t
    assert t.float(memory_format=torch.contiguous_format).stride() == (3, 1)  # a new tensor
    s = _cl(_x(2, 3, 8, 5))[:, :, ::2]
    assert s.to(memory_format=torch.channels_last) is s
    assert s.to(torch.float32, memory_format=torch.channels_last).stride() == (60, 1, 15, 3)
    c1 = _x(2, 1, 4, 5)  # row-major and channels-last at once: copied in channels_last's strides
    assert c1.to(memory_format=torch.channels_last).stride() == (20, 1, 5, 1)
    assert _x(2, 3, 1, 1).to(memory_format=torch.channels_last).stride() == (3, 1, 3, 3)


def test_stack_of_channels_last_tensors():
    c = _cl(_x(2, 3, 4, 5))
    want = {0: (120, 60, 1, 15, 3), 1: (120, 3, 1, 30, 6), 2: (120, 1, 60, 15, 3),
            3: (120, 1, 30, 15, 3), 4: (120, 40, 10, 2, 1)}  # fmt: skip
    for dim, strides in want.items():
        y = torch.stack([c, c * 2], dim)
        assert y.stride() == strides, dim
        np.testing.assert_array_equal(y.numpy(), np.stack([c.numpy(), 2 * c.numpy()], dim))
    assert torch.stack([c, c.contiguous()], 0).is_contiguous()  # mixed layouts: row-major


def test_roll_of_channels_last():
    c = _cl(_x(2, 3, 4, 5))
    assert c.roll(1, 2).stride() == (60, 1, 15, 3)
    for y in (c.roll(4, 2), c.roll(2, 0), c.roll((1, 5), (2, 3))):  # a whole turn: row-major
        assert y.is_contiguous()
    np.testing.assert_array_equal(c.roll((1, 5), (2, 3)).numpy(), np.roll(c.numpy(), 1, 2))


def test_batched_matmul_is_row_major():
    x = _x(2, 3, 4, 5).permute(3, 1, 0, 2)
    y = x.transpose(-1, -2) @ x
    assert y.is_contiguous()
    np.testing.assert_allclose(
        y.numpy(), np.swapaxes(x.numpy(), -1, -2) @ x.numpy(), rtol=1e-12, err_msg="matmul"
    )


def test_instance_norm_of_one_channels_last_sample_is_row_major():
    y = torch.nn.functional.instance_norm(_cl(_x(1, 3, 4, 5)))
    assert y.stride() == (60, 20, 5, 1)


def test_any_keepdim_is_row_major():
    x = _x(2, 3, 4, 5).permute(0, 2, 3, 1) > 0
    assert x.any(1, keepdim=True).is_contiguous()
    assert x.all(1, keepdim=True).is_contiguous()


_GRADIENT_CASES = {
    "stack_channels_last": lambda c, e, s: torch.stack([c, c * c], 1),
    "roll_channels_last": lambda c, e, s: c.roll((1, 2), (2, 3)),
    "roll_whole_turn": lambda c, e, s: c.roll(4, 2),
    "relu_expanded": lambda c, e, s: torch.relu(e.expand(2, 4, 3, 2)),
    "flip_expanded": lambda c, e, s: e.expand(2, 4, 3, 2).flip(1) * e,
    "nan_to_num_expanded": lambda c, e, s: torch.nan_to_num(e.expand(2, 4, 3, 2)) ** 2,
    "clone_expanded": lambda c, e, s: e.expand(2, 4, 3, 2).permute(3, 1, 0, 2).clone() ** 2,
    "sort_sliced": lambda c, e, s: s.sort(0).values ** 2,
    "batched_matmul": lambda c, e, s: c.transpose(-1, -2) @ c,
    "instance_norm": lambda c, e, s: torch.nn.functional.instance_norm(c[:1]),
}


@pytest.mark.parametrize("name", list(_GRADIENT_CASES))
def test_gradients(name):
    f = _GRADIENT_CASES[name]
    c = _cl(_x(2, 3, 4, 3, seed=1)).requires_grad_()
    e = _x(2, 4, 1, 2, seed=2).requires_grad_()
    s = _x(6, 4, seed=3).t()[:, 1::2].detach().requires_grad_()
    assert gradcheck(f, (c, e, s))
    assert gradgradcheck(f, (c, e, s))


def test_layouts_on_every_device(device):
    e = torch.arange(12.0, device=device).reshape(1, 3, 1, 4).expand(1, 3, 2, 4).permute(0, 3, 2, 1)
    for y in (e.clone(), torch.relu(e), torch.nan_to_num(e), e.double(), e.flip(2)):
        assert y.device == e.device
        if y.stride() == (24, 6, 3, 1) and device.startswith("cuda"):
            continue  # README: CuPy's elementwise results of permuted inputs are row-major
        assert y.stride() == (24, 1, 4, 8)
    assert torch.empty_like(e).stride() == (24, 1, 4, 8)
    c = torch.arange(120.0, device=device).reshape(2, 3, 4, 5)
    c = c.contiguous(memory_format=torch.channels_last)
    assert torch.stack([c, c], 1).stride() == (120, 3, 1, 30, 6)
    out = torch.empty(0, device=device)
    got = torch.exp(c, out=out).stride()
    assert got == (60, 1, 15, 3) or device.startswith("cuda") and got == (60, 20, 5, 1)
    s = c[:, :, ::2]
    assert s.to(memory_format=torch.channels_last) is s
    assert s.sort(-1).values.stride() == (30, 1, 15, 3)
    np.testing.assert_array_equal(e.flip(2).cpu().numpy(), np.flip(e.cpu().numpy(), 2))
