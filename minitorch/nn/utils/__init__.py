"""nn.utils: gradient clipping, parameter/vector conversion, rnn helpers, parametrizations
(parametrize, parametrizations, weight_norm, spectral_norm), stateless.functional_call, conv/linear
+ batch norm fusion, skip_init and conv weight memory format conversion."""

from minitorch.nn.utils import rnn  # noqa: F401,E402
from minitorch.nn.utils.clip_grad import (  # noqa: F401
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from minitorch.nn.utils.convert_parameters import (  # noqa: F401
    parameters_to_vector,
    vector_to_parameters,
)

# Loaded on first use (NOTE [ Lazy submodules ] in minitorch/__init__.py): submodules, and the
# functions of some (fusion, skip_init, the legacy hook-based weight/spectral norm) with the module
# that holds each.
_LAZY_MODULES = (
    "fusion",
    "init",
    "memory_format",
    "parametrize",
    "parametrizations",
    "prune",
    "stateless",
)
_LAZY_NAMES = {
    "fuse_conv_bn_eval": "fusion",
    "fuse_conv_bn_weights": "fusion",
    "fuse_linear_bn_eval": "fusion",
    "fuse_linear_bn_weights": "fusion",
    "skip_init": "init",
    "convert_conv2d_weight_memory_format": "memory_format",
    "convert_conv3d_weight_memory_format": "memory_format",
    "weight_norm": "weight_norm",
    "remove_weight_norm": "weight_norm",
    "spectral_norm": "spectral_norm",
    "remove_spectral_norm": "spectral_norm",
}


def __getattr__(name):
    import importlib

    if name in _LAZY_MODULES:
        return importlib.import_module(f"minitorch.nn.utils.{name}")
    if name in _LAZY_NAMES:
        module_name = _LAZY_NAMES[name]
        module = importlib.import_module(f"minitorch.nn.utils.{module_name}")
        # Importing a submodule binds its name here (nn.utils.weight_norm would be the module):
        # rebind every function it provides, as torch's `from .weight_norm import ...` does.
        for n, m in _LAZY_NAMES.items():
            if m == module_name:
                globals()[n] = getattr(module, n)
        return globals()[name]
    raise AttributeError(f"module 'minitorch.nn.utils' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES))
