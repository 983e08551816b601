"""convert_conv2d_weight_memory_format and convert_conv3d_weight_memory_format: the weights of a
model's convolutions laid out in a memory format (channels_last), nothing else changed."""

from __future__ import annotations

from minitorch.autograd.grad_mode import no_grad

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        with no_grad():
            # The Parameter keeps its identity (an optimizer holding it still sees it): only
            # its data takes the new strides, as torch sets `weight.data`.
            module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Lays out the weight of every Conv2d and ConvTranspose2d in `module` (itself included,
    recursively) in `memory_format`; returns `module`. Mirrors
    torch.nn.utils.convert_conv2d_weight_memory_format."""
    from minitorch.nn.modules.conv import Conv2d, ConvTranspose2d

    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Lays out the weight of every Conv3d and ConvTranspose3d in `module` (itself included,
    recursively) in `memory_format`; returns `module`. Mirrors
    torch.nn.utils.convert_conv3d_weight_memory_format."""
    from minitorch.nn.modules.conv import Conv3d, ConvTranspose3d

    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
