"""Counting reference cycles: how many objects a call leaves that only Python's cyclic garbage
collector would free. The collector is paused during the call, then its young generation is
collected: it holds every object the call made, so a cycle among them is found there."""

from __future__ import annotations

import gc


def cycles(fn) -> int:
    """How many objects fn() left in reference cycles."""
    gc.collect(0)
    gc.disable()
    try:
        fn()
        return gc.collect(0)
    finally:
        gc.enable()
