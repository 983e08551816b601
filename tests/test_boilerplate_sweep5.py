"""Training-script boilerplate from the fifth sweep: torch.distributed's single-process queries,
torch._dynamo / _inductor / _logging settings, matmul precision linked to allow_tf32, the
torch.backends submodules, torch.mps / torch.cuda helpers and old-style torch.jit modules, each
as torch reports them on a machine without the backend."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from typing import Optional, Union

import pytest

import minitorch as mt
from minitorch import _settings
from minitorch._backend import CudaUnavailableError

needs_no_gpu = pytest.mark.skipif(mt.cuda.is_available(), reason="this machine has a GPU")


@pytest.fixture(autouse=True)
def _restore_settings():
    saved = dict(_settings._state)
    yield
    _settings._state.clear()
    _settings._state.update(saved)


_NEW_MODULES = (
    "minitorch.distributed",
    "minitorch._dynamo",
    "minitorch._inductor",
    "minitorch._logging",
    "minitorch.__config__",
    "minitorch.utils.deterministic",
    "minitorch.cuda.nvtx",
    "minitorch.cuda.random",
)


def test_new_modules_are_lazy_and_importable_by_name():
    code = (
        "import json, sys, minitorch\n"
        f"before = sorted(m for m in sys.modules if m.startswith({_NEW_MODULES!r}))\n"
        "import minitorch.distributed, minitorch._dynamo.config, minitorch._inductor.config\n"
        "import minitorch._logging, minitorch.utils.deterministic, minitorch.backends.mkldnn\n"
        "print(json.dumps([before, minitorch.__config__.__name__]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [[], "minitorch.__config__"]


def test_distributed_is_unavailable_and_needs_a_process_group():
    dist = importlib.import_module("minitorch.distributed")
    assert mt.distributed is dist
    assert dist.is_available() is False and dist.is_initialized() is False
    assert dist.ReduceOp.SUM.value == 0 and dist.ReduceOp.AVG.value == 1
    assert dist.group.WORLD is None and dist.GroupMember.WORLD is None
    no_group = "Default process group has not been initialized"
    for call in (
        dist.get_rank,
        dist.get_world_size,
        dist.get_backend,
        dist.barrier,
        lambda: dist.all_reduce(mt.ones(1), op=dist.ReduceOp.SUM),
        lambda: dist.broadcast(mt.ones(1), 0),
        lambda: dist.all_gather([mt.ones(1)], mt.ones(1)),
    ):
        with pytest.raises(ValueError, match=no_group):
            call()
    with pytest.raises(RuntimeError, match="no distributed backend"):
        dist.init_process_group("gloo")
    with pytest.raises(AssertionError, match="Process group cannot be None"):
        dist.destroy_process_group()


def test_dynamo_inductor_and_logging_settings():
    dynamo = mt._dynamo
    assert dynamo.config.suppress_errors is False and dynamo.config.cache_size_limit == 8
    dynamo.config.suppress_errors = True
    dynamo.config.cache_size_limit = 64  # torch's old name of recompile_limit
    try:
        assert dynamo.config.suppress_errors is True
        assert dynamo.config.recompile_limit == 64 and dynamo.config.cache_size_limit == 64
    finally:
        dynamo.config.suppress_errors, dynamo.config.recompile_limit = False, 8
    with pytest.raises(AttributeError, match=r"torch\._dynamo\.config\.no_such_key does not exist"):
        dynamo.config.no_such_key  # noqa: B018
    inductor = mt._inductor.config
    assert inductor.coordinate_descent_tuning is False and inductor.triton.cudagraphs is False
    inductor.coordinate_descent_tuning = True
    try:
        assert inductor.coordinate_descent_tuning is True
    finally:
        inductor.coordinate_descent_tuning = False

    def f(x):
        return x + 1

    assert dynamo.disable(f) is f and dynamo.disable()(f) is f
    assert dynamo.disable(recursive=False)(f) is f
    assert dynamo.reset() is None and dynamo.mark_dynamic(mt.ones(3), 0) is None
    assert mt.compiler.list_backends() == ["cudagraphs", "inductor", "openxla", "tvm"]
    assert "eager" in mt._dynamo.list_backends(exclude_tags=())
    mt._logging.set_logs(dynamo=10, graph_breaks=True, recompiles=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        mt._logging.set_logs(foo=1)


def test_matmul_precision_and_allow_tf32_are_one_setting():
    matmul = mt.backends.cuda.matmul
    mt.set_float32_matmul_precision("high")
    assert matmul.allow_tf32 is True and matmul.fp32_precision == "tf32"
    mt.set_float32_matmul_precision("highest")
    assert matmul.allow_tf32 is False and matmul.fp32_precision == "ieee"
    matmul.allow_tf32 = True
    assert mt.get_float32_matmul_precision() == "high"
    matmul.allow_tf32 = False
    assert mt.get_float32_matmul_precision() == "highest"
    for bad in (None, 1):
        with pytest.raises(RuntimeError, match="expects a str, but got"):
            mt.set_float32_matmul_precision(bad)


def test_backends_submodules():
    b = mt.backends
    assert b.mkldnn.is_available() is False and b.mkldnn.enabled is True
    with b.mkldnn.flags(enabled=False):
        assert b.mkldnn.enabled is False
    assert b.mkldnn.enabled is True
    with pytest.raises(RuntimeError, match="set_enabled_mkldnn expects a bool, but got int"):
        b.mkldnn.enabled = 1
    assert (b.mkl.is_available(), b.openmp.is_available(), b.nnpack.is_available()) == (
        False,
        False,
        False,
    )
    assert b.opt_einsum.is_available() is False and b.opt_einsum.strategy is None
    assert b.quantized.engine == "x86"
    with pytest.raises(RuntimeError, match="foo is not a valid value for quantized engine"):
        b.quantized.engine = "foo"
    assert b.fp32_precision == "none" and b.cudnn.fp32_precision == "none"
    assert b.cudnn.conv.fp32_precision == "tf32" and b.cudnn.rnn.fp32_precision == "tf32"
    with pytest.raises(RuntimeError, match="Unknown precision: fp64"):
        b.cudnn.conv.fp32_precision = "fp64"
    assert mt.__config__.show().startswith("minitorch")
    det = importlib.import_module("minitorch.utils.deterministic")
    assert det.fill_uninitialized_memory is True
    with pytest.raises(RuntimeError, match="expected a bool, but got int"):
        det.fill_uninitialized_memory = 1


def test_mps_helpers_without_mps():
    assert mt.mps.manual_seed(0) is None
    for call, what in (
        (mt.mps.empty_cache, "emptyCache"),
        (mt.mps.synchronize, "deviceSynchronize"),
        (mt.mps.get_rng_state, "getDefaultGenerator"),
        (mt.backends.mps.is_macos13_or_newer, "isOnMacOSorNewer"),
    ):
        with pytest.raises(RuntimeError, match=f"Cannot execute {what}\\(\\) without MPS backend"):
            call()


def test_cuda_helpers():
    cuda = mt.cuda
    assert cuda.random.manual_seed is cuda.manual_seed
    assert cuda.nvtx is sys.modules["minitorch.cuda.nvtx"]
    with cuda.device_of(mt.ones(1)):  # a CPU tensor: changes nothing
        pass
    assert cuda._is_compiled() is (importlib.util.find_spec("cupy") is not None)
    with pytest.raises(RuntimeError, match="CUDAGraph"):
        cuda.CUDAGraph()
    with pytest.warns(FutureWarning, match="renamed to `torch.cuda.memory_reserved`"):
        assert cuda.memory_cached() == cuda.memory_reserved()


@needs_no_gpu
def test_cuda_helpers_without_a_gpu():
    cuda = mt.cuda
    assert cuda.get_arch_list() == []
    with pytest.raises(RuntimeError, match="NVTX functions not installed"):
        cuda.nvtx.range_push("step")
    with pytest.raises(RuntimeError, match="NVTX functions not installed"):
        with cuda.nvtx.range("step"):
            pass
    for call in (cuda.ipc_collect, cuda.get_sync_debug_mode, lambda: cuda.set_sync_debug_mode(1)):
        with pytest.raises(CudaUnavailableError):
            call()
    with pytest.raises(RuntimeError, match="is_current_stream_capturing requires CUDA"):
        cuda.is_current_stream_capturing()
    # resuming a GPU checkpoint on a CPU machine: torch defers the call, which never runs
    assert cuda.set_rng_state(mt.get_rng_state()) is None
    cuda.set_rng_state_all([mt.get_rng_state()])
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        with cuda.device(0):
            pass
    with cuda.device(-1):
        pass


def test_old_style_script_module():
    jit = mt.jit

    class Old(jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.scale = jit.Attribute(2.0, float)
            self.lin = mt.nn.Linear(3, 2)

        @jit.script_method
        def forward(self, x):
            return self.lin(x) * self.scale

    m = Old()
    assert isinstance(m, mt.nn.Module) and m.scale == 2.0
    assert len(list(m.parameters())) == 2 and m(mt.ones(1, 3)).shape == (1, 2)
    assert jit.Attribute(3, int) == (3, int) and jit.Attribute(3, int).value == 3
    assert not isinstance(mt.nn.Linear(1, 1), jit.ScriptModule)
    cases = [
        ([1, 2], list[int], True),
        ([1, "a"], list[int], False),
        ({"a": 1}, dict[str, int], True),
        ({"a": "b"}, dict[str, int], False),
        ((1, "a"), tuple[int, str], True),
        ((1, 2), tuple[int, str], False),
        (None, Optional[int], True),  # noqa: UP045 - torch scripts spell it this way
        ("a", Union[int, float], False),  # noqa: UP007
        ([[1]], list[list[int]], True),
    ]
    for obj, t, expected in cases:
        assert jit.isinstance(obj, t) is expected, (obj, t)
    with pytest.raises(RuntimeError, match="without a contained type"):
        jit.isinstance([1], list)
    jit.enable_onednn_fusion(True)
    try:
        assert jit.onednn_fusion_enabled() is True
    finally:
        jit.enable_onednn_fusion(False)
    previous = jit.set_fusion_strategy([("STATIC", 3)])
    assert previous == [("STATIC", 2), ("DYNAMIC", 10)]
    assert jit.set_fusion_strategy(previous) == [("STATIC", 3)]
    with pytest.raises(ValueError, match="only supported 'STATIC' or 'DYNAMIC', got: FOO"):
        jit.set_fusion_strategy([("FOO", 1)])


def test_utils_deterministic_is_a_lazy_attribute():
    import subprocess
    import sys

    code = "import minitorch; print(minitorch.utils.deterministic.fill_uninitialized_memory)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() in ("True", "False")
