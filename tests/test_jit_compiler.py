"""minitorch.jit and minitorch.compiler: TorchScript's and the compiler's entry points run the
code eagerly, as written."""

from __future__ import annotations

import pytest

import minitorch as mt


def test_script_and_trace_return_what_they_are_given():
    lin = mt.nn.Linear(3, 2)
    assert mt.jit.script(lin) is lin
    x = mt.randn(4, 3)
    assert mt.jit.trace(lin, x) is lin

    @mt.jit.script
    def f(a):
        return a * 2 if not mt.jit.is_scripting() else a

    assert f(mt.ones(2)).tolist() == [2.0, 2.0]
    assert mt.jit.is_tracing() is False
    assert mt.jit.annotate(list, [1]) == [1]
    fut = mt.jit.fork(lambda a, b: a + b, 1, b=2)
    assert mt.jit.wait(fut) == 3


def test_ignore_unused_export_as_decorators():
    @mt.jit.ignore
    def a():
        return 1

    @mt.jit.ignore(drop=True)
    def b():
        return 2

    @mt.jit.unused
    def c():
        return 3

    assert (a(), b(), c(), mt.jit.export(a)()) == (1, 2, 3, 1)
    with mt.jit.optimized_execution(False):
        pass


def test_save_and_load_refuse_with_a_pointer_to_state_dict(tmp_path):
    with pytest.raises(NotImplementedError, match="state_dict"):
        mt.jit.save(mt.nn.Linear(1, 1), tmp_path / "m.pt")
    with pytest.raises(NotImplementedError, match="load_state_dict"):
        mt.jit.load(tmp_path / "m.pt")


def test_compiler_guards():
    assert mt.compiler.is_compiling() is False
    assert mt.compiler.is_dynamo_compiling() is False

    @mt.compiler.disable
    def g(x):
        return x + 1

    @mt.compiler.disable(recursive=False)
    def h(x):
        return x + 2

    assert (g(1), h(1)) == (2, 3)
    lin = mt.nn.Linear(2, 2)
    assert mt.compiler.compile(lin)._orig_mod is lin
    mt.compiler.reset()
