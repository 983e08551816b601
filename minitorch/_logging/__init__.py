"""torch._logging.set_logs: the compiler's log switches, accepted and ignored (minitorch has no
compiler to log about). Mirrors torch._logging."""

from __future__ import annotations

from minitorch._arg_errors import unexpected_keyword

__all__ = ["set_logs"]

# torch.compile's log components and artifacts, as torch's set_logs names its keywords
_LOG_NAMES = frozenset(
    """all dynamo aot autograd dynamic inductor distributed c10d ddp fsdp dtensor onnx bytecode
    aot_graphs aot_joint_graph ddp_graphs graph graph_code graph_code_verbose graph_breaks
    side_effects graph_sizes guards recompiles recompiles_verbose trace_source trace_call
    trace_bytecode output_code kernel_code schedule perf_hints pre_grad_graphs post_grad_graphs
    ir_pre_fusion ir_post_fusion onnx_diagnostics fusion overlap export modules cudagraphs
    sym_node compiled_autograd compiled_autograd_verbose cudagraph_static_inputs benchmarking
    autotuning incremental graph_region_expansion inductor_metrics hierarchical_compile
    compute_dependencies caching""".split()
)


def set_logs(**kwargs) -> None:
    """Accepts torch's keywords (dynamo=logging.DEBUG, graph_breaks=True, ...) and does nothing;
    an unknown keyword raises TypeError as in torch. Mirrors torch._logging.set_logs."""
    for name in kwargs:
        if name not in _LOG_NAMES:
            raise unexpected_keyword("set_logs", name)
