"""Session 26 (lead): torch's deprecated number-first function forms torch.add(input, alpha,
other) and torch.sub(input, alpha, other). Expected values and texts from torch 2.13."""

from __future__ import annotations

import warnings

import pytest

import minitorch as torch


def _warned(fn):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in got]


def test_add_number_first_function_form(fresh_once):
    x, y = torch.tensor([1.0, 2.0]), torch.tensor([10.0, 20.0])
    out, texts = _warned(lambda: torch.add(x, 2, y))
    assert out.tolist() == [21.0, 42.0]
    assert texts == [
        "This overload of add is deprecated:\n\tadd(Tensor input, Number alpha, Tensor other, *, "
        "Tensor out = None)\nConsider using one of the following signatures instead:\n\t"
        "add(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)"
    ]
    _, again = _warned(lambda: torch.add(x, 2, y))
    assert again == []  # once per process, as torch's


def test_sub_number_first_function_form(fresh_once):
    x, y = torch.tensor([1.0, 2.0]), torch.tensor([10.0, 20.0])
    out, texts = _warned(lambda: torch.sub(x, 0.5, y))
    assert out.tolist() == [-4.0, -8.0]
    assert texts[0].startswith(
        "This overload of sub is deprecated:\n\tsub(Tensor input, Number alpha, Tensor other, *, "
        "Tensor out = None)"
    )


def test_number_first_forms_with_out_numbers_and_gradients():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([10.0, 20.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        buf = torch.empty(2)
        torch.add(x.detach(), 2, y.detach(), out=buf)
        assert buf.tolist() == [21.0, 42.0]
        # torch reads add(x, 2, 3) as add(x, other=3, alpha=2)
        assert torch.add(torch.ones(2), 2, 3).tolist() == [7.0, 7.0]
        assert torch.add(x, torch.tensor(3.0), y).tolist() == [31.0, 62.0]
        z = torch.sub(x, 3, y).sum()
    z.backward()
    assert x.grad.tolist() == [1.0, 1.0] and y.grad.tolist() == [-3.0, -3.0]


@pytest.mark.parametrize(
    ("call", "text"),
    [
        (lambda x, y: torch.add(x, y, y), "add() takes 2 positional arguments but 3 were given"),
        (lambda x, y: torch.add(x, 2, y, y), "add() takes 2 positional arguments but 4 were given"),
        (
            lambda x, y: torch.add(x, 2, y, alpha=3),
            "add() takes 2 positional arguments but 3 were given",
        ),
        (
            lambda x, y: torch.subtract(x, 2, y),
            "subtract() takes 2 positional arguments but 3 were given",
        ),
    ],
)
def test_number_first_forms_refused_as_torch(call, text):
    x, y = torch.ones(2), torch.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError) as info:
            call(x, y)
    assert str(info.value) == text


# torch 2.13's strides of each op's output (cat, pad, max_pool2d, [conv2d, pixel_shuffle,]
# interpolate) for inputs whose layout torch's suggest_memory_format reads by the order of
# the strides: slices of a channels-last tensor stay channels-last; N x C x 1 x 1, a one-channel
# channels-last tensor, a permuted tensor with size-1 dims and an expanded one do not.
_LAYOUT_CASES = {
    "slice_c": [(288, 1, 48, 8), (192, 1, 32, 4), (144, 1, 24, 4), (144, 1, 24, 4),
                (144, 1, 12, 1), (576, 1, 48, 4)],
    "slice_hw": [(192, 1, 48, 16), (160, 1, 40, 8), (96, 1, 24, 8), (384, 1, 48, 8)],
    "n1": [(6, 1, 1, 1), (9, 3, 3, 1), (3, 1, 1, 1), (12, 4, 2, 1)],
    "c1cl": [(32, 16, 4, 1), (24, 24, 6, 1), (16, 16, 4, 1), (64, 64, 8, 1)],
    "perm": [(18, 3, 3, 1), (15, 5, 5, 1), (9, 3, 3, 1), (36, 12, 6, 1)],
    "exp": [(72, 9, 3, 1), (60, 15, 5, 1), (36, 9, 3, 1), (36, 9, 3, 1), (36, 36, 6, 1),
            (144, 36, 6, 1)],
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(_LAYOUT_CASES))
def test_output_layouts_follow_torchs_stride_order_rule(case):
    F = torch.nn.functional
    torch.manual_seed(0)
    base = torch.randn(2, 8, 6, 6).contiguous(memory_format=torch.channels_last)
    x = {
        "slice_c": lambda: base[:, :4],
        "slice_hw": lambda: base[:, :, 1:5, ::2],
        "n1": lambda: torch.randn(1, 3, 1, 1),
        "c1cl": lambda: torch.randn(2, 1, 4, 4).contiguous(memory_format=torch.channels_last),
        "perm": lambda: torch.randn(3, 1, 1, 3).permute(2, 3, 1, 0),
        "exp": lambda: torch.randn(1, 4, 1, 1).expand(2, 4, 3, 3),
    }[case]()
    got = [torch.cat([x, x], 1).stride(), F.pad(x, (1, 1)).stride(), F.max_pool2d(x, 1).stride()]
    if x.shape[1] == 4:
        got.append(F.conv2d(x, torch.randn(4, 4, 3, 3), padding=1).stride())
        got.append(F.pixel_shuffle(x, 2).stride())
    got.append(F.interpolate(x, scale_factor=2).stride())
    assert got == _LAYOUT_CASES[case]


def test_logsumexp_into_a_half_out_rounds_as_torchs_composite():
    # torch: the exps in the input's float64, cast to out's float16 for the sum, log in
    # float16, + max in float64 rounded to float16 (an input cast to float16 first: 3.84765625)
    x = torch.tensor(
        [
            [0.3, -1.7, 2.2, 0.9, -0.4, 1.1, 3.05, -2.6, 0.77, 1.93],
            [5.5, 5.49, -3.2, 4.1, 0.0, 2.2, 1.4, 5.3, -0.9, 3.3],
            [-7.1, 0.25, 0.5, 2.75, 2.8, -1.05, 0.33, 1.5, 2.9, 0.125],
        ],
        dtype=torch.float64,
    )
    out = torch.zeros(3, dtype=torch.float16)
    torch.logsumexp(x, 1, out=out)
    assert out.tolist() == [3.849609375, 6.671875, 4.1015625]
    assert torch.logsumexp((x * 3.3).half(), 1).tolist() == [10.1484375, 19.0625, 10.421875]
    assert torch.logsumexp((x * 3.3).bfloat16(), 1).tolist() == [10.125, 19.0, 10.4375]


def test_custom_function_numpy_outputs_pass_through_as_torch():
    # torch returns what forward returned where it is not a Tensor, a NumPy array included (no
    # graph: a grader sees the student's mistake), and hands None for it to backward
    import numpy as np

    seen = []

    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.detach().numpy() * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Three(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x.detach().numpy(), 3

        @staticmethod
        def backward(ctx, g, h, k):
            seen.append((h, k))
            return g * 2

    x = torch.ones(2, requires_grad=True)
    y = Twice.apply(x)
    assert type(y) is np.ndarray and y.tolist() == [2.0, 2.0]
    with torch.no_grad():
        assert type(Twice.apply(x)) is np.ndarray
    a, b, c = Three.apply(x)
    assert type(a) is torch.Tensor and type(b) is np.ndarray and c == 3
    a.sum().backward()
    assert seen == [(None, None)] and x.grad.tolist() == [2.0, 2.0]


def test_an_empty_batch_is_never_channels_last():
    # torch 2.13: an empty tensor's layout is row-major to suggest_memory_format
    F = torch.nn.functional
    x = torch.randn(0, 8, 6, 6).contiguous(memory_format=torch.channels_last)
    assert F.max_pool2d(x, 2).stride() == (72, 9, 3, 1)
    assert torch.cat([x, x], 1).stride() == (576, 36, 6, 1)
    assert F.pad(x, (1, 1)).stride() == (384, 48, 8, 1)
    assert F.interpolate(x, scale_factor=2).stride() == (1152, 144, 12, 1)


def test_foreach_empty_scalar_list_message():
    with pytest.raises(RuntimeError) as info:
        torch._foreach_add([torch.ones(2), torch.ones(3)], [])
    assert str(info.value) == "Tensor list must have same number of elements as scalar list."


def test_gelu_keeps_its_input_layout_as_torch():
    # torch 2.13's strides (float32 gelu is computed row-major here, then laid out as its input)
    F = torch.nn.functional
    x = torch.randn(2, 8, 6, 6)
    cases = [
        (x.contiguous(memory_format=torch.channels_last), (288, 1, 48, 8)),
        (x.transpose(1, 3), (288, 1, 6, 36)),
        (x[:, ::2], (144, 36, 6, 1)),
        (torch.randn(1, 8, 1, 6).expand(2, 8, 6, 6), (288, 36, 6, 1)),
    ]
    for v, strides in cases:
        for t in (v, v.half(), v.double()):
            y = F.gelu(t)
            assert y.stride() == strides
            assert torch.equal(y, F.gelu(t.contiguous()))
