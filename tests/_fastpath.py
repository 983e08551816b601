"""Shared helpers of the fast-path tests: a no-grad fast path (NOTE [ The no-grad fast path ] in
minitorch/autograd/function.py) is checked against the op's general route, which the fast
paths' switch turns them off for (as a profile does)."""

from __future__ import annotations

import minitorch as torch
from minitorch.autograd import function


class full_path:  # noqa: N801 (used as a function: `with full_path():`)
    """Turns the fast paths off inside the `with`: the general route's result is the
    reference."""

    def __enter__(self):
        function.fast_path[0] = False

    def __exit__(self, *exc):
        function.fast_path[0] = True


def both(fn):
    """fn() under no_grad on the fast path (first: it is the one tested) and on the general
    route."""
    with torch.no_grad():
        fast = fn()
        with full_path():
            full = fn()
    return fast, full


def error_of(fn):
    """(type, message) of the error fn() raises; AssertionError where it raises none."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (any error: compared by type and message)
        return type(e), str(e)
    raise AssertionError("no error")
