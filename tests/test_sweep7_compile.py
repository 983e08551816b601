"""Sweep 7: torch.compile / TorchScript / dynamo compatibility surface (the names scripts call
around compilation, which minitorch runs eagerly)."""

from __future__ import annotations

import collections
import importlib
import pickle
import subprocess
import sys
import typing

import numpy as np
import pytest

import minitorch as torch


def test_optimized_module_lives_in_eval_frame():
    eval_frame = importlib.import_module("minitorch._dynamo.eval_frame")
    from minitorch._dynamo.eval_frame import OptimizedModule

    assert torch._dynamo.eval_frame is eval_frame
    assert torch._dynamo.OptimizedModule is OptimizedModule
    assert issubclass(OptimizedModule, torch.nn.Module)
    lin = torch.nn.Linear(2, 2)
    assert not isinstance(lin, OptimizedModule)
    assert isinstance(torch.compile(lin), OptimizedModule)  # compile wraps lin, as torch
    wrapped = OptimizedModule(lin)
    x = torch.ones(1, 2)
    np.testing.assert_allclose(wrapped(x).detach().numpy(), lin(x).detach().numpy())


def test_jit_fuser_switches_return_torchs_values():
    c = torch._C
    assert c._jit_set_profiling_executor(False) is True  # the previous setting
    assert c._jit_set_profiling_executor(True) is False
    assert c._jit_set_profiling_mode(False) is True
    assert c._jit_set_profiling_mode(True) is False
    assert c._jit_override_can_fuse_on_cpu(True) is None
    assert c._jit_can_fuse_on_cpu() is True
    c._jit_override_can_fuse_on_cpu(False)
    assert c._jit_override_can_fuse_on_gpu(True) is None
    c._jit_override_can_fuse_on_gpu(False)
    assert c._jit_set_texpr_fuser_enabled(False) is None
    assert c._jit_texpr_fuser_enabled() is False
    c._jit_set_texpr_fuser_enabled(True)
    assert c._set_graph_executor_optimize(False) is None
    assert c._get_graph_executor_optimize(True) is False
    assert c._get_graph_executor_optimize() is True
    assert c._jit_set_nvfuser_enabled(False) is None
    with pytest.raises(TypeError, match="incompatible function arguments"):
        c._jit_set_profiling_executor("yes")


def test_cuda_nvtx_and_random_are_importable_submodules():
    code = (
        "import minitorch.cuda.nvtx as nvtx\n"
        "from minitorch.cuda.nvtx import range_push\n"
        "import minitorch.cuda.random\n"
        "import minitorch as t\n"
        "assert t.cuda.nvtx is nvtx and nvtx.range_push is range_push\n"
        "assert t.cuda.random.manual_seed is t.cuda.manual_seed\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(_repo_root()))


def _repo_root():
    import pathlib

    return pathlib.Path(torch.__file__).resolve().parent.parent


def test_assert_async():
    ids = torch.tensor([0, 3, 7])
    assert torch._assert_async((ids >= 0).all()) is None
    assert torch._assert_async(torch.tensor(float("nan"))) is None  # nan is nonzero
    with pytest.raises(RuntimeError, match="^ids out of range$"):
        torch._assert_async((ids < 5).all(), "ids out of range")
    with pytest.raises(RuntimeError, match="single nonzero value, but got zero"):
        torch._assert_async(torch.tensor(0.0))
    with pytest.raises(RuntimeError, match="^Assertion is failed$"):
        torch._assert_async(torch.tensor(0), "")
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        torch._assert_async(torch.tensor([1, 1]))
    with pytest.raises(RuntimeError, match="no values is ambiguous"):
        torch._assert_async(torch.tensor([]))
    with pytest.raises(TypeError, match="must be Tensor, not bool"):
        torch._assert_async(True)


def test_assert_scalar_and_tensor_metadata():
    assert torch._assert_scalar(1.0, "msg") is None
    with pytest.raises(RuntimeError, match="^msg$"):
        torch._assert_scalar(0, "msg")
    x = torch.ones(2, 3)
    torch._assert_tensor_metadata(x, [2, 3], [3, 1], torch.float32, device="cpu")
    with pytest.raises(RuntimeError, match=r"sizes mismatch! Expected: \[2, 4\], Got: \[2, 3\]"):
        torch._assert_tensor_metadata(x, size=[2, 4])
    with pytest.raises(RuntimeError, match=r"strides mismatch! Expected: \[1, 1\], Got: \[3, 1\]"):
        torch._assert_tensor_metadata(x, stride=(1, 1))
    with pytest.raises(RuntimeError, match="dtype mismatch! Expected: Double, Got: float"):
        torch._assert_tensor_metadata(x, dtype=torch.float64)


def test_config_patch_context_manager_and_decorator():
    import minitorch._inductor.config as inductor

    dynamo = torch._dynamo.config
    with dynamo.patch(suppress_errors=True, cache_size_limit=64):
        assert dynamo.suppress_errors is True
        assert dynamo.recompile_limit == 64  # the old name writes the new key
    assert dynamo.suppress_errors is False
    assert dynamo.recompile_limit == 8

    @inductor.patch({"coordinate_descent_tuning": True, "cpp.threads": 3})
    def run():
        return inductor.coordinate_descent_tuning, inductor.cpp.threads

    assert run() == (True, 3)
    assert (inductor.coordinate_descent_tuning, inductor.cpp.threads) == (False, -1)
    with inductor.patch("trace.enabled", True):
        assert inductor.trace.enabled is True
    assert inductor.trace.enabled is False
    # a key that did not exist is removed again; an exception still restores
    with pytest.raises(ValueError), dynamo.patch(brand_new_key=1):
        assert dynamo.brand_new_key == 1
        raise ValueError
    with pytest.raises(AttributeError, match="torch._dynamo.config.brand_new_key does not exist"):
        dynamo.brand_new_key  # noqa: B018
    with pytest.raises(AssertionError, match="cannot pass both positional and keyword"):
        dynamo.patch({"verbose": True}, suppress_errors=True)
    with pytest.raises(AssertionError, match="must be a dict when passing a single positional"):
        dynamo.patch("verbose")


def test_config_copy_save_load_and_inductor_sections():
    import minitorch._inductor.config as inductor

    copy = inductor.get_config_copy()
    assert copy["cpp.threads"] == -1 and copy["trace.enabled"] is False
    assert copy["max_autotune_gemm_backends"] == "ATEN,TRITON,CPP"
    assert copy["triton.cudagraphs"] is False
    assert "os" not in copy and "annotations" not in copy
    saved = inductor.save_config()
    assert isinstance(saved, bytes) and pickle.loads(saved) == copy
    inductor.cpp.threads = 7
    inductor.load_config(saved)
    assert inductor.cpp.threads == -1
    with pytest.warns(FutureWarning, match="shallow_copy_dict"):
        assert torch._dynamo.config.shallow_copy_dict()["recompile_limit"] == 8
    assert inductor.cpp.enable_kernel_profile is False


def test_set_stance_and_graph_break():
    from minitorch import compiler

    assert compiler._stance == ["default"]
    compiler.set_stance("force_eager")
    assert compiler._stance == ["force_eager"]
    with compiler.set_stance("eager_on_recompile"):
        assert compiler._stance == ["eager_on_recompile"]
    assert compiler._stance == ["force_eager"]
    compiler.set_stance("default")

    @compiler.set_stance("force_eager")
    def stance():
        return compiler._stance[0]

    assert compiler._stance == ["default"]
    assert stance() == "force_eager" and compiler._stance == ["default"]
    with pytest.raises(RuntimeError, match="non-default stance cannot have force_backend set"):
        compiler.set_stance("force_eager", force_backend="eager")
    assert torch._dynamo.set_stance is compiler.set_stance

    def f(x):
        y = x * 2
        torch._dynamo.graph_break()
        return y + 1

    np.testing.assert_allclose(f(torch.ones(2)).numpy(), [3.0, 3.0])


def test_dynamo_optimize_explain_and_decorators():
    from minitorch._misc_api import InvalidBackend

    def fn(a):
        return a + 1

    assert torch._dynamo.optimize("eager")(fn) is fn
    with pytest.raises(InvalidBackend, match="Invalid backend: 'nope'"):
        torch._dynamo.optimize("nope")
    with pytest.raises(AssertionError, match="A callable function is expected"):
        torch._dynamo.optimize(3)
    calls = []
    out = torch._dynamo.explain(lambda a: calls.append(a))(5)
    assert calls == [5] and type(out).__name__ == "ExplainOutput"
    assert (out.graph_count, out.graph_break_count, out.break_reasons) == (0, -1, [])
    assert str(out).startswith("Graph Count: 0\nGraph Break Count: -1\nOp Count: 0\n")
    assert torch._dynamo.assume_constant_result(fn) is fn
    assert torch._dynamo.forbid_in_graph(fn) is fn
    with pytest.raises(AssertionError, match="forbid_in_graph applies only to callables"):
        torch._dynamo.forbid_in_graph(3)
    assert torch._dynamo.substitute_in_graph(len)(fn) is fn
    with pytest.raises(TypeError, match="substitute_in_graph expects a function"):
        torch._dynamo.substitute_in_graph(3)
    from minitorch._dynamo.utils import counters

    assert counters["frames"]["ok"] == 0 and isinstance(counters["x"], collections.Counter)


def test_jit_annotations_and_fx_symbolic_trace():
    from minitorch.fx._symbolic_trace import is_fx_tracing
    from minitorch.jit.annotations import BroadcastingList2, Dict, List, Optional, Tuple

    assert (List, Tuple, Dict, Optional) == (
        typing.List,  # noqa: UP006
        typing.Tuple,  # noqa: UP006
        typing.Dict,  # noqa: UP006
        typing.Optional,
    )
    assert BroadcastingList2[int] is None  # a TorchScript-only hint, as in torch
    assert is_fx_tracing() is False
    assert torch.fx._symbolic_trace.is_fx_tracing() is False
    assert torch.jit.script is importlib.import_module("minitorch.jit").script


def test_disabled_profile_binds_none():
    with torch.autograd.profiler.profile(enabled=False) as prof:
        torch.ones(3) * 2
    assert prof is None
    with torch.autograd.profiler.emit_nvtx(enabled=False) as nvtx:
        pass
    assert nvtx is None
    with torch.autograd.profiler.profile() as prof:
        torch.ones(3) * 2
    assert prof is not None


def test_compiler_disable_rejects_non_callables():
    with pytest.raises(AssertionError, match="^fn must be callable$"):
        torch.compiler.disable(3)
    with pytest.raises(AssertionError, match="^fn must be callable$"):
        torch._dynamo.disable(recursive=False)(3)
    assert torch.compiler.disable(len) is len


def test_jit_misuse_raises_torchs_errors():
    with pytest.raises(RuntimeError, match="inherits from nn.Module, pass an instance instead"):
        torch.jit.script(torch.nn.Linear)
    with pytest.raises(RuntimeError, match="example_kwarg_inputs should be a dict"):
        torch.jit.trace(torch.nn.Linear(2, 2))
    with pytest.raises(TypeError, match="'NoneType' object is not iterable"):
        torch.jit.trace(lambda x: x)
    lin = torch.nn.Linear(2, 2)
    assert torch.jit.trace(lin, torch.ones(1, 2)) is lin
    with pytest.raises(RuntimeError, match="use List without a contained type.*List\\[int\\]"):
        torch.jit.isinstance([1], typing.List)  # noqa: UP006
    with pytest.raises(RuntimeError, match="use Dict without contained types.*Dict\\[int, int\\]"):
        torch.jit.isinstance({}, typing.Dict)  # noqa: UP006
    with pytest.raises(RuntimeError, match="use dict without contained types"):
        torch.jit.isinstance({}, dict)
    assert torch.jit.isinstance([1], typing.List[int])  # noqa: UP006
    fut = torch.jit.fork(lambda: 1)
    assert fut.value() == 1
    assert fut.then(lambda f: f.wait() + 1).wait() == 2


def test_import_minitorch_loads_none_of_these_modules():
    code = "import minitorch, sys; print(' '.join(m for m in sys.modules if 'minitorch' in m))"
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=_repo_root()
    )
    loaded = set(out.stdout.split())
    assert "minitorch.autograd" in loaded  # the check below can fail
    lazy = ["minitorch.jit", "minitorch.fx", "minitorch._dynamo", "minitorch._C", "minitorch.cuda"]
    for name in [*lazy, "minitorch.cuda.nvtx", "minitorch.cuda.random"]:
        assert name not in loaded, name


def test_compile_refuses_a_misspelled_keyword():
    m = torch.nn.Linear(1, 1)
    assert torch.compile(m, name="net", recompile_limit=3, isolate_recompiles=True)._orig_mod is m
    with pytest.raises(TypeError, match="unexpected keyword argument 'fullgrpah'"):
        torch.compile(m, fullgrpah=True)
