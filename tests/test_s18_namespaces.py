"""torch.hub local entrypoints, torch.futures, pytree dataclasses, and small namespaces
(jit.fuser, compiler.config, cpu.get_capabilities, accelerator.get_device_capability, finfo)."""

from __future__ import annotations

import dataclasses
import sys
import threading

import numpy as np
import pytest

import minitorch as mt
import minitorch.utils._pytree as pt

# --- torch.hub.load(dir, model, source="local") ---


def _repo(tmp_path, text: str):
    (tmp_path / "hubconf.py").write_text(text)
    (tmp_path / "helper_s18.py").write_text("SCALE = 7\n")
    return str(tmp_path)


def test_hub_load_local_runs_the_entrypoint(tmp_path):
    repo = _repo(
        tmp_path,
        "import sys\nimport helper_s18\ndependencies = ['json', 'os.path']\n"
        "def tiny(a, *rest, scale=1.0):\n"
        "    return [a, rest, scale, helper_s18.SCALE, sys.path[0]]\n"
        "def _private():\n    return 'p'\nnot_callable = 3\n",
    )
    out = mt.hub.load(repo, "tiny", 1, 2, source="local", trust_repo=True, verbose=False, scale=3)
    # the hub's own keywords are not passed on; the directory is importable while it runs
    assert out == [1, (2,), 3, 7, repo]
    assert repo not in sys.path and "hubconf.py" not in sys.modules
    assert mt.hub.load(repo, "_private", source="LOCAL") == "p"  # source is case-insensitive
    with pytest.raises(RuntimeError, match="Cannot find callable not_callable in hubconf"):
        mt.hub.load(repo, "not_callable", source="local")
    with pytest.raises(RuntimeError, match="Cannot find callable nope in hubconf"):
        mt.hub.load(repo, "nope", source="local")
    with pytest.raises(ValueError, match="model should be a string"):
        mt.hub.load(repo, 3, source="local")


def test_hub_load_local_errors(tmp_path):
    repo = _repo(tmp_path, "dependencies = ['json', 'no_such_mod_s18', 'nor_this_s18']\n"
                 "def tiny():\n    return 1\n")  # fmt: skip
    with pytest.raises(RuntimeError, match="^Missing dependencies: no_such_mod_s18, nor_this_s18$"):
        mt.hub.load(repo, "tiny", source="local")
    with pytest.raises(
        ValueError, match='^Unknown source: "x". Allowed values: "github" | "local".'
    ):
        mt.hub.load(repo, "tiny", source="x")
    with pytest.raises(FileNotFoundError, match="hubconf.py"):
        mt.hub.load(str(tmp_path / "absent"), "tiny", source="local")
    with pytest.raises(NotImplementedError, match="source='local'"):
        mt.hub.load("pytorch/vision", "resnet18")  # GitHub: nothing is downloaded


# --- torch.futures ---


def test_future_result_then_and_callbacks():
    fut = mt.futures.Future()
    assert not fut.done()
    seen = []
    fut.add_done_callback(lambda f: seen.append(f.value()))
    chained = fut.then(lambda f: f.wait() + 1).then(lambda f: f.value() * 10)
    assert not chained.done()
    fut.set_result(5)
    assert fut.done() and fut.wait() == 5 and fut.value() == 5
    assert seen == [5] and chained.wait() == 60
    assert fut.then(lambda f: f.value() - 1).wait() == 4  # already complete: runs inline
    with pytest.raises(RuntimeError, match="can only be marked completed once"):
        fut.set_result(6)
    with pytest.raises(RuntimeError):
        mt.futures.Future().value()  # nothing set yet


def test_future_exceptions():
    fut = mt.futures.Future()
    err = ValueError("foo")
    fut.set_exception(err)
    assert fut.done()
    with pytest.raises(ValueError, match="foo") as info:
        fut.wait()
    assert info.value is err
    child = fut.then(lambda f: f.wait() + 1)
    with pytest.raises(RuntimeError, match="error when running the callback: ValueError: foo"):
        child.wait()
    with pytest.raises(AssertionError, match="5 is of type <class 'int'>, not an Exception."):
        mt.futures.Future().set_exception(5)


def test_add_done_callback_error_is_reported_not_raised(capsys):
    fut = mt.futures.Future()
    ran = []
    fut.add_done_callback(lambda f: 1 / 0)
    fut.add_done_callback(lambda f: ran.append(True))
    fut.set_result(1)
    assert ran == [True]
    assert "ZeroDivisionError" in capsys.readouterr().err


def test_collect_all_and_wait_all():
    a, b = mt.futures.Future(), mt.futures.Future()
    both = mt.futures.collect_all([a, b])
    a.set_result(1)
    assert not both.done()
    b.set_result(2)
    assert [f.wait() for f in both.wait()] == [1, 2]
    assert mt.futures.wait_all((a, b)) == [1, 2]
    assert mt.futures.collect_all([]).wait() == [] and mt.futures.wait_all([]) == []
    bad = mt.futures.Future()
    bad.set_exception(KeyError("k"))
    with pytest.raises(KeyError):
        mt.futures.wait_all([a, bad])
    with pytest.raises(TypeError):
        mt.futures.collect_all([3])


def test_future_wait_blocks_until_another_thread_sets_it():
    fut = mt.futures.Future()
    out = fut.then(lambda f: f.value() * 2)
    worker = threading.Thread(target=fut.set_result, args=(21,))
    worker.start()
    assert out.wait() == 42
    worker.join()


def test_jit_fork_returns_a_torch_future():
    fut = mt.jit.fork(lambda x, y=0: x * 2 + y, mt.ones(2), y=1)
    assert type(fut) is mt.futures.Future is mt.jit.Future is mt.Future
    np.testing.assert_array_equal(mt.jit.wait(fut).numpy(), [3.0, 3.0])
    assert mt.futures.Future[int] is not None  # generic, as torch's
    with pytest.raises(ValueError, match="Expected devices to have indices, got cpu"):
        mt.futures.Future(devices=["cpu"])


# --- torch.utils._pytree ---


@dataclasses.dataclass
class _Batch:
    x: object
    y: object = None
    z: int = dataclasses.field(default=3, init=False)


def test_register_dataclass():
    pt.register_dataclass(_Batch)
    leaves, spec = pt.tree_flatten(_Batch(1, [2, 3]))
    assert leaves == [1, 2, 3] and spec.context == [["x", "y"], []]
    assert pt.tree_map(lambda v: v * 10, _Batch(1, [2, 3])) == _Batch(10, [20, 30])
    keys = [pt.keystr(kp) for kp, _ in pt.tree_leaves_with_path(_Batch(1, [2]))]
    assert keys == [".x", ".y[0]"]
    # a field holding None is no leaf: the spec remembers it
    leaves, spec = pt.tree_flatten(_Batch(1, None))
    assert leaves == [1] and spec.context == [["x"], ["y"]]
    assert pt.tree_unflatten([5], spec) == _Batch(5, None)
    with pytest.warns(UserWarning, match="already registered as pytree node"):
        pt.register_dataclass(_Batch)


def test_register_dataclass_field_names():
    @dataclasses.dataclass
    class C:
        a: object
        b: object = None

    with pytest.raises(ValueError, match=r"Missing fields in `field_names`: \{'b'\}"):
        pt.register_dataclass(C, field_names=["a"])
    with pytest.raises(ValueError, match=r"Unexpected fields in `field_names`: \{'c'\}"):
        pt.register_dataclass(C, field_names=["a", "b", "c"])
    pt.register_dataclass(C, field_names=["a"], drop_field_names=["b"])
    assert pt.tree_unflatten(*pt.tree_flatten(C(1, 2))) == C(1, None)  # b dropped

    class Plain:
        def __init__(self, p, q):
            self.p, self.q = p, q

    with pytest.raises(ValueError, match="as it is not a dataclass"):
        pt.register_dataclass(Plain)
    pt.register_dataclass(Plain, field_names=["p", "q"])
    back = pt.tree_map(lambda v: v + 1, Plain(1, (2,)))
    assert (back.p, back.q) == (2, (3,))


def test_arg_tree_leaves():
    assert pt.arg_tree_leaves(1, [2], k=(3,), d={"e": 4}) == [1, 2, 3, 4]
    assert pt.arg_tree_leaves() == []


# --- small namespaces ---


def test_jit_fuser():
    for name in ("fuser0", "fuser1", "fuser2", "fuser3", "none"):
        with mt.jit.fuser(name) as entered:
            assert entered is None
    with pytest.raises(Exception, match=r"unrecognized fuser option \(name: bad\)"):  # noqa: B017
        with mt.jit.fuser("bad"):
            pass


def test_compiler_config_and_nested_compile_region():
    config = mt.compiler.config
    assert config.__name__ == "minitorch.compiler.config"
    assert config.job_id is None and config.force_disable_caches is False
    with config.patch(job_id="run1"):
        assert config.job_id == "run1"
    assert config.job_id is None
    with pytest.raises(AttributeError, match="torch.compiler.config.nope does not exist"):
        config.nope  # noqa: B018

    def f(x):
        return x + 1

    assert mt.compiler.nested_compile_region(f)(1) == 2
    assert mt.compiler.nested_compile_region(max_reuse_entries=2)(f)(1) == 2


def test_cpu_get_capabilities():
    caps = mt.cpu.get_capabilities()
    assert caps is mt.cpu.get_capabilities()  # read once
    with pytest.raises(TypeError):
        caps["avx2"] = True  # immutable, as torch's mappingproxy
    assert isinstance(caps["architecture"], str)
    if caps["architecture"] in ("x86_64", "amd64"):
        for key in ("sse", "sse2", "avx", "avx2", "avx512_f", "fma3", "amx_tile", "sha", "bmi"):
            assert isinstance(caps[key], bool), key
        assert caps["sse2"]  # every x86-64 CPU has SSE2
        for key in ("num_logical_cores", "num_physical_cores", "num_sockets", "l1d_cache_size"):
            assert isinstance(caps[key], int) and caps[key] >= 0, key
        assert caps["num_logical_cores"] >= caps["num_physical_cores"] >= 1


def test_accelerator_get_device_capability():
    with pytest.raises(RuntimeError, match="Accelerator expected"):
        mt.accelerator.get_device_capability("cpu")
    if not mt.accelerator.is_available():
        with pytest.raises(RuntimeError, match="when none is available"):
            mt.accelerator.get_device_capability()
    else:
        dtypes = mt.accelerator.get_device_capability()["supported_dtypes"]
        assert mt.float32 in dtypes and mt.int64 in dtypes


def test_finfo_iinfo_reject_numpy_types():
    with pytest.raises(TypeError, match=r"finfo\(\): argument 'type' \(position 1\) must be torch"):
        mt.finfo(np.float32)
    with pytest.raises(TypeError, match="must be torch.dtype, not numpy"):
        mt.finfo(np.dtype("float32"))
    with pytest.raises(TypeError, match=r"iinfo\(\): argument 'type' \(position 1\) must be torch"):
        mt.iinfo(np.int32)
    # torch dtypes and Python's float/int still work
    assert mt.finfo(mt.float16).eps == 2.0**-10 and mt.finfo(float).eps == 2.0**-52
    assert mt.iinfo(mt.int8).max == 127 and mt.iinfo(int).max == 2**63 - 1
