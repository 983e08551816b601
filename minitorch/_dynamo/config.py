"""torch._dynamo.config: the compiler settings scripts set before calling torch.compile.

Mirrors torch._dynamo.config for the commonly set keys, with torch's defaults. minitorch.compile
returns its argument unchanged (see minitorch/_misc_api.py), so every key is stored and read
back and changes nothing.

Differences from torch: torch knows ~150 keys here (~600 in torch._inductor.config) and raises
AttributeError when a script sets one it does not know; minitorch lists only the common ones, so
it accepts any key that is set (a key torch knows must not fail here) and raises torch's
AttributeError only when an unknown key that was never set is read.
"""

from __future__ import annotations

import sys
import types


class _ConfigModule(types.ModuleType):
    """A config module: unknown keys read raise torch's AttributeError; the old names of renamed
    keys (`_ALIASES`: cache_size_limit -> recompile_limit) read and write the new key."""

    def __getattr__(self, name):
        aliases = self.__dict__.get("_ALIASES", {})
        if name in aliases:
            return getattr(self, aliases[name])
        raise AttributeError(f"{self.__name__.replace('minitorch', 'torch')}.{name} does not exist")

    def __setattr__(self, name, value):
        name = self.__dict__.get("_ALIASES", {}).get(name, name)
        super().__setattr__(name, value)


_ALIASES = {
    "cache_size_limit": "recompile_limit",
    "accumulated_cache_size_limit": "accumulated_recompile_limit",
}

suppress_errors = False
recompile_limit = 8
accumulated_recompile_limit = 256
verbose = False
optimize_ddp = True
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
automatic_dynamic_shapes = True
assume_static_by_default = True
dynamic_shapes = True
specialize_int = False
force_parameter_static_shapes = True
inline_inbuilt_nn_modules = True
compiled_autograd = False
error_on_recompile = False
allow_rnn = False
log_compilation_metrics = True
replay_record_enabled = False
raise_on_ctx_manager_usage = True

sys.modules[__name__].__class__ = _ConfigModule
