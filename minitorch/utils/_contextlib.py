"""Context managers usable as decorators. Mirrors torch.utils._contextlib.

Libraries subclass torch's _DecoratorContextManager for their own modes (define __enter__,
__exit__ and, when __init__ takes arguments, clone) and wrap functions with context_decorator.
minitorch's grad modes already have that machinery (minitorch.autograd.grad_mode): this module
names it as torch does, so isinstance(minitorch.no_grad(), _DecoratorContextManager) holds too.
"""

from __future__ import annotations

import inspect

from minitorch.autograd.grad_mode import _GradModeContext

__all__ = ["_DecoratorContextManager", "_NoParamDecoratorContextManager", "context_decorator"]

# A context manager whose instances decorate functions (generator functions too: the context
# holds while the generator runs, not between its yields); each call enters self.clone().
_DecoratorContextManager = _GradModeContext


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """A _DecoratorContextManager that also decorates without parentheses (`@mode` as well as
    `@mode()`). Mirrors torch.utils._contextlib._NoParamDecoratorContextManager."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class _FromFactory(_DecoratorContextManager):
    # context_decorator's adapter: every call of the wrapped function enters a fresh context
    # from the factory, so one-shot context managers work too
    def __init__(self, factory):
        self._factory = factory

    def clone(self):
        return self._factory()


def context_decorator(ctx, func):
    """func wrapped to run inside ctx: a reusable context manager, or a callable making one per
    call. Mirrors torch.utils._contextlib.context_decorator."""
    if callable(ctx) and hasattr(ctx, "__enter__"):
        raise AssertionError(
            f"Passed in {ctx} is both callable and also a valid context manager (has __enter__), "
            "making it ambiguous which interface to use.  If you intended to pass a context "
            "manager factory, rewrite your call as context_decorator(lambda: ctx()); if you "
            "intended to pass a context manager directly, rewrite your call as "
            "context_decorator(lambda: ctx)"
        )
    if inspect.isclass(func):
        raise RuntimeError(
            "Cannot decorate classes; it is ambiguous whether or not only the constructor or all "
            "methods should have the context manager applied; additionally, decorating a class "
            "at definition-site will prevent use of the identifier as a conventional type.  To "
            "specify which methods to decorate, decorate each of them individually."
        )
    factory = ctx if callable(ctx) else (lambda: ctx)
    return _FromFactory(factory)(func)
