"""torch.compiler.config: the settings that cut across the compiler stack (job_id, cache keys,
dynamic-shape sources), stored only: minitorch.compile compiles nothing.

Mirrors torch.compiler.config's keys with torch's defaults; unknown keys behave as in
minitorch/_dynamo/config.py (see its Differences from torch).
"""

from __future__ import annotations

import sys

from minitorch._dynamo.config import _ConfigModule

job_id = None
pgo_extra_read_key = None
pgo_extra_write_key = None
cache_key_tag = ""
force_disable_caches = False
dynamic_sources = ""
dynamic_values = ""
unbacked_sources = ""
force_cudagraph_gc = False

sys.modules[__name__].__class__ = _ConfigModule
