"""Pooling layers: max, average, adaptive, fractional and unpooling (1-d, 2-d, 3-d)."""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.nn import _functional_fractional_pool as FF
from minitorch.nn import _functional_pool as F
from minitorch.nn.modules._naming import own_methods
from minitorch.nn.modules.module import Module
from minitorch.nn.modules.utils import _ntuple as _ntuple_of

__all__ = [
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "MaxUnpool1d", "MaxUnpool2d", "LPPool1d", "LPPool2d", "LPPool3d",
    "AdaptiveMaxPool3d", "MaxUnpool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
]  # fmt: skip


def _ntuple(v, n):
    # torch's _single/_pair/_triple: any non-iterable is repeated (a float kernel_size is
    # kept, printed, and refused by the functional at forward, as torch's)
    return _ntuple_of(n)(v)


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        dilation=1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor):
        return self._pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """Mirrors torch.nn.MaxPool1d."""

    _pool = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """Max over 2-d windows (return_indices for MaxUnpool2d). Mirrors torch.nn.MaxPool2d."""

    _pool = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """Mirrors torch.nn.MaxPool3d."""

    _pool = staticmethod(F.max_pool3d)


class _AvgPoolNd(Module):
    """The base of AvgPool1d/2d/3d (isinstance checks name it, as in torch); it holds the
    2-d/3-d construction and forward, which AvgPool1d replaces."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override=None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Mirrors torch.nn.AvgPool1d (its hyperparameters are stored as 1-tuples, as in torch)."""

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        # Module's init, not _AvgPoolNd's: torch's AvgPool1d has no divisor_override attribute
        Module.__init__(self)
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


class AvgPool2d(_AvgPoolNd):
    """Mean over 2-d windows. Mirrors torch.nn.AvgPool2d."""

    __constants__ = [*_AvgPoolNd.__constants__, "divisor_override"]
    _pool = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    """Mirrors torch.nn.AvgPool3d."""

    __constants__ = [*_AvgPoolNd.__constants__, "divisor_override"]
    _pool = staticmethod(F.avg_pool3d)


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling. Mirrors torch.nn.LPPool1d."""

    _pool = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Power-average pooling. Mirrors torch.nn.LPPool2d."""

    _pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Power-average pooling. Mirrors torch.nn.LPPool3d."""

    _pool = staticmethod(F.lp_pool3d)


class _AdaptiveAvgPoolNd(Module):
    """The base of the adaptive average pools, as torch's (isinstance checks and FLOP counters
    look for it); the adaptive max pools have their own, _AdaptiveMaxPoolNd."""

    __constants__ = ["output_size"]

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Mirrors torch.nn.AdaptiveAvgPool1d."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Averages into a fixed output size (entries may be None). Mirrors
    torch.nn.AdaptiveAvgPool2d."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Mirrors torch.nn.AdaptiveAvgPool3d."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPoolNd(Module):
    """The base of the adaptive max pools, as torch's (not a subclass of _AdaptiveAvgPoolNd)."""

    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Mirrors torch.nn.AdaptiveMaxPool1d."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Mirrors torch.nn.AdaptiveMaxPool2d."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Mirrors torch.nn.AdaptiveMaxPool3d."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        n = self._n
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return self._unpool(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Mirrors torch.nn.MaxUnpool1d."""

    _n = 1
    _unpool = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d: values back at their indices, zeros elsewhere. Mirrors
    torch.nn.MaxUnpool2d."""

    _n = 2
    _unpool = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Mirrors torch.nn.MaxUnpool3d."""

    _n = 3
    _unpool = staticmethod(F.max_unpool3d)


def _tuple_of(v, n):
    return (v,) * n if isinstance(v, (int, float)) else tuple(v)


class _FractionalMaxPoolNd(Module):
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]

    def __init__(
        self,
        kernel_size,
        output_size=None,
        output_ratio=None,
        return_indices: bool = False,
        _random_samples=None,
    ) -> None:
        super().__init__()
        n, name = self._n, type(self).__name__
        self.kernel_size = _tuple_of(kernel_size, n)
        self.return_indices = return_indices
        # fixed window sequences when given (a buffer, as torch's: None is not in state_dict)
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _tuple_of(output_size, n) if output_size is not None else None
        self.output_ratio = _tuple_of(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        return self._pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max over windows at pseudo-random fractional strides. Mirrors torch.nn.FractionalMaxPool2d
    (see F.fractional_max_pool2d_with_indices for the random draws)."""

    _n = 2
    _pool = staticmethod(FF.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Mirrors torch.nn.FractionalMaxPool3d."""

    _n = 3
    _pool = staticmethod(FF.fractional_max_pool3d)


# torch's classes each define forward: a wrong call's TypeError names theirs
for _cls in (
    MaxPool1d, MaxPool2d, MaxPool3d, AvgPool2d, AvgPool3d, LPPool1d, LPPool2d, LPPool3d,
    MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, FractionalMaxPool2d, FractionalMaxPool3d,
):  # fmt: skip
    own_methods(_cls, "forward")
# ... and these define __init__ too (AvgPool2d() names AvgPool2d.__init__(), MaxPool2d() the base's)
for _cls in (
    AvgPool2d, AvgPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, FractionalMaxPool2d,
    FractionalMaxPool3d,
):  # fmt: skip
    own_methods(_cls, "__init__")
del _cls
