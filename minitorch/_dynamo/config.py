"""torch._dynamo.config: the compiler settings scripts set before calling torch.compile.

Mirrors torch._dynamo.config for the commonly set keys, with torch's defaults. minitorch.compile
compiles nothing (see minitorch/_misc_api.py), so every key is stored and read
back and changes nothing.

Differences from torch: torch knows ~150 keys here (~600 in torch._inductor.config) and raises
AttributeError when a script sets one it does not know; minitorch lists only the common ones, so
it accepts any key that is set (a key torch knows must not fail here) and raises torch's
AttributeError only when an unknown key that was never set is read.
"""

from __future__ import annotations
import __future__

import contextlib
import pickle
import sys
import types
import warnings

_MISSING = object()


class _ConfigPatch(contextlib.ContextDecorator):
    """What config.patch returns: a context manager and decorator that sets keys on entry and
    restores them on exit (a key that did not exist is removed again). Reentrant: each entry
    saves its own previous values."""

    def __init__(self, config: _ConfigModule, changes: dict):
        self._config = config
        self._changes = changes
        self._saved: list[dict] = []  # one dict per active entry (a decorated function recurses)

    def __enter__(self):
        saved = {}
        for key, value in self._changes.items():
            owner, name = self._config._owner(key)
            saved[key] = getattr(owner, name, _MISSING)
            setattr(owner, name, value)
        self._saved.append(saved)

    def __exit__(self, *exc):
        for key, value in reversed(list(self._saved.pop().items())):
            owner, name = self._config._owner(key)
            if value is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, value)
        return False


class _ConfigModule(types.ModuleType):
    """A config module: unknown keys read raise torch's AttributeError; the old names of renamed
    keys (`_ALIASES`: cache_size_limit -> recompile_limit) read and write the new key; a class
    in the module is a section of dotted keys ("triton.cudagraphs"). Mirrors the API of torch's
    config modules (torch.utils._config_module.ConfigModule): patch, get_config_copy,
    save_config, load_config, shallow_copy_dict."""

    def __getattr__(self, name):
        aliases = self.__dict__.get("_ALIASES", {})
        if name in aliases:
            return getattr(self, aliases[name])
        raise AttributeError(f"{self.__name__.replace('minitorch', 'torch')}.{name} does not exist")

    def __setattr__(self, name, value):
        name = self.__dict__.get("_ALIASES", {}).get(name, name)
        super().__setattr__(name, value)

    def __delattr__(self, name):
        super().__delattr__(self.__dict__.get("_ALIASES", {}).get(name, name))

    def _owner(self, key: str):
        """(the module or section object, attribute name) that holds the dotted key."""
        section, _, name = key.rpartition(".")
        owner = self
        for part in section.split(".") if section else ():
            owner = getattr(owner, part)
        return owner, name

    def _keys(self):
        # the config keys: public module globals that are not imports (modules, the
        # `from __future__ import annotations` feature), with each section's keys dotted
        for name, value in list(self.__dict__.items()):
            if name.startswith("_") or isinstance(value, (types.ModuleType, __future__._Feature)):
                continue
            if isinstance(value, type):
                for key in vars(value):
                    if not key.startswith("_"):
                        yield f"{name}.{key}"
            else:
                yield name

    def patch(self, arg1=None, arg2=None, **kwargs) -> _ConfigPatch:
        """Sets keys for a `with` block or a decorated function: patch(key=value, ...),
        patch({"key": value}) or patch("key", value); dotted keys reach sections. Mirrors
        torch's config.patch (an unknown key is accepted, as setting one is here)."""
        if arg1 is not None:
            if arg2 is not None:
                if not isinstance(arg1, str):
                    raise AssertionError(
                        "first argument must be a string when passing 2 positional args to patch"
                    )
                changes = {arg1: arg2}
            else:
                if not isinstance(arg1, dict):
                    raise AssertionError(
                        "first argument must be a dict when passing a single positional arg to "
                        "patch"
                    )
                changes = dict(arg1)
            if kwargs:
                raise AssertionError("cannot pass both positional and keyword arguments to patch")
        else:
            if arg2 is not None:
                raise AssertionError(
                    "second positional argument is only valid when first argument is a key string"
                )
            changes = kwargs
        return _ConfigPatch(self, changes)

    def get_config_copy(self) -> dict:
        """{key: value} of every key, sections' keys dotted. Mirrors config.get_config_copy."""
        return {key: getattr(*self._owner(key)) for key in self._keys()}

    def save_config(self) -> bytes:
        """The settings, pickled. Mirrors config.save_config."""
        return pickle.dumps(self.get_config_copy(), protocol=2)

    def load_config(self, maybe_pickled_config) -> None:
        """Restores settings from save_config's bytes or a dict. Mirrors config.load_config."""
        config = maybe_pickled_config
        if not isinstance(config, dict):
            config = pickle.loads(config)
        for key, value in config.items():
            setattr(*self._owner(key), value)

    def shallow_copy_dict(self) -> dict:
        """Deprecated, as in torch: get_config_copy. Mirrors config.shallow_copy_dict."""
        warnings.warn(
            "`config.shallow_copy_dict()` has been deprecated. It no longer changes the "
            "underlying config. use `config.get_config_copy()` instead if you just want a copy "
            "of the config, or config.load_config if you need mutable access",
            FutureWarning,
            stacklevel=2,
        )
        return self.get_config_copy()


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
