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
max_autotune_gemm_backends = "ATEN,TRITON,CPP"
max_autotune_conv_backends = "ATEN,TRITON"


class triton:
    """torch._inductor.config.triton's common keys."""

    cudagraphs = False
    cudagraph_trees = True
    unique_kernel_names = True


class cpp:
    """torch._inductor.config.cpp's common keys (the CPU code generator)."""

    threads = -1
    no_redundant_loops = True
    dynamic_threads = False
    simdlen = None
    min_chunk_size = 512
    cxx = (None, "g++")
    enable_kernel_profile = False
    weight_prepack = True
    vec_isa_ok = None
    descriptive_names = "original_aten"
    max_horizontal_fusion_size = 16
    fallback_scatter_reduce_sum = True
    enable_unsafe_math_opt_flag = False
    enable_floating_point_contract_flag = "off"
    enable_tiling_heuristics = True
    enable_loop_tail_vec = True
    enable_concat_linear = False
    use_decompose_tanh = False
    use_small_dequant_buffer = False


class trace:
    """torch._inductor.config.trace's common keys (debug dumps of generated code)."""

    enabled = False
    save_real_tensors = False
    debug_dir = None
    debug_log = False
    info_log = False
    fx_graph = True
    fx_graph_transformed = True
    ir_pre_fusion = True
    ir_post_fusion = True
    output_code = True
    graph_diagram = False
    draw_orig_fx_graph = False
    dot_graph_shape = None
    log_url_for_graph_xform = None
    compile_profile = False
    upload_tar = None
    log_autotuning_results = False


sys.modules[__name__].__class__ = _ConfigModule
