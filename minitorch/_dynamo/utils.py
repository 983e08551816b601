"""torch._dynamo.utils: only `counters`, the statistics that tests and benchmark scripts read
after compiling. Mirrors torch._dynamo.utils.

Differences from torch: nothing is compiled, so nothing is ever counted (the counters stay empty
unless a script adds to them)."""

from __future__ import annotations

import collections

__all__ = ["counters"]

counters: collections.defaultdict[str, collections.Counter] = collections.defaultdict(
    collections.Counter
)
