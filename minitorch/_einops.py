"""einops on minitorch tensors: rearrange/reduce/repeat/einsum/pack of a minitorch.Tensor.

NOTE [ einops backend ]
einops picks a backend per tensor type among the subclasses of its AbstractBackend whose
`framework_name` is an imported module; its torch backend looks for `torch`, so a minitorch
tensor was "a tensor type unknown to einops". minitorch registers a backend of its own: einops'
TorchBackend (whose methods are written against the torch API minitorch mirrors) with
`framework_name = "minitorch"` and minitorch as its `torch`. The subclass is defined when
einops._backends is imported (a meta path finder that runs after that module's own code), or at
once if einops was imported before minitorch; minitorch never imports einops itself.
Not covered: einops.layers.torch (its layer classes import torch).
"""

from __future__ import annotations

import sys

_TARGET = "einops._backends"


def _register(backends) -> None:
    """Defines the minitorch backend in einops' backend module (once)."""
    base = getattr(backends, "TorchBackend", None)
    if base is None or getattr(backends, "_minitorch_backend", None) is not None:
        return

    class MinitorchBackend(base):
        framework_name = "minitorch"

        def __init__(self):
            # (TorchBackend's own __init__ imports torch and its torch.compile hooks)
            import minitorch

            self.torch = minitorch

        def layers(self):
            raise NotImplementedError("einops.layers.torch needs torch; minitorch has no layers")

    backends._minitorch_backend = MinitorchBackend


class _Loader:
    """The module's own loader, then _register on the executed module (a plain class: the
    import system needs only these two methods, and importlib.abc costs import time)."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _register(module)


class _Finder:
    def find_spec(self, fullname, path, target=None):
        if fullname != _TARGET:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Loader(spec.loader)
                return spec
        return None


def install() -> None:
    """Registers the backend now if einops is loaded, else when it is."""
    backends = sys.modules.get(_TARGET)
    if backends is not None:
        _register(backends)
    elif not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
