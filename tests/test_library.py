"""minitorch.library (custom_op, Library, register_*, infer_schema, opcheck) and minitorch.ops:
torch's values, schema texts and messages, written out as literals."""

from __future__ import annotations

import gc
import typing

import numpy as np
import pytest

import minitorch as torch
from minitorch import Tensor
from minitorch.autograd import gradcheck, gradgradcheck

library = torch.library


def _numpy_sin(ns):
    """The tutorial's operator: a kernel that leaves minitorch for NumPy."""

    @library.custom_op(f"{ns}::numpy_sin", mutates_args=())
    def numpy_sin(x: Tensor) -> Tensor:
        out = np.sin(x.detach().cpu().numpy())
        return torch.from_numpy(out).to(x.device)

    return numpy_sin


def _sin_autograd(op):
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()

    op.register_autograd(backward, setup_context=setup_context)


def test_custom_op_forward_reprs_and_schema():
    op = _numpy_sin("t_fwd")
    assert repr(op) == "<CustomOpDef(t_fwd::numpy_sin)>"
    assert op._schema == "(Tensor x) -> Tensor"
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    torch.testing.assert_close(op(x), x.sin())
    packet = torch.ops.t_fwd.numpy_sin
    overload = packet.default
    assert repr(packet) == "<OpOverloadPacket(op='t_fwd.numpy_sin')>"
    assert repr(overload) == "<OpOverload(op='t_fwd.numpy_sin', overload='default')>"
    assert str(packet) == "t_fwd.numpy_sin" and str(overload) == "t_fwd.numpy_sin.default"
    assert str(overload._schema) == "t_fwd::numpy_sin(Tensor x) -> Tensor"
    assert overload.name() == "t_fwd::numpy_sin" and overload.namespace == "t_fwd"
    assert overload.overloadpacket is packet and packet.overloads() == ["default"]
    assert overload.__name__ == "numpy_sin.default" and packet.__name__ == "numpy_sin"
    assert op._opoverload is overload
    torch.testing.assert_close(packet(x), x.sin())
    torch.testing.assert_close(overload(x), x.sin())
    assert repr(torch.ops.t_fwd) == "<module 'minitorch.ops.t_fwd' from 'minitorch.ops'>"
    with pytest.raises(AttributeError, match="'_OpNamespace' 't_fwd' object has no attribute 'x'"):
        torch.ops.t_fwd.x  # noqa: B018


def test_backward_without_a_formula_raises_torchs_error():
    op = _numpy_sin("t_noform")
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    y = op(x)
    assert type(y.grad_fn).__name__ == "GeneratedBackwardFor_t_noform_numpy_sin_defaultBackward"
    with pytest.raises(RuntimeError) as e:
        y.sum().backward()
    assert str(e.value) == (
        "Trying to backward through t_noform.numpy_sin.default but no autograd formula was "
        "registered. Please use register_autograd to add one."
    )
    assert op(x.detach()).grad_fn is None


def test_registered_autograd_gradcheck_and_second_order():
    op = _numpy_sin("t_grad")
    _sin_autograd(op)
    x = torch.tensor([0.3, -1.2, 2.5], dtype=torch.float64, requires_grad=True)
    y = op(x)
    assert "grad_fn=<GeneratedBackwardFor_t_grad_numpy_sin_defaultBackward>" in repr(y)
    y.sum().backward()
    torch.testing.assert_close(x.grad, x.detach().cos())
    assert gradcheck(op, (x,))
    assert gradgradcheck(op, (x,))  # the formula is written in tensor ops


def test_kernel_runs_under_no_grad():
    seen = []

    @library.custom_op("t_mode::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        seen.append((torch.is_grad_enabled(), x.requires_grad))
        return x * 2

    f.register_autograd(lambda ctx, g: g * 2)
    x = torch.ones(2, requires_grad=True)
    y = f(x)
    assert seen == [(False, True)]
    assert y.requires_grad and type(y.grad_fn).__name__.startswith("GeneratedBackwardFor_t_mode")
    y.sum().backward()
    torch.testing.assert_close(x.grad, torch.full((2,), 2.0))


def test_infer_schema_texts():
    infer = library.infer_schema

    def foo(x: Tensor, k: int, s: float = 2.0, flag: bool = False) -> tuple[Tensor, Tensor]: ...

    assert infer(foo, mutates_args=()) == (
        "(Tensor x, SymInt k, float s=2.0, bool flag=False) -> (Tensor, Tensor)"
    )
    assert infer(foo, mutates_args=(), op_name="foo").startswith("foo(Tensor x")

    def opt(
        x: Tensor,
        y: typing.Optional[Tensor] = None,  # noqa: UP045
        n: int | None = None,
        l: typing.List[int] = None,  # noqa: UP006, E741
        s: typing.Sequence[float] = None,
        xs: list[Tensor] = None,
        os: list[Tensor | None] = None,
        sc: int | float | bool = 3,
        st: str = "mean",
        d: torch.dtype = torch.float32,
        dev: torch.device = None,
        *,
        kw: bool = True,
    ) -> list[Tensor]: ...

    assert infer(opt, mutates_args=()) == (
        "(Tensor x, Tensor? y=None, SymInt? n=None, SymInt[] l=None, float[] s=None, "
        'Tensor[] xs=None, Tensor?[] os=None, Scalar sc=3, str st="mean", ScalarType '
        "d=float32, Device dev=None, *, bool kw=True) -> Tensor[]"
    )

    def two(x: Tensor, y: Tensor) -> None: ...

    assert infer(two, mutates_args=("y",)) == "(Tensor x, Tensor(a1!) y) -> ()"
    assert infer(two, mutates_args="unknown") == "(Tensor(a0!) x, Tensor(a1!) y) -> ()"

    def ret_int(x: Tensor) -> typing.Tuple[Tensor, int]: ...  # noqa: UP006

    assert infer(ret_int, mutates_args=()) == "(Tensor x) -> (Tensor, SymInt)"


def test_infer_schema_errors():
    infer = library.infer_schema

    def untyped(x): ...

    with pytest.raises(ValueError) as e:
        infer(untyped, mutates_args=())
    assert str(e.value) == (
        "infer_schema(func): Parameter x must have a type annotation. Got func with signature (x))"
    )

    def star(x: Tensor, *args) -> Tensor: ...

    with pytest.raises(ValueError, match="We do not support positional-only args, varargs, or "):
        infer(star, mutates_args=())

    def noret(x: Tensor): ...

    with pytest.raises(ValueError, match="No return type annotation was provided. Please add one"):
        infer(noret, mutates_args=())

    def f(x: Tensor, n: int) -> Tensor: ...

    with pytest.raises(ValueError, match=r"\{'y'\} in mutates_args were not found in the custom"):
        infer(f, mutates_args=("y",))
    with pytest.raises(ValueError, match="Parameter n is in mutable_args but only Tensors or"):
        infer(f, mutates_args=("n",))
    with pytest.raises(ValueError) as e:
        infer(f, mutates_args="x")
    assert str(e.value) == (
        "mutates_args must either be a sequence of the names of the arguments that are mutated "
        "or the string 'unknown'. "
    )

    def tup_default(x: Tensor, l: list[int] = (1, 2)) -> Tensor: ...  # noqa: E741

    with pytest.raises(ValueError, match="Parameter l has an unsupported default value type <cl"):
        infer(tup_default, mutates_args=())

    def str_ret(x: Tensor) -> str: ...

    with pytest.raises(ValueError, match="Return has unsupported type <class 'str'>"):
        infer(str_ret, mutates_args=())


def test_registered_schema_prints_defaults_as_torch():
    @library.custom_op("t_defaults::f", mutates_args=())
    def f(
        x: Tensor,
        a: float = 0.5,
        b: float = 1e-5,
        c: float = 1e20,
        d: float = -3.0,
        e: float = 0.1,
        h: int = -1,
        k: str = "a'b",
        p: float = 1e16,
    ) -> Tensor: ...

    assert str(torch.ops.t_defaults.f.default._schema) == (
        "t_defaults::f(Tensor x, float a=0.5, float b=1.0000000000000001e-05, float c=1e+20, "
        'float d=-3., float e=0.10000000000000001, SymInt h=-1, str k="a\\\'b", '
        "float p=10000000000000000.) -> Tensor"
    )


def test_argument_errors():
    @library.custom_op("t_args::foo", mutates_args=())
    def foo(x: Tensor, k: int, s: float = 2.0, flag: bool = False) -> tuple[Tensor, Tensor]:
        return x * k, x * s

    decl = "t_args::foo(Tensor x, SymInt k, float s=2., bool flag=False) -> (Tensor, Tensor)"
    a, b = foo(torch.ones(2), k=3)
    torch.testing.assert_close(a, torch.full((2,), 3.0))
    torch.testing.assert_close(b, torch.full((2,), 2.0))
    a, _ = foo(torch.ones(2), torch.tensor(2))  # a 0-d integer tensor is an int
    torch.testing.assert_close(a, torch.full((2,), 2.0))
    cases = [
        (
            lambda: foo(torch.ones(2), 2.5),
            "t_args::foo() Expected a value of type 'int' for argument 'k' but instead found "
            f"type 'float'.\nPosition: 1\nValue: 2.5\nDeclaration: {decl}\nCast error details: "
            "Unable to cast Python instance of type <class 'float'> to C++ type '?' (#define "
            "PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)",
        ),
        (
            lambda: foo([1.0], 2),
            "t_args::foo() Expected a value of type 'Tensor' for argument 'x' but instead found "
            f"type 'list'.\nPosition: 0\nValue: [1.0]\nDeclaration: {decl}\nCast error details: "
            "Unable to cast [1.0] to Tensor",
        ),
        (
            lambda: foo(torch.ones(2)),
            f"t_args::foo() is missing value for argument 'k'. Declaration: {decl}",
        ),
        (
            lambda: foo(torch.ones(2), 1, 2.0, True, 5),
            "t_args::foo() expected at most 4 argument(s) but received 5 argument(s). "
            f"Declaration: {decl}",
        ),
        (
            lambda: torch.ops.t_args.foo(torch.ones(2), 1, zz=3),
            f"Unknown keyword argument 'zz' for operator 't_args::foo'. Schema: {decl}",
        ),
    ]
    for call, message in cases:
        with pytest.raises(RuntimeError) as e:
            call()
        assert str(e.value) == message


def test_outputs_may_not_alias_inputs():
    @library.custom_op("t_alias::same", mutates_args=())
    def same(x: Tensor) -> Tensor:
        return x

    @library.custom_op("t_alias::view", mutates_args=())
    def view(x: Tensor) -> Tensor:
        return x.view(-1)

    @library.custom_op("t_alias::twice", mutates_args=())
    def twice(x: Tensor) -> tuple[Tensor, Tensor]:
        y = x.clone()
        return y, y

    for op in (same, view, twice):
        with pytest.raises(RuntimeError, match=r"\(with implementation in <module 'minitorch"):
            op(torch.ones(2))
    with pytest.raises(RuntimeError, match="The output of this custom operator \\(1\\) must not"):
        same(torch.ones(2))

    @library.custom_op("t_alias::bad_return", mutates_args=())
    def bad_return(x: Tensor) -> Tensor:
        return 3

    with pytest.raises(RuntimeError, match="^Unable to cast 3 to Tensor$"):
        bad_return(torch.ones(2))


def test_mutating_op_and_opcheck():
    @library.custom_op("t_mut::add_one_", mutates_args={"x"})
    def add_one_(x: Tensor) -> None:
        x.add_(1)

    assert add_one_._schema == "(Tensor(a0!) x) -> ()"
    z = torch.zeros(2)
    assert add_one_(z) is None
    torch.testing.assert_close(z, torch.ones(2))
    add_one_.register_fake(lambda x: None)
    assert library.opcheck(add_one_, (torch.zeros(2),)) == {
        "test_schema": "SUCCESS",
        "test_autograd_registration": "SUCCESS",
        "test_faketensor": "SUCCESS",
        "test_aot_dispatch_dynamic": "SUCCESS",
    }

    @library.custom_op("t_mut::sneaky", mutates_args=())
    def sneaky(x: Tensor) -> Tensor:
        x.add_(1)
        return x.clone()

    sneaky.register_fake(lambda x: torch.empty_like(x))
    with pytest.raises(library.OpCheckError) as e:
        library.opcheck(sneaky, (torch.ones(2),))
    assert str(e.value) == (
        "opcheck(op, ...): test_schema failed with Argument x is not defined as mutable but was "
        "mutated (scroll up for stack trace)"
    )


def test_opcheck_fake_and_autograd_registration():
    op = _numpy_sin("t_opcheck")
    x = torch.randn(3, requires_grad=True)
    with pytest.raises(library.OpCheckError) as e:
        library.opcheck(op, (x.detach(),))
    assert str(e.value) == (
        "opcheck(op, ...): test_faketensor failed with There was no fake impl registered for "
        "<CustomOpDef(t_opcheck::numpy_sin)>. This is necessary for torch.compile/export/fx "
        "tracing to work. Please use `numpy_sin.register_fake` to add an fake impl. (scroll up "
        "for stack trace)"
    )
    op.register_fake(lambda x: x.new_empty(3, 1))
    with pytest.raises(library.OpCheckError, match="found mismatched tensor metadata: Shapes "):
        library.opcheck(op, (x.detach(),))
    result = library.opcheck(op, (x.detach(),), raise_exception=False)
    assert result["test_schema"] == "SUCCESS" and isinstance(result["test_faketensor"], Exception)
    assert "Shapes torch.Size([3]) and torch.Size([3, 1]) are not equal!" in str(
        result["test_faketensor"]
    ).replace("minitorch", "torch")

    @library.register_fake("t_opcheck::numpy_sin")
    def _(x):
        return torch.empty_like(x)

    with pytest.raises(library.OpCheckError, match="no autograd formula was registered"):
        library.opcheck(op, (x,))  # the backward through it fails
    _sin_autograd(op)
    assert set(library.opcheck(op, (x,)).values()) == {"SUCCESS"}
    assert library.opcheck(op, (x,), test_utils="test_schema") == {"test_schema": "SUCCESS"}
    with pytest.raises(ValueError, match="expected test_utils to be subset of"):
        library.opcheck(op, (x,), test_utils="test_nothing")


def test_library_define_and_impl():
    lib = library.Library("t_lib", "DEF")
    assert repr(lib) == "Library(kind=DEF, ns=t_lib, dispatch_key=)>"
    assert lib.define("bar(Tensor x, int n=1) -> Tensor") == "bar"
    with pytest.raises(NotImplementedError, match="^Could not run 't_lib::bar' with arguments "):
        torch.ops.t_lib.bar(torch.ones(2))
    lib.impl("bar", lambda x, n=1: x * n, "CPU")
    torch.testing.assert_close(torch.ops.t_lib.bar(torch.ones(2), 3), torch.full((2,), 3.0))
    torch.testing.assert_close(torch.ops.t_lib.bar(torch.ones(2)), torch.ones(2))
    a = torch.ones(2, requires_grad=True)
    y = torch.ops.t_lib.bar(a, 3)  # a kernel with no autograd key: torch's deprecated fallback
    assert type(y.grad_fn).__name__ == "MulBackward0"
    with pytest.warns(UserWarning, match="t_lib::bar: an autograd kernel was not registered"):
        y.sum().backward()
    lib.define("baz(Tensor x) -> Tensor")
    lib.impl("baz", lambda x: x.sin(), "CompositeImplicitAutograd")
    y = torch.ops.t_lib.baz(a)
    assert type(y.grad_fn).__name__ == "SinBackward0"
    assert str(torch.ops.t_lib.baz.default._schema) == "t_lib::baz(Tensor x) -> Tensor"
    with pytest.raises(RuntimeError, match=r"^Tried to register an operator \(t_lib::bar\(Tensor"):
        lib.define("bar(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match="^Only a single TORCH_LIBRARY can be used to register"):
        library.Library("t_lib", "DEF")
    fragment = library.Library("t_lib", "FRAGMENT")
    fragment.define("qux(Tensor x, *, float eps=1e-05) -> Tensor")
    assert str(torch.ops.t_lib.qux.default._schema) == (
        "t_lib::qux(Tensor x, *, float eps=1.0000000000000001e-05) -> Tensor"
    )
    with pytest.raises(ValueError, match="^Unsupported kind: BLAH$"):
        library.Library("t_lib2", "BLAH")


def test_library_lifetime_releases_its_operators():
    def make():
        lib = library.Library("t_life", "DEF")
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x + 1, "CompositeImplicitAutograd")
        torch.testing.assert_close(torch.ops.t_life.f(torch.zeros(1)), torch.ones(1))

    make()
    gc.collect()
    with pytest.raises(AttributeError):
        torch.ops.t_life.f  # noqa: B018
    make()  # the namespace is free again


def test_module_level_define_impl_and_overloads():
    library.define("t_mod::qux", "(Tensor x) -> Tensor")

    @library.impl("t_mod::qux", "cpu")
    def qux(x):
        return x + 1

    torch.testing.assert_close(torch.ops.t_mod.qux(torch.ones(2)), torch.full((2,), 2.0))
    library.define("t_mod::qux.scaled", "(Tensor x, float s) -> Tensor")
    library.impl("t_mod::qux.scaled", "CompositeImplicitAutograd", lambda x, s: x * s)
    assert torch.ops.t_mod.qux.overloads() == ["default", "scaled"]
    assert (
        str(torch.ops.t_mod.qux.scaled._schema) == "t_mod::qux.scaled(Tensor x, float s) -> Tensor"
    )
    torch.testing.assert_close(
        torch.ops.t_mod.qux.scaled(torch.ones(2), 3.0), torch.full((2,), 3.0)
    )


def test_kernels_per_device(device):
    op = _numpy_sin(f"t_dev_{device}")
    op.register_kernel("cuda")(lambda x: x.sin() * 10)  # stands for a GPU kernel
    x = torch.tensor([0.5, 1.0], device=device)
    want = x.sin() * (1 if device == "cpu" else 10)
    torch.testing.assert_close(op(x), want)

    @library.custom_op(f"t_dev_{device}::cuda_only", mutates_args=(), device_types="cuda")
    def cuda_only(x: Tensor) -> Tensor:
        return x.clone()

    if device == "cpu":
        with pytest.raises(NotImplementedError, match="from the 'CPU' backend"):
            cuda_only(x)
    else:
        torch.testing.assert_close(cuda_only(x), x)


def test_tensor_lists_and_keyword_only_arguments():
    @library.custom_op("t_list::scale", mutates_args=())
    def scale(xs: list[Tensor], *, k: float = 2.0) -> list[Tensor]:
        return [t * k for t in xs]

    seen = {}

    def setup_context(ctx, inputs, keyword_only_inputs, output):
        seen["inputs"] = len(inputs[0])
        seen["kw"] = dict(keyword_only_inputs)
        ctx.k = keyword_only_inputs["k"]

    scale.register_autograd(lambda ctx, gs: ([g * ctx.k for g in gs],), setup_context=setup_context)
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(3, requires_grad=True)
    out = scale([a, b], k=3.0)
    assert isinstance(out, list) and len(out) == 2
    assert seen == {"inputs": 2, "kw": {"k": 3.0}}
    (out[0].sum() + out[1].sum()).backward()
    torch.testing.assert_close(a.grad, torch.full((2,), 3.0))
    torch.testing.assert_close(b.grad, torch.full((3,), 3.0))


def test_gradient_counts_are_checked_before_types():
    @library.custom_op("t_count::twice", mutates_args=())
    def twice(x: Tensor, y: Tensor) -> Tensor:
        return x * 2 + y

    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    message = (
        "function GeneratedBackwardFor_t_count_twice_defaultBackward returned an incorrect "
        "number of gradients (expected 3, got 2)"
    )
    for bw in (lambda ctx, g: g * 2, lambda ctx, g: [g * 2, g]):
        twice.register_autograd(bw)
        with pytest.raises(RuntimeError) as e:
            twice(a, b).sum().backward()
        assert str(e.value) == message
    twice.register_autograd(lambda ctx, g: (g * 2, g, None))  # a trailing None is accepted
    twice(a, b).sum().backward()
    torch.testing.assert_close(a.grad, torch.full((2,), 2.0))
    twice.register_autograd(lambda ctx, g: (g * 2, 3))
    with pytest.raises(RuntimeError, match=r"^expected Variable or None \(got int\)$"):
        twice(a, b).sum().backward()

    needs = []

    def setup(ctx, inputs, output):
        needs.append(ctx.needs_input_grad)

    twice.register_autograd(lambda ctx, g: (g, g), setup_context=setup)
    twice(a, torch.ones(2)).sum().backward()
    assert needs == [(True, False, False)]


def test_plain_function_count_error_comes_before_type_error():
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, c):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return [g, g], None

    a = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 3, got 2\)"):
        F.apply(a, a, 3).sum().backward()


def test_aten_namespace_calls_minitorchs_functions():
    x, y = torch.ones(2), torch.full((2,), 2.0)
    torch.testing.assert_close(torch.ops.aten.add(x, y, alpha=2), torch.full((2,), 5.0))
    torch.testing.assert_close(torch.ops.aten.add.Tensor(x, y), torch.full((2,), 3.0))
    m = torch.eye(2)
    torch.testing.assert_close(torch.ops.aten.mm.default(m, m), m)
    assert repr(torch.ops.aten.mm) == "<OpOverloadPacket(op='aten.mm')>"
    assert repr(torch.ops.aten.mm.default) == "<OpOverload(op='aten.mm', overload='default')>"
    with pytest.raises(AttributeError, match="'_OpNamespace' 'aten' object has no attribute"):
        torch.ops.aten.no_such_op  # noqa: B018


def test_impl_abstract_is_deprecated():
    library.define("t_abs::f", "(Tensor x) -> Tensor")
    with pytest.warns(FutureWarning, match="torch.library.impl_abstract was renamed to torch"):
        library.impl_abstract("t_abs::f", lambda x: torch.empty_like(x))


def test_a_custom_op_defined_again_replaces_the_old_objects_kernel():
    @library.custom_op("t_again::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x + 1

    old = f

    @library.custom_op("t_again::f", mutates_args=())
    def f(x: Tensor) -> Tensor:  # noqa: F811 - the redefinition is the point
        return x + 2

    torch.testing.assert_close(old(torch.zeros(1)), torch.full((1,), 2.0))  # torch: the live op
    old.register_autograd(lambda ctx, g: g)  # on the replaced definition: no effect
    with pytest.raises(RuntimeError, match="no autograd formula was registered"):
        f(torch.zeros(1, requires_grad=True)).sum().backward()
