"""nn.grad: the input and weight gradients of conv1d/2d/3d, given the output's gradient.
Mirrors torch.nn.grad."""

from __future__ import annotations

from minitorch._ops.conv import ConvTranspose, ConvWeight, conv_out_size
from minitorch._tensor import Tensor
from minitorch.nn._functional_conv import ntuple

__all__ = [
    "conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight",
    "conv3d_input", "conv3d_weight",
]  # fmt: skip


def _geometry(n, op, input_shape, weight_shape, grad_output, stride, padding, dilation, groups):
    """The (stride, padding pairs, dilation) of conv{n}d, after torch's shape checks of
    convolution_backward: the sizes given must be those of a conv{n}d giving grad_output."""
    input_shape, weight_shape = tuple(input_shape), tuple(weight_shape)
    stride = ntuple(stride, n, "stride")
    padding = ntuple(padding, n, "padding")
    dilation = ntuple(dilation, n, "dilation")
    if len(weight_shape) != n + 2 or len(input_shape) != n + 2:
        raise RuntimeError(
            f"{op}: expected {n + 2}-dimensional input and weight, but got input of size "
            f"{list(input_shape)} and weight of size {list(weight_shape)}"
        )
    if grad_output.ndim != n + 2:
        raise RuntimeError(
            f"{op}: expected input and grad_output to have the same number of dimensions, but "
            f"got: {n + 2} and {grad_output.ndim}"
        )
    if input_shape[1] != weight_shape[1] * groups:
        raise RuntimeError(
            f"{op}: given groups={groups}, weight of size {list(weight_shape)}, expected input"
            f"{list(input_shape)} to have {weight_shape[1] * groups} channels, but got "
            f"{input_shape[1]} channels instead"
        )
    taps = zip(input_shape[2:], weight_shape[2:], stride, padding, dilation, strict=True)
    out = tuple(conv_out_size(size, k, s, (p, p), d) for size, k, s, p, d in taps)
    want = (input_shape[0], weight_shape[0], *out)
    if tuple(grad_output.shape) != want:
        raise RuntimeError(
            f"{op}: grad_output of size {list(grad_output.shape)} is not the output size "
            f"{list(want)} of a convolution of input {list(input_shape)} with weight "
            f"{list(weight_shape)} (stride={list(stride)}, padding={list(padding)}, "
            f"dilation={list(dilation)}, groups={groups})"
        )
    return dict(
        stride=stride, padding=tuple((p, p) for p in padding), dilation=dilation, groups=groups
    )


def _input_grad(n, input_size, weight, grad_output, stride, padding, dilation, groups):
    op = f"conv{n}d_input"
    geom = _geometry(
        n, op, input_size, weight.shape, grad_output, stride, padding, dilation, groups
    )
    return ConvTranspose.apply(grad_output, weight, None, out_size=tuple(input_size)[2:], **geom)


def _weight_grad(n, input, weight_size, grad_output, stride, padding, dilation, groups):
    op = f"conv{n}d_weight"
    geom = _geometry(
        n, op, input.shape, weight_size, grad_output, stride, padding, dilation, groups
    )
    return ConvWeight.apply(input, grad_output, None, kernel=tuple(weight_size)[2:], **geom)


def conv1d_input(
    input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0, dilation=1, groups=1
) -> Tensor:
    """The gradient of conv1d(input, weight) w.r.t. its input of size `input_size` (N, C, L),
    given grad_output; differentiable in weight and grad_output. Mirrors
    torch.nn.grad.conv1d_input."""
    return _input_grad(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(
    input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0, dilation=1, groups=1
) -> Tensor:
    """The gradient of conv1d(input, weight) w.r.t. its weight of size `weight_size`, given
    grad_output; differentiable in input and grad_output. Mirrors torch.nn.grad.conv1d_weight."""
    return _weight_grad(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(
    input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0, dilation=1, groups=1
) -> Tensor:
    """conv1d_input for conv2d. Mirrors torch.nn.grad.conv2d_input."""
    return _input_grad(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(
    input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0, dilation=1, groups=1
) -> Tensor:
    """conv1d_weight for conv2d. Mirrors torch.nn.grad.conv2d_weight."""
    return _weight_grad(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(
    input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0, dilation=1, groups=1
) -> Tensor:
    """conv1d_input for conv3d. Mirrors torch.nn.grad.conv3d_input."""
    return _input_grad(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(
    input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0, dilation=1, groups=1
) -> Tensor:
    """conv1d_weight for conv3d. Mirrors torch.nn.grad.conv3d_weight."""
    return _weight_grad(3, input, weight_size, grad_output, stride, padding, dilation, groups)
