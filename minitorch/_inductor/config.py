"""torch._inductor.config: the code generator's settings (coordinate_descent_tuning, max_autotune,
triton.cudagraphs, ...), stored only: minitorch compiles nothing.

Mirrors torch._inductor.config for the commonly set keys, with torch's defaults; unknown keys
behave as in minitorch/_dynamo/config.py (see its Differences from torch).
"""

from __future__ import annotations

import os
import sys

from minitorch._dynamo.config import _ConfigModule

coordinate_descent_tuning = False
coordinate_descent_check_all_directions = False
max_autotune = False
max_autotune_gemm = False
max_autotune_pointwise = False
epilogue_fusion = True
aggressive_fusion = False
fx_graph_cache = True
fx_graph_remote_cache = None
autotune_local_cache = True
freezing = False
cpp_wrapper = False
debug = False
shape_padding = True
benchmark_kernel = False
conv_1x1_as_mm = False
split_reductions = True
layout_optimization = True
fallback_random = False
force_fuse_int_mm_with_mul = False
use_mixed_mm = True
unroll_reductions_threshold = 8
compile_threads = min(32, os.cpu_count() or 1)  # torch's rule on Linux


class triton:
    """torch._inductor.config.triton's common keys."""

    cudagraphs = False
    cudagraph_trees = True
    unique_kernel_names = True


sys.modules[__name__].__class__ = _ConfigModule
