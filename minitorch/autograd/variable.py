"""Variable: the pre-0.4 wrapper, kept because old tutorials still write `Variable(x)`.
Mirrors torch.autograd.Variable: since tensors and variables merged, calling it returns a
tensor and every tensor is an instance of it."""

from __future__ import annotations

import warnings

from minitorch._tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class _ExecutionEngine:
    """Variable._execution_engine: the backward engine's Python face (queue_callback)."""

    @staticmethod
    def queue_callback(callback) -> None:
        from minitorch.autograd.engine import queue_callback

        queue_callback(callback)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False, volatile=False) -> a leaf tensor sharing data's
    memory (data.detach() with requires_grad set); with no data, an empty tensor.

    Differences from torch: `_grad_fn` (torch's internal fourth argument, which attaches a
    node) may only be None; `name` (the fifth) is checked and dropped."""

    _execution_engine = _ExecutionEngine()

    def __new__(cls, data=None, requires_grad=False, volatile=False, _grad_fn=None, name=None):
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if _grad_fn is not None:
            raise TypeError(
                f"_grad_fn has to be a Function object or None, but got {type(_grad_fn).__name__}"
            )
        if name is not None and not isinstance(name, str):
            raise TypeError(f"argument 5 must be str or None, not {type(name).__name__}")
        if data is None:
            from minitorch._factories import empty

            data = empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
