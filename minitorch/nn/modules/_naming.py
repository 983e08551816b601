"""own_methods: per-class copies of inherited methods, so argument errors name the class."""

from __future__ import annotations

import types


def own_methods(cls: type, *names: str) -> None:
    """Gives `cls` its own copy of each inherited method in `names`, named `cls.<name>`.

    Python's errors for a missing argument name the function's class: nn.Conv2d(1, 1) said
    `_Conv.__init__() missing ...`, where torch, whose Conv2d defines __init__ itself, says
    `Conv2d.__init__() missing 1 required positional argument: 'kernel_size'`. The copy shares
    the code object (and its closure, so a bare super() still starts from the defining class):
    nothing changes but the name, and a call costs what it did.
    """
    for name in names:
        fn = getattr(cls, name)
        copy = types.FunctionType(
            fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
        )
        copy.__kwdefaults__ = fn.__kwdefaults__
        copy.__doc__ = fn.__doc__
        copy.__annotations__ = fn.__annotations__
        copy.__dict__.update(fn.__dict__)
        copy.__module__ = cls.__module__
        copy.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, copy)
