"""Which modules a program is inside of. Mirrors torch.utils.module_tracker."""

from __future__ import annotations

import weakref

__all__ = ["ModuleTracker"]


def _tensors_in(obj, tensor_cls):
    """The tensors in obj and the tuples, lists and dicts in it, in order (module level: a
    nested generator calling itself holds itself in a reference cycle, function <-> cell)."""
    if isinstance(obj, tensor_cls):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for x in obj:
            yield from _tensors_in(x, tensor_cls)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from _tensors_in(x, tensor_cls)


class ModuleTracker:
    """A context manager that keeps `parents`, the names of the modules whose forward (or
    backward) is running, always with "Global"; a root module is named by its class, its
    submodules "Root.child.grandchild". `is_bw` tells whether a backward is running. Mirrors
    torch.utils.module_tracker.ModuleTracker.

    Differences from torch: the backward is followed by hooks on the module's output and input
    tensors (torch uses multi-gradient hooks); a module whose inputs' hooks do not run (no input
    needs a gradient) stays in `parents` until that backward ends."""

    _follow_backward = True

    def __init__(self) -> None:
        self.parents = {"Global"}
        self._known_modules = weakref.WeakKeyDictionary()
        self._seen_modules = weakref.WeakSet()  # those whose submodules are named
        self._handles = []
        self._in_bw = 0

    @property
    def is_bw(self) -> bool:
        """Whether a backward is running (as torch: any backward, tracked modules or not)."""
        from minitorch.autograd.grad_mode import state

        return state.graph_task is not None

    def _get_mod_name(self, mod) -> str:
        name = self._known_modules.get(mod)
        if name is None:
            name = self._known_modules[mod] = type(mod).__name__
        if mod not in self._seen_modules:
            # as torch: the first time a module runs, its whole subtree is named after it (a
            # child that ran alone before, by its class, is renamed)
            self._seen_modules.add(mod)
            for child_name, child in mod.named_children():
                self._known_modules[child] = f"{name}.{child_name}"
                self._get_mod_name(child)
        return name

    def _fw_pre_hook(self, mod, args):
        self.parents.add(self._get_mod_name(mod))

    def _fw_post_hook(self, mod, args, output):
        name = self._get_mod_name(mod)
        self.parents.discard(name)
        self._track_backward(name, args, output)

    def _track_backward(self, name, args, output):
        from minitorch._tensor import Tensor
        from minitorch.autograd.engine import queue_callback

        if not self._follow_backward:
            return
        outs = [t for t in _tensors_in(output, Tensor) if t.requires_grad]
        if not outs:
            return
        ins = [t for t in _tensors_in(args, Tensor) if t.requires_grad]

        def enter(grad):
            if name not in self.parents:
                self.parents.add(name)
                self._in_bw += 1
                queue_callback(leave)  # whatever the inputs' hooks do, out when backward ends
            return grad

        def leave(grad=None):
            if name in self.parents and name != "Global":
                self.parents.discard(name)
                self._in_bw = max(self._in_bw - 1, 0)
            return grad

        for t in outs:
            t.register_hook(enter)
        for t in ins:
            t.register_hook(leave)

    def __enter__(self):
        from minitorch.nn.modules._hooks import (
            register_module_forward_hook,
            register_module_forward_pre_hook,
        )

        self._handles = [
            register_module_forward_pre_hook(self._fw_pre_hook),
            register_module_forward_hook(self._fw_post_hook, always_call=True),
        ]
        return self

    def __exit__(self, *args):
        for h in self._handles:
            h.remove()
        self._handles = []
        self.parents = {"Global"}
        self._in_bw = 0
