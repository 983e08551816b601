"""nn.utils.init: skip_init, building a module whose parameters the caller initialises."""

from __future__ import annotations

import inspect


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) for a caller who will initialise its parameters and buffers
    itself. Mirrors torch.nn.utils.skip_init (the same checks: a Module class whose constructor
    takes `device`; `device` defaults to 'cpu').

    Differences from torch: minitorch has no meta device, so the module is constructed on its
    final device with its default initialisation run (torch skips that work and leaves the
    tensors uninitialised, as torch.empty does): the values are not to be relied on either way.
    The CPU generator's state is restored afterwards, so the global random stream continues as
    torch's does (the draws of an initialisation on a CUDA device are not undone).
    """
    from minitorch.nn.modules.module import Module

    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs["device"] = kwargs.pop("device", "cpu")
    from minitorch import random as _random

    state = _random.get_rng_state()
    try:
        return module_cls(*args, **kwargs)
    finally:
        _random.set_rng_state(state)
