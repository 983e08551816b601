"""Convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d/3d."""

from __future__ import annotations

import math

from minitorch._factories import empty
from minitorch._tensor import Tensor
from minitorch.nn import _functional_conv as F
from minitorch.nn import init
from minitorch.nn._functional_pad import pad
from minitorch.nn.modules._naming import own_methods
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(v, n: int) -> tuple:
    """torch's _single/_pair/_triple: an iterable (a str too) as a tuple of its elements, as
    given (a 1-tuple stays one: F.conv* expands it, the weight's shape and the repr keep it);
    anything else n times."""
    if isinstance(v, int) or not hasattr(v, "__iter__"):
        # np.int64(3) too (NOTE [ Int-like arguments ]); a float is doubled as well, for F.conv*;
        # a tensor is iterated, as torch's (a 0-d one: "iteration over a 0-d tensor")
        return (v,) * n  # kept as given, as torch keeps it (F.conv* reads it)
    return tuple(v)


class _ConvNd(Module):
    """What Conv and ConvTranspose layers share: the hyperparameters, the weight of shape
    (out, in/groups, *kernel) (transposed: (in, out/groups, *kernel)), torch's default init
    and repr."""

    __constants__ = [
        "stride",
        "padding",
        "dilation",
        "groups",
        "padding_mode",
        "output_padding",
        "in_channels",
        "out_channels",
        "kernel_size",
    ]
    _n = 2

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        bias,
        padding_mode,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        kernel_size, stride, dilation = (_ntuple(v, n) for v in (kernel_size, stride, dilation))
        if isinstance(padding, str):
            valid = {"same", "valid"}  # (a set, printed in this process's order, as torch's)
            if padding not in valid:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's (last dim first) pairs for the non-zeros padding modes
        if isinstance(padding, str):
            pads = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(n - 1, -1, -1), strict=False):
                    total = d * (k - 1)
                    left = total // 2
                    pads[2 * i] = left
                    pads[2 * i + 1] = total - left
            self._reversed_padding_repeated_twice = pads
        else:
            pairs = tuple(p for p in reversed(padding) for _ in (0, 1))
            self._reversed_padding_repeated_twice = pairs  # a tuple here, as torch's
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # torch's default: kaiming_uniform_(a=sqrt(5)), i.e. U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            # a kernel with no elements still draws the bias (from U(0, 0)), as torch 2.13
            # does, so the random stream after it stays torch's
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        # Each tuple is compared with defaults of its own length, as torch does (a kernel_size
        # of the wrong length leaves the pairs at their defaults).
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            False,
            0,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _conv_forward(self, input: Tensor, weight: Tensor, bias) -> Tensor:
        conv = self._conv
        if self.padding_mode != "zeros":
            padded = pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-d convolution over (N, C_in, L) or (C_in, L). Mirrors torch.nn.Conv1d."""

    _n = 1
    _conv = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-d convolution over (N, C_in, H, W) or (C_in, H, W). Mirrors torch.nn.Conv2d, including
    its default initialisation and padding modes."""

    _n = 2
    _conv = staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-d convolution. Mirrors torch.nn.Conv3d."""

    _n = 3
    _conv = staticmethod(F.conv3d)


for _cls in (Conv1d, Conv2d, Conv3d):
    own_methods(_cls, "__init__", "forward")  # torch's errors name these classes


class _ConvTransposeNd(_ConvNd):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups: int = 1,
        bias: bool = True,
        dilation=1,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {self.__class__.__name__}'
            )
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            _ntuple(padding, self._n),  # a str too, as torch's _pair: ('s', 'a', 'm', 'e')
            dilation,
            True,
            output_padding,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _output_padding(
        self,
        input: Tensor,
        output_size,
        stride,
        padding,
        kernel_size,
        num_spatial_dims: int,
        dilation=None,
    ) -> tuple:
        """The output_padding that gives `output_size` (None: self.output_padding)."""
        if output_size is None:
            return self.output_padding
        shown = output_size  # torch's message shows the sequence as given (sliced)
        output_size = list(output_size)
        if not hasattr(shown, "__getitem__"):
            shown = output_size
        has_batch = input.ndim == num_spatial_dims + 2
        if len(output_size) == num_spatial_dims + (2 if has_batch else 1):
            output_size = output_size[-num_spatial_dims:]
            shown = shown[-num_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.ndim}D input, output_size must "
                f"have {num_spatial_dims} or {num_spatial_dims + (2 if has_batch else 1)} "
                f"elements (got {len(output_size)})"
            )
        dilation = dilation or (1,) * num_spatial_dims
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dim_size = input.shape[input.ndim - num_spatial_dims + d]
            low = (
                (dim_size - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel_size[d] - 1) + 1
            )
            min_sizes.append(low)
            max_sizes.append(low + stride[d] - 1)
        for size, low, high in zip(output_size, min_sizes, max_sizes, strict=False):
            if not low <= size <= high:  # (torch shows input.size()[2:], batched or not)
                raise ValueError(
                    f"requested an output size of {shown}, but valid sizes range from "
                    f"{min_sizes} to {max_sizes} (for an input of {input.shape[2:]})"
                )
        return tuple(size - low for size, low in zip(output_size, min_sizes, strict=False))

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        n = self._n
        output_padding = self._output_padding(
            input, output_size, self.stride, self.padding, self.kernel_size, n, self.dilation
        )
        return self._conv(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution. Mirrors torch.nn.ConvTranspose1d."""

    _n = 1
    _conv = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution (output_size= picks output_padding). Mirrors
    torch.nn.ConvTranspose2d."""

    _n = 2
    _conv = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution. Mirrors torch.nn.ConvTranspose3d."""

    _n = 3
    _conv = staticmethod(F.conv_transpose3d)


for _cls in (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d):
    own_methods(_cls, "__init__", "forward")
