"""Lazy layers: LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*,
whose input size is read from the first forward's input.

NOTE [ Lazy modules ]
As in torch, a lazy layer is built as its regular layer with zero input features, then its
parameters are replaced by placeholders (see NOTE [ Uninitialized parameters ]). A forward pre-hook
runs `initialize_parameters(input)` once: it materializes the placeholders with the input's size
and calls the regular `reset_parameters`, so the random numbers are drawn in the same order as
when the regular layer is built (the same seed gives the same weights). Then the hooks are removed
and the module's class becomes `cls_to_become` (LazyLinear -> Linear). Loading a state dict into
a lazy layer materializes the placeholders from the loaded shapes first.
"""

from __future__ import annotations

import itertools

from minitorch import _dtype
from minitorch._factories import tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.modules.batchnorm import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    _BatchNorm,
    _InstanceNorm,
)
from minitorch.nn.modules.conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
)
from minitorch.nn.modules.linear import Linear
from minitorch.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

__all__ = [  # LazyModuleMixin is reached as nn.modules.lazy.LazyModuleMixin, as in torch
    "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
    "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d",
    "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]  # fmt: skip


class LazyModuleMixin:
    """Infers parameter shapes from the first input. Mirrors torch.nn.modules.lazy.LazyModuleMixin.
    See NOTE [ Lazy modules ]."""

    cls_to_become = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(
            self._infer_parameters, with_kwargs=True
        )

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this module (not its children) is a placeholder."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                        self._buffers.values()))  # fmt: skip

    def initialize_parameters(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {type(self).__name__}"
        )

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook
        del module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _lazy_load_hook(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        for name, t in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if t is not None and key in state_dict and is_lazy(t):
                loaded = state_dict[key]
                if not is_lazy(loaded):
                    with no_grad():
                        t.materialize(tuple(loaded.shape))


# --- Linear ---


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the last dim of the first input. Mirrors torch.nn.LazyLinear."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # materialized by load_state_dict: check against the input
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                    f"in_features from self.weight: {self.weight.shape[-1]}"
                )
            self.in_features = input.shape[-1]


# --- convolutions ---


class _LazyConvXdMixin(LazyModuleMixin):
    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _lazy_placeholders(self, out_channels: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def _get_in_channels(self, input) -> int:
        n = self._n
        if input.ndim not in (n + 1, n + 2):
            raise RuntimeError(
                f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                f"{type(self).__name__}, but got input of size: {input.shape}"
            )
        return input.shape[1] if input.ndim == n + 2 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
        else:
            shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
        with no_grad():
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy_conv(regular, doc: str):
    class LazyConv(_LazyConvXdMixin, regular):
        cls_to_become = regular

        def __init__(
            self,
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
                0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode
            )
            self._lazy_placeholders(out_channels, bias, device, dtype)

    LazyConv.__name__ = LazyConv.__qualname__ = "Lazy" + regular.__name__
    LazyConv.__doc__ = doc
    return LazyConv


def _lazy_conv_transpose(regular, doc: str):
    class LazyConvTranspose(_LazyConvXdMixin, regular):
        cls_to_become = regular

        def __init__(
            self,
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
            super().__init__(
                0,
                0,
                kernel_size,
                stride,
                padding,
                output_padding,
                groups,
                False,
                dilation,
                padding_mode,
            )
            self._lazy_placeholders(out_channels, bias, device, dtype)

    LazyConvTranspose.__name__ = LazyConvTranspose.__qualname__ = "Lazy" + regular.__name__
    LazyConvTranspose.__doc__ = doc
    return LazyConvTranspose


LazyConv1d = _lazy_conv(Conv1d, "Conv1d with in_channels from the first input. Mirrors "
                        "torch.nn.LazyConv1d.")  # fmt: skip
LazyConv2d = _lazy_conv(Conv2d, "Conv2d with in_channels from the first input. Mirrors "
                        "torch.nn.LazyConv2d.")  # fmt: skip
LazyConv3d = _lazy_conv(Conv3d, "Conv3d with in_channels from the first input. Mirrors "
                        "torch.nn.LazyConv3d.")  # fmt: skip
LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d, "Mirrors torch.nn.LazyConvTranspose1d.")
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d, "Mirrors torch.nn.LazyConvTranspose2d.")
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d, "Mirrors torch.nn.LazyConvTranspose3d.")


# --- batch norm ---


class _LazyNormBase(LazyModuleMixin):
    def __init__(
        self,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ) -> None:
        super().__init__(0, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=_dtype.int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]  # dim 1 even for unbatched input, as in torch
        with no_grad():
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


# As in torch, a lazy batch (instance) norm subclasses _BatchNorm (_InstanceNorm), not its
# BatchNorm*d: it is no BatchNorm2d (isinstance is False) until the first forward swaps its class
# to cls_to_become.
class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """BatchNorm1d with num_features from the first input. Mirrors torch.nn.LazyBatchNorm1d."""

    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """BatchNorm2d with num_features from the first input. Mirrors torch.nn.LazyBatchNorm2d."""

    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """BatchNorm3d with num_features from the first input. Mirrors torch.nn.LazyBatchNorm3d."""

    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm1d with num_features from the first input (affine and running stats on by
    default, as in torch). Mirrors torch.nn.LazyInstanceNorm1d."""

    cls_to_become = InstanceNorm1d
    _no_batch_dim = InstanceNorm1d._no_batch_dim


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """Mirrors torch.nn.LazyInstanceNorm2d."""

    cls_to_become = InstanceNorm2d
    _no_batch_dim = InstanceNorm2d._no_batch_dim


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """Mirrors torch.nn.LazyInstanceNorm3d."""

    cls_to_become = InstanceNorm3d
    _no_batch_dim = InstanceNorm3d._no_batch_dim
